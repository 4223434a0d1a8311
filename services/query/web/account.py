"""Sign-in and the signed-in user's pages: follows (added and removed by form POSTs through the accounts' own
checks, as the API's) and the feed. Signing in (e-mail and password, or an API token) starts a server-side session
whose id lives in an HttpOnly, SameSite=Lax cookie; no GET changes anything, and every POST carries the CSRF token."""

import re
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import Any, get_args
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.follows.checks import FollowRuleError
from papertrail.domain.follows.kinds import FOLLOW_KINDS
from papertrail.domain.follows.kinds.similar import MAX_THRESHOLD, MIN_THRESHOLD
from papertrail.runtime.push.channels import CHANNEL_NAMES
from schemas.paper import ClaimTrack
from services.query.accounts import follows as accounts
from services.query.accounts import push
from services.query.accounts.keys import known_browser, known_browser_cookie
from services.query.accounts.repositories import ReaderRecords
from services.query.accounts.users import BadAccountInput, awaits_operator, normalised_email, signed_in
from services.query.catalogue.reads.venues import CCF_FIELDS
from services.query.http.deps import (
    SESSION_COOKIE,
    FollowAnnouncerDep,
    LibraryDep,
    PapersDep,
    ReaderModelsDep,
    ReadersDep,
    SettingsDep,
    SiteSecretDep,
    resources_of,
)
from services.query.http.write_limits import SignInFailures, WriteLimit, client_address
from services.query.library.feed import FeedSort, feed_page
from services.query.recommender.recommend import BadFeedCursor
from services.query.web import labels
from services.query.web.refusals import validation_text
from services.query.web.render import (
    Reader,
    Words,
    check_csrf,
    end_session,
    error_page,
    render,
    see_other,
    signed_in_user,
    start_session,
    words_of,
)

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
    t = words_of(request)
    return render(request, "login.html", 401, error=t.gettext("Please sign in first."), next=request.url.path)


CSRF = [Depends(check_csrf)]
SIGN_IN_FAILURES = SignInFailures()
# Set when a browser signs in with the account's password: others' failures do not lock that browser out.
KNOWN_BROWSER_COOKIE = "pt_known"
KNOWN_BROWSER_S = 365 * 24 * 3600


@router.get("/login", response_class=HTMLResponse)
async def show_login(request: Request, next: str = "/me/feed") -> HTMLResponse:
    """The sign-in form: e-mail and password, or (for API users) an API token."""
    return render(request, "login.html", user=await signed_in_user(request), next=local_path(next, "/me/feed"))


SIGN_INS = WriteLimit("login_per_address", by="client")


@router.post("/login", response_class=HTMLResponse, dependencies=CSRF)
async def sign_in(
    t: Words, request: Request, readers: ReadersDep, settings: SettingsDep, site_secret: SiteSecretDep
) -> Response:
    """Check the address and password (or the pasted API token) and start a new session (a session this browser
    held before ends: the id rotates at sign-in). A refusal never says whether the address has an account.
    Attempts count against LIMIT_LOGIN_PER_ADDRESS per client: a browser that signed in to the account before
    (its known-browser cookie) counts on its own, not with everyone else behind its address."""
    form = await form_fields(request)
    target = local_path(form.get("next"), "/me/feed")
    token = form.get("token", "").strip()
    email, browser = "", None
    if token:
        await SIGN_INS.count(request, "address:" + client_address(request))
        user = await readers.tokens.user_for_token(token)
        refusal = t.gettext("Unknown or revoked token.")
    else:
        try:
            email = normalised_email(form.get("email", ""))
        except BadAccountInput:
            email = form.get("email", "").strip().casefold()
        browser = known_browser(site_secret, email, request.cookies.get(KNOWN_BROWSER_COOKIE))
        await SIGN_INS.count(request, f"browser:{browser}" if browser else "address:" + client_address(request))
        await SIGN_IN_FAILURES.check(request, email, browser)
        user = await signed_in(readers, email, form.get("password", ""))
        if user is None:
            await SIGN_IN_FAILURES.failed(request, email, browser)
        refusal = t.gettext("Wrong e-mail address or password.")
    if user is None:
        return render(request, "login.html", 401, error=refusal, next=target, email=form.get("email", ""))
    if not token and awaits_operator(settings, user):  # the right password: saying so tells its holder only
        awaiting = t.gettext(
            "Your address is not confirmed yet. No mail server is configured here and the operators "
            "confirm addresses: ask them (papertrail users confirm %(email)s).",
            email=user["account_email"],
        )
        return render(request, "login.html", 403, error=awaiting, next=target, email=form.get("email", ""))
    if old := request.cookies.get(SESSION_COOKIE):
        await readers.sessions.drop_session(old)
    lifetime = timedelta(days=settings.session_days)
    session = await readers.sessions.create_session(user["_id"], datetime.now(UTC) + lifetime)
    response = see_other(target)
    start_session(request, response, session, int(lifetime.total_seconds()))
    if email and not browser:  # signed in with the password: this browser is one the account knows from now on
        cookie = known_browser_cookie(site_secret, email)
        response.set_cookie(KNOWN_BROWSER_COOKIE, cookie, max_age=KNOWN_BROWSER_S, httponly=True, samesite="lax",
                            secure=settings.secure_cookies)  # fmt: skip
    return response


