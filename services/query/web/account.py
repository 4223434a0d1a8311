"""Sign-in and the signed-in user's pages: follows (added and removed by form POSTs through the accounts' own
checks, as the API's) and the feed. The token lives in an HttpOnly, SameSite=Strict cookie; no GET changes anything."""

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from papertrail.follows.catalogue import load_catalogue
from papertrail.follows.checks import FollowRuleError
from services.query.accounts import follows as accounts
from services.query.deps import PaperIndexDep, StoreDep, resources_of
from services.query.library.feed import FeedSort, feed_page
from services.query.library.recommend import BadFeedCursor
from services.query.web.i18n import Translator
from services.query.web.render import TOKEN_COOKIE, YEAR, error_page, language, render, see_other, signed_in_user

router = APIRouter(include_in_schema=False)
FOLLOW_ID = re.compile(r"^[0-9a-f]{32}$")
MAX_FORM_BYTES = 16_384
FEED_PAGE = 50


async def form_fields(request: Request) -> dict[str, str]:
    """An application/x-www-form-urlencoded body as a dict (the last value of a repeated name wins)."""
    body = await request.body()
    return dict(parse_qsl(body[:MAX_FORM_BYTES].decode("utf-8", "replace"), keep_blank_values=True))


def local_path(target: str | None, default: str) -> str:
    """Only a path on this site is followed after signing in (never another host)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return default


def login_required(request: Request) -> HTMLResponse:
    t = Translator(language(request))
    return render(request, "login.html", 401, error=t("login_required"), next=request.url.path)


@router.get("/login", response_class=HTMLResponse)
async def show_login(request: Request, next: str = "/me/feed") -> HTMLResponse:
    """The sign-in form: paste the API token."""
    return render(request, "login.html", user=await signed_in_user(request), next=local_path(next, "/me/feed"))


@router.post("/login", response_class=HTMLResponse)
async def sign_in(request: Request, store: StoreDep) -> Response:
    """Check the pasted token; keep it in an HttpOnly, SameSite=Strict cookie."""
    form = await form_fields(request)
    token, target = form.get("token", "").strip(), local_path(form.get("next"), "/me/feed")
    if not token or await store.user_for_token(token) is None:
        t = Translator(language(request))
        return render(request, "login.html", 401, error=t("login_bad_token"), next=target)
    response = see_other(target)
    response.set_cookie(
        TOKEN_COOKIE, token, max_age=YEAR, httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )
    return response


@router.post("/logout")
async def sign_out() -> Response:
    """Forget the token cookie."""
    response = see_other("/")
    response.delete_cookie(TOKEN_COOKIE, httponly=True, samesite="strict")
    return response


async def _follows_page(
    request: Request, user: dict[str, Any], store: Any, status_code: int = 200, **context: Any
) -> HTMLResponse:
    follows = await accounts.list_follows(store, user["_id"])
    return render(request, "follows.html", status_code, user=user, follows=follows, topics=load_catalogue(), **context)


@router.get("/me/follows", response_class=HTMLResponse)
async def show_follows(request: Request, store: StoreDep, created: str | None = None) -> HTMLResponse:
    """Your follows and the form to add one."""
    user = await signed_in_user(request)
    if user is None:
        return login_required(request)
    return await _follows_page(request, user, store, created=created, form={})


@router.post("/me/follows", response_class=HTMLResponse)
async def add_follow(request: Request, store: StoreDep) -> Response:
    """Add a keyword, author or topic follow with the API's validation; a refusal is shown on the page."""
    user = await signed_in_user(request)
    if user is None:
        return login_required(request)
    form = await form_fields(request)
    announce = resources_of(request).announce_follow_change
    try:
        body = accounts.FollowCreate.model_validate(follow_body(form))
        follow = await accounts.create_follow(store, announce, user["_id"], body)
    except ValidationError as error:
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        return await _follows_page(request, user, store, 422, error=detail, form=form)
    except FollowRuleError as error:
        return await _follows_page(request, user, store, 400, error=str(error), form=form)
    return see_other("/me/follows?" + urlencode({"created": follow.name}))


def follow_body(form: dict[str, str]) -> dict[str, Any]:
    """The form's fields as the API's follow body: only the kind's own field, blank ones left out."""
    kind = form.get("kind", "keyword")
    own = {"keyword": "query", "author": "author", "topic": "topic_id"}.get(kind, "query")
    value = form.get(own, "").strip()
    body: dict[str, Any] = {"kind": kind, "name": form.get("name", "").strip() or value, own: value or None}
    if kind == "keyword":
        body["fields"] = form.get("fields") or "both"
        body["categories"] = form.get("categories", "").split()
    return body


@router.post("/me/follows/{follow_id}/delete")
async def remove_follow(follow_id: str, request: Request, store: StoreDep) -> Response:
    """Unfollow one of your follows (another user's follow id reads as missing)."""
    user = await signed_in_user(request)
    if user is None:
        return login_required(request)
    if not FOLLOW_ID.match(follow_id):
        return error_page(request, 404, Translator(language(request))("not_found"), user)
    try:
        await accounts.delete_follow(store, resources_of(request).announce_follow_change, user["_id"], follow_id)
    except accounts.NoSuchFollow as error:
        return error_page(request, 404, str(error), user)
    return see_other("/me/follows")


@router.get("/me/feed", response_class=HTMLResponse)
async def show_feed(
    request: Request, store: StoreDep, index: PaperIndexDep, sort: str = "newest", cursor: str | None = None
) -> HTMLResponse:
    """Papers matching your follows, newest match first, with why each matched; or 为你推荐 (?sort=relevance):
    recent papers ranked by what you saved and dismissed, each with the saved paper it is closest to."""
    user = await signed_in_user(request)
    if user is None:
        return login_required(request)
    resources = resources_of(request)
    chosen: FeedSort = "relevance" if sort == "relevance" else "newest"
    try:
        page = await feed_page(
            store, index, resources.reader_models, user["_id"], sort=chosen, since=None,
            window_days=resources.settings.feed_window_days, follow_id=None, cursor=cursor, limit=FEED_PAGE,
        )  # fmt: skip
    except BadFeedCursor:
        return error_page(request, 422, Translator(language(request))("not_found"), user)
    marks = await resources.library.marks(user["_id"], [item["paper_id"] for item in page["items"]])
    more = f"/me/feed?{urlencode({'sort': chosen, 'cursor': page['next_cursor']})}" if page["next_cursor"] else None
    return render(request, "feed.html", user=user, feed=page["items"], page=page, chosen=chosen, more=more, marks=marks)
