"""关注 from where the reader is: the one-click follow form of the author, search, paper, 本周录用 and deadline pages
(POST /follow, CSRF-checked like every form of the pages), created by the accounts' own code as /me/follows and the
API create one, then back to the page it was clicked on (`next`: a path of this site, never another host); and the
reader's follows each page's buttons are shown against (已关注 with its unfollow)."""

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from services.query.http.deps import ReadersDep, resources_of
from services.query.web.account import (
    FOLLOW_WRITES,
    FollowRefused,
    created_url,
    follow_from_form,
    form_fields,
    local_path,
)
from services.query.web.follow_offers import FollowsHere
from services.query.web.render import Reader, error_page, see_other, words_of

router = APIRouter(include_in_schema=False)


async def follows_here(request: Request, user: dict[str, Any] | None) -> FollowsHere:
    """The signed-in reader's follows for the page's 关注 buttons (none signed out)."""
    if user is None:
        return FollowsHere()
    return FollowsHere(
        tuple(follow for follow, _ in await resources_of(request).readers.follows.list_follows(user["_id"]))
    )


@router.post("/follow", response_class=HTMLResponse, dependencies=FOLLOW_WRITES)
async def follow_from_here(request: Request, user: Reader, readers: ReadersDep) -> Response:
    """Follow what a page's 关注 button offers, then back to that page (or, for a follow that cannot match anything
    yet, to the follows page saying why); a `next` that is no path of this site is refused before anything is
    followed."""
    form = await form_fields(request)
    back = local_path(form.get("next"), "")
    if not back:
        return error_page(
            request,
            400,
            words_of(request).gettext("Nothing was followed: the page to return to is not on this site"),
            user,
        )
    try:
        follow = await follow_from_form(request, user, readers, form)
    except FollowRefused as refused:
        return error_page(request, refused.status_code, refused.detail, user)
    # one that cannot match anything yet (Chinese words while no paper has a summary): the follows page says why
    return see_other(created_url(follow) if follow.warning else back)