@router.post("/logout", dependencies=CSRF)
async def sign_out(request: Request, readers: ReadersDep) -> Response:
    """End this browser's session."""
    if session := request.cookies.get(SESSION_COOKIE):
        await readers.sessions.drop_session(session)
    response = see_other("/")
    end_session(request, response)
    return response


async def _follows_page(
    request: Request, user: dict[str, Any], readers: ReaderRecords, status_code: int = 200, **context: Any
) -> HTMLResponse:
    follows = await accounts.list_follows(readers, resources_of(request).papers, user["_id"])
    counts = await readers.matches.follow_counts(user["_id"])
    channels = await push.list_push_channels(readers, user["_id"])
    similar = {
        "default_threshold": resources_of(request).settings.similar_threshold,
        "threshold_range": (MIN_THRESHOLD, MAX_THRESHOLD),
    }
    return render(
        request,
        "follows.html",
        status_code,
        user=user,
        follows=follows,
        counts=counts,
        topics=load_catalogue(),
        venue_fields=CCF_FIELDS,
        venue_tracks=list(get_args(ClaimTrack)),
        push_channels=channels,
        push_kinds=CHANNEL_NAMES,
        **similar,
        **context,
    )


@router.get("/me/follows", response_class=HTMLResponse)
async def show_follows(
    request: Request,
    user: Reader,
    readers: ReadersDep,
    created: str | None = None,
    cannot_match: str | None = None,
    push_added: str | None = None,
) -> HTMLResponse:
    """Your follows and the form to add one (after adding one that cannot match anything yet, why); your push
    channels, the default one, and the channel each follow pushes to."""
    return await _follows_page(
        request, user, readers, created=created, cannot_match=cannot_match, push_added=push_added, form={}
    )


FOLLOW_WRITES = [*CSRF, Depends(WriteLimit("follow_writes", by="user"))]


class FollowRefused(Exception):
    """A follow form the accounts' checks refused: the status and what is wrong, in the reader's language."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code, self.detail = status_code, detail


async def follow_from_form(
    request: Request, user: dict[str, Any], readers: ReaderRecords, form: dict[str, str]
) -> accounts.FollowOut:
    """Create the follow a form asks for, with the API's validation (the follows page and every page's 关注 button);
    FollowRefused says why not."""
    t = words_of(request)
    resources = resources_of(request)
    try:
        body = accounts.FollowCreate.model_validate(follow_body(form))
        return await accounts.create_follow(
            readers, resources.papers, resources.announce_follow_change, user["_id"], body,
            resources.settings.similar_threshold,
        )  # fmt: skip
    except ValidationError as error:
        raise FollowRefused(422, validation_text(error, t)) from error
    except accounts.BadSeed as error:
        raise FollowRefused(
            400, labels.seed_refusal(t, error.why, position=error.position + 1, seed=error.seed)
        ) from error
    except FollowRuleError as error:
        detail = labels.follow_rule(t, error.rule, "", **error.values) or str(error)
        raise FollowRefused(400, detail) from error


@router.post("/me/follows", response_class=HTMLResponse, dependencies=FOLLOW_WRITES)
async def add_follow(request: Request, user: Reader, readers: ReadersDep) -> Response:
    """Add a keyword, author, topic or similar follow with the API's validation; a refusal is shown on the page."""
    form = await form_fields(request)
    try:
        follow = await follow_from_form(request, user, readers, form)
    except FollowRefused as refused:
        return await _follows_page(request, user, readers, refused.status_code, error=refused.detail, form=form)
    return see_other(created_url(follow))


def created_url(follow: accounts.FollowOut) -> str:
    """The follows page saying a follow was added, and, for one that cannot match anything yet, why."""
    warned = {"cannot_match": "chinese"} if follow.warning else {}
    return "/me/follows?" + urlencode({"created": follow.name, **warned})


def follow_body(form: dict[str, str]) -> dict[str, Any]:
    """The form's fields as the API's follow body: the kind's own field and what its module reads of the form,
    blank ones left out."""
    kind = form.get("kind", "keyword")
    spec = FOLLOW_KINDS.get(kind)
    own = spec.own_field if spec is not None else "query"
    value = form.get(own, "").strip()
    body: dict[str, Any] = {"kind": kind, "name": form.get("name", "").strip() or value, own: value or None}
    return body | (spec.from_form(form) if spec is not None else {})


@router.post("/me/follows/{follow_id}/delete", dependencies=FOLLOW_WRITES)
async def remove_follow(
    follow_id: str, request: Request, user: Reader, readers: ReadersDep, announce: FollowAnnouncerDep
) -> Response:
    """Unfollow one of your follows (another user's follow id reads as missing), then back to `next` (a path of this
    site) or the follows page."""
    if not FOLLOW_ID.match(follow_id):
        return error_page(request, 404, words_of(request).gettext("Page not found."), user)
    try:
        await accounts.delete_follow(readers, announce, user["_id"], follow_id)
    except accounts.NoSuchFollow:
        return error_page(
            request, 404, words_of(request).gettext("No such follow (it may be unfollowed already)."), user
        )
    # a page's 已关注 button comes back to its page; anything but a path of this site to the follows page
    return see_other(local_path((await form_fields(request)).get("next"), "/me/follows"))


@router.post("/me/push-channels", response_class=HTMLResponse, dependencies=FOLLOW_WRITES)
async def add_push_channel(
    t: Words, request: Request, user: Reader, readers: ReadersDep, settings: SettingsDep
) -> Response:
    """Add a push channel with the API's checks; a refusal is shown on the page, and so is a generic webhook's
    signing secret, once."""
    form = await form_fields(request)
    fields: dict[str, Any] = {
        k: v.strip() for k, v in form.items() if k in push.PushChannelCreate.model_fields and v.strip()
    }
    fields["default"] = "default" in form
    try:
        body = push.PushChannelCreate.model_validate(fields)
        made = await push.add_push_channel(readers, settings.webhook_policy, user["_id"], body)
    except ValidationError as error:
        return await _follows_page(request, user, readers, 422, push_error=validation_text(error, t), push_form=form)
    except (push.BadPushTarget, push.TooManyPushChannels) as error:
        return await _follows_page(request, user, readers, 422, push_error=str(error), push_form=form)
    if made.secret:  # a generic webhook's signing secret: shown this once
        return await _follows_page(request, user, readers, push_added=made.name, push_secret=made.secret)
    return see_other("/me/follows?" + urlencode({"push_added": made.name}) + "#push")


async def _push_channels_changed(request: Request, user: dict[str, Any], change: Awaitable[None]) -> Response:
    """Back to the push channels once `change` is made; a 404 page when it names none of the reader's."""
    try:
        await change
    except accounts.NoSuchPushChannel:
        return error_page(
            request,
            404,
            words_of(request).gettext("No such push channel (it may be removed already)."),
            user,
        )
    return see_other("/me/follows#push")


@router.post("/me/push-channels/{channel_id}/delete", dependencies=FOLLOW_WRITES)
async def remove_push_channel(
    channel_id: str, request: Request, user: Reader, readers: ReadersDep, announce: FollowAnnouncerDep
) -> Response:
    """Remove one of your push channels; its follows push to the default from now on."""
    return await _push_channels_changed(
        request, user, push.remove_push_channel(readers, announce, user["_id"], channel_id)
    )


@router.post("/me/push-default", dependencies=FOLLOW_WRITES)
async def set_push_default(request: Request, user: Reader, readers: ReadersDep) -> Response:
    """Where follows without a channel of their own push (none: to your webhook, if any)."""
    chosen = (await form_fields(request)).get("push_channel_id") or None
    return await _push_channels_changed(request, user, push.set_push_default(readers, user["_id"], chosen))


@router.post("/me/follows/{follow_id}/push", dependencies=FOLLOW_WRITES)
async def push_follow_to(
    t: Words, follow_id: str, request: Request, user: Reader, readers: ReadersDep, announce: FollowAnnouncerDep
) -> Response:
    """Push one follow's matches to one of your push channels (none chosen: to the default)."""
    chosen = (await form_fields(request)).get("push_channel_id") or None
    if not FOLLOW_ID.match(follow_id) or (chosen is not None and not FOLLOW_ID.match(chosen)):
        return error_page(request, 404, t.gettext("Page not found."), user)
    try:
        await push.push_follow_to(readers, announce, user["_id"], follow_id, chosen)
    except accounts.NoSuchFollow:
        return error_page(request, 404, t.gettext("No such follow (it may be unfollowed already)."), user)
    except accounts.NoSuchPushChannel:
        return error_page(request, 404, t.gettext("No such push channel (it may be removed already)."), user)
    return see_other(f"/me/follows#follow-{follow_id}")


@router.get("/me/feed", response_class=HTMLResponse)
async def show_feed(
    t: Words,
    request: Request,
    user: Reader,
    readers: ReadersDep,
    papers: PapersDep,
    reader_models: ReaderModelsDep,
    library: LibraryDep,
    settings: SettingsDep,
    sort: str = "newest",
    follow_id: str | None = None,
    cursor: str | None = None,
) -> HTMLResponse:
    """The papers your follows (or one of them: `follow_id`) matched, each once with every follow's reasons: new
    ones first (those since your previous visit marked), then those the backfills of new follows found (回溯); or
    为你推荐 (?sort=relevance): recent papers ranked by what you saved and dismissed, each with the saved paper it is
    closest to."""
    chosen: FeedSort = "relevance" if sort == "relevance" and follow_id is None else "newest"
    following = None
    if follow_id is not None:
        found = await readers.follows.get_follow(user["_id"], follow_id) if FOLLOW_ID.match(follow_id) else None
        if found is None:
            return error_page(request, 404, t.gettext("No such follow (it may be unfollowed already)."), user)
        following = found[0]
    visited = await readers.users.feed_visited(user["_id"], datetime.now(UTC))
    try:
        page = await feed_page(
            readers, papers, reader_models, user["_id"], sort=chosen, since=None,
            window_days=settings.feed_window_days, follow_id=follow_id, cursor=cursor, limit=FEED_PAGE,
            visited=visited,
        )  # fmt: skip
    except BadFeedCursor:
        return error_page(request, 422, t.gettext("Page not found."), user)
    marks = await library.marks(user["_id"], [item["paper_id"] for item in page["items"]])
    kept = {"sort": chosen, **({"follow_id": follow_id} if follow_id else {})}
    more = f"/me/feed?{urlencode({**kept, 'cursor': page['next_cursor']})}" if page["next_cursor"] else None
    return render(
        request, "feed.html", user=user, feed=page["items"], page=page, chosen=chosen, more=more, marks=marks,
        window_days=settings.feed_window_days, following=following,
        continued=cursor is not None,
    )  # fmt: skip
