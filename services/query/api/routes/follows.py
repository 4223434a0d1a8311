"""Per-user routes (bearer token): follows CRUD announced on follows.changed.v1, the feed, webhooks, digests."""

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query
from pydantic import BaseModel, Field

from papertrail.domain.follows.checks import FollowRuleError
from papertrail.runtime.outbound import OutboundPolicy, OutboundRefused
from papertrail.runtime.push.channel import Language, masked_url
from papertrail.runtime.push.channels import CHANNELS, GENERIC
from services.query.api.problems import problem_responses
from services.query.catalogue.reads.search import Moment
from services.query.deps import (
    CurrentUser,
    FollowAnnouncerDep,
    PapersDep,
    ReaderModelsDep,
    ReadersDep,
    SettingsDep,
)
from services.query.readers.accounts import follows as accounts
from services.query.readers.accounts import push
from services.query.readers.accounts.follows import FollowCreate, FollowOut, NoSuchFollow, NoSuchPushChannel
from services.query.readers.accounts.push import PushTarget
from services.query.readers.library.feed import FEED_CURSOR_PATTERN, FeedSort, feed_page
from services.query.readers.library.recommend import BadFeedCursor
from services.query.readers.write_limits import WriteLimit

# every route here is the signed-in user's: 401 without a valid token
router = APIRouter(prefix="/api", tags=["follows"], responses=problem_responses(401))
FOLLOW_ID_PATTERN = r"^[0-9a-f]{32}$"
FollowId = Annotated[str, Path(pattern=FOLLOW_ID_PATTERN, description="follow id")]


def follow_links(*operations: str) -> dict[str, Any]:
    """OpenAPI links from an answer carrying a follow (its `id`) to the operations on that follow."""
    return {
        operation: {"operationId": operation, "parameters": {"follow_id": "$response.body#/id"}}
        for operation in operations
    }


NO_SUCH_FOLLOW = problem_responses((404, "you have no follow of this id"), 422)
# follow, webhook and push channel writes count against LIMIT_FOLLOW_WRITES per user
WRITE_LIMIT = [Depends(WriteLimit("follow_writes", by="user"))]
RATE_LIMITED = problem_responses(429)
WEBHOOK_REFUSED = (
    422,
    "a field is not what the API takes, or the webhook URL is one webhooks may not reach (an internal address, "
    "credentials in the URL, not http or https): `detail` names the field and the rule",
)


def check_webhook_url(policy: OutboundPolicy, field: str, url: object) -> None:
    """A 422 naming the field and the rule when webhooks may not reach the URL (the matcher checks it again, resolved,
    when it connects)."""
    try:
        policy.check_url(str(url))
    except OutboundRefused as error:
        raise HTTPException(422, f"{field}: {error}") from error


class Me(BaseModel):
    id: str
    name: str
    created_at: datetime


@router.get("/me", response_model=Me)
async def read_me(user: CurrentUser) -> dict[str, Any]:
    """The signed-in user."""
    return {"id": user["_id"], "name": user["name"], "created_at": user["created_at"]}


@router.post(
    "/follows",
    response_model=FollowOut,
    status_code=201,
    dependencies=WRITE_LIMIT,
    responses={
        # the new follow's id reads and deletes it (and schemathesis's stateful phase follows these links)
        201: {"links": follow_links("read_follow", "delete_follow")},
        **problem_responses(
            (400, "the body is no JSON, or the follow breaks a rule it is compiled by"), WEBHOOK_REFUSED
        ),
        **RATE_LIMITED,
    },
)
async def create_follow(
    body: FollowCreate,
    user: CurrentUser,
    readers: ReadersDep,
    papers: PapersDep,
    announce: FollowAnnouncerDep,
    settings: SettingsDep,
) -> FollowOut:
    """Follow a keyword expression, an author or a topic; invalid expressions are a 400 naming the problem, a
    webhook URL webhooks may not reach a 422 naming the rule."""
    if body.webhook_url is not None:
        check_webhook_url(settings.webhook_policy, "webhook_url", body.webhook_url)
    try:
        return await accounts.create_follow(readers, papers, announce, user["_id"], body, settings.similar_threshold)
    except FollowRuleError as error:
        raise HTTPException(400, str(error)) from error
    except NoSuchPushChannel as error:
        raise HTTPException(422, str(error)) from error


@router.get("/follows", response_model=list[FollowOut])
async def list_follows(user: CurrentUser, readers: ReadersDep, papers: PapersDep) -> list[FollowOut]:
    """Your follows, newest first."""
    return await accounts.list_follows(readers, papers, user["_id"])


@router.get("/follows/{follow_id}", response_model=FollowOut, responses=NO_SUCH_FOLLOW)
async def read_follow(follow_id: FollowId, user: CurrentUser, readers: ReadersDep, papers: PapersDep) -> FollowOut:
    """One of your follows."""
    try:
        return await accounts.read_follow(readers, papers, user["_id"], follow_id)
    except NoSuchFollow as error:
        raise HTTPException(404, str(error)) from error


@router.delete(
    "/follows/{follow_id}", status_code=204, dependencies=WRITE_LIMIT, responses=NO_SUCH_FOLLOW | RATE_LIMITED
)
async def delete_follow(
    follow_id: FollowId, user: CurrentUser, readers: ReadersDep, announce: FollowAnnouncerDep
) -> None:
    """Unfollow: no new matches after this."""
    try:
        await accounts.delete_follow(readers, announce, user["_id"], follow_id)
    except NoSuchFollow as error:
        raise HTTPException(404, str(error)) from error


class FeedMatch(BaseModel):
    follow_id: str
    follow_name: str | None = None
    follow_kind: str | None = None
    matched_at: datetime | None = None
    backfill: bool = Field(False, description="found by the backfill of the follow when it was new (回溯)")
    reasons: list[dict[str, Any]] = Field(default_factory=list)


class FeedItem(BaseModel):
    paper_id: str
    follow_id: str | None = Field(None, description="the follow whose match is newest")
    follow_kind: str | None = None
    matched_at: datetime | None = Field(None, description="its newest match")
    reasons: list[dict[str, Any]] = Field(default_factory=list, description="why it matched: every follow's reasons")
    matches: list[FeedMatch] = Field(default_factory=list, description="each follow it matched, newest first")
    backfill: bool = Field(False, description="every match of it came from a backfill of a new follow (回溯)")
    new: bool = Field(False, description="matched (not by a backfill) after your previous visit")
    score: float | None = Field(None, description="how much it is for you, 0..1 (relevance)")
    reason: str | None = Field(None, description="why it ranks so: the saved paper it is closest to (relevance)")
    closest_saved: dict[str, Any] | None = Field(None, description="that saved paper: paper_id, title (relevance)")
    paper: dict[str, Any] | None = Field(None, description="the paper")


class FeedPage(BaseModel):
    sort: str = Field(description="the feed that answered: relevance needs a model, trained from your feedback")
    total: int = Field(description="papers in the feed, on every page (each once, however many follows it matched)")
    new: int | None = Field(None, description="of them, matched after your previous visit (newest)")
    backfilled: int | None = Field(None, description="of them, found only by backfills of new follows (newest)")
    last_visit: datetime | None = Field(None, description="your previous visit, that `new` counts from (newest)")
    items: list[FeedItem]
    next_cursor: str | None = Field(None, description="pass as `cursor` for the next page; absent on the last")


@router.get("/feed", response_model=FeedPage, responses=problem_responses(422))
async def read_feed(
    user: CurrentUser,
    readers: ReadersDep,
    papers: PapersDep,
    models: ReaderModelsDep,
    settings: SettingsDep,
    sort: Annotated[FeedSort, Query(description="newest matches of your follows, or 为你推荐 ranked")] = "newest",
    since: Annotated[Moment | None, Query(description="relevance: papers changed since (default: a week)")] = None,
    follow_id: Annotated[str | None, Query(pattern=FOLLOW_ID_PATTERN, description="only this follow's")] = None,
    cursor: Annotated[
        str | None,
        Query(
            pattern=FEED_CURSOR_PATTERN,
            description="the page before's `next_cursor`: `<ms since 1970>.<match id>` (after that match, in the "
            "newest matches' feed, whatever `sort`) or `<n>` (n papers in)",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """Your feed, a page at a time with the total: the papers your follows (or `follow_id`'s) matched, each once with
    every follow's reasons, new ones first (newest match first; those matched after your previous visit marked
    `new`, and the visit recorded: views 30 minutes apart are separate visits), then those found by the backfills of
    new follows (回溯, `backfill`); or (`sort=relevance`) recent papers ranked by a model of what you saved and
    dismissed, each with its score and the saved paper it is closest to. Until you have saved a paper (and the
    model is trained, in the background), relevance answers with the follows-based feed (`sort` says which answered)."""
    try:
        visited = await readers.users.feed_visited(user["_id"], datetime.now(UTC))
        return await feed_page(
            readers, papers, models, user["_id"], sort=sort, since=since, window_days=settings.feed_window_days,
            follow_id=follow_id, cursor=cursor, limit=limit, visited=visited,
        )  # fmt: skip
    except BadFeedCursor as error:
        raise HTTPException(422, str(error)) from error


class WebhookSet(PushTarget):
    """The reader's webhook: where the matches of follows without a push channel of their own go, when no push
    channel is the default."""


class WebhookState(BaseModel):
    url: str | None = Field(
        None, description="the webhook, if one is set (a group bot's with its token masked: `***ab12`)"
    )
    channel: str = Field(
        GENERIC, description="the message format: `generic`, `feishu`, `dingtalk`, `wecom`, `slack` or `telegram`"
    )
    language: Language = Field("zh", description="the language of a group bot's messages")
    signed: bool = Field(False, description="deliveries are signed (a generic webhook's always are)")
    secret: str | None = Field(
        None, description="a generic webhook's HMAC-SHA256 signing secret; shown once, when the webhook is set"
    )
    disabled: bool = Field(
        False, description="the matcher stopped delivering after repeated failures or slow answers on the URL's host"
    )
    disabled_reason: str | None = Field(None, description="why, with the last failure or slow answer")
    consecutive_failures: int = Field(
        0,
        description="failed or slow deliveries in a row to the URL's host (a delivery answered later than "
        "WEBHOOK_SLOW_FRACTION of the timeout counts, though it was delivered); a prompt delivery starts it again",
    )
    last_error: str | None = Field(
        None,
        description="the latest failure or slow answer counted (`slow answer: HTTP 200 after 8.0 s (slow after "
        "5 s)`), kept after a prompt delivery",
        examples=["slow answer: HTTP 200 after 8.0 s (slow after 5 s)"],
    )
    deliveries: list[dict[str, Any]] = Field(default_factory=list, description="latest delivery attempts")


@router.put(
    "/me/webhook",
    response_model=WebhookState,
    dependencies=WRITE_LIMIT,
    responses=problem_responses(400, WEBHOOK_REFUSED, 429),
)
async def set_webhook(body: WebhookSet, user: CurrentUser, readers: ReadersDep, settings: SettingsDep) -> WebhookState:
    """Set your webhook; generic deliveries carry `X-PaperTrail-Signature: sha256=<hex HMAC of the body>`, a bot's
    (`channel`) are in its own format, signed as it asks when you give its `secret` (Telegram: its bot token and
    `chat_id`). Internal addresses (loopback, private, link-local, ...) and URLs with credentials are refused (422),
    unless an operator allowed the host (`WEBHOOK_ALLOWED_HOSTS`); a bot's URL must be on its platform's host (422)."""
    try:
        url, bot_secret = push.checked_target(settings.webhook_policy, body)
    except push.BadPushTarget as error:
        raise HTTPException(422, str(error)) from error
    secret = await readers.users.set_webhook(user["_id"], url, body.channel, bot_secret, body.language)
    shown = shown_webhook(url, body.channel, body.language, signed=secret is not None or bot_secret is not None)
    return shown.model_copy(update={"secret": secret})


def shown_webhook(url: str | None, channel: str, language: Language, signed: bool) -> WebhookState:
    """The webhook as its owner sees it: a bot's URL masked (whoever holds it can post to the group)."""
    if url is None:
        return WebhookState()
    return WebhookState(url=push.shown_url(url, channel), channel=channel, language=language, signed=signed)


@router.delete("/me/webhook", status_code=204, dependencies=WRITE_LIMIT, responses=RATE_LIMITED)
async def delete_webhook(user: CurrentUser, readers: ReadersDep) -> None:
    """Remove your webhook."""
    await readers.users.set_webhook(user["_id"], None)


@router.get("/me/webhook", response_model=WebhookState)
async def read_webhook(user: CurrentUser, readers: ReadersDep) -> WebhookState:
    """Your webhook's state and its delivery log (attempts, status codes, errors)."""
    url = user.get("webhook_url")
    endpoint = (await readers.deliveries.webhook_endpoint(user["_id"], url) if url else None) or {}
    language: Language = "en" if user.get("webhook_language") == "en" else "zh"
    channel = str(user.get("webhook_channel") or GENERIC)
    # a webhook set before channels were is a generic one, signed
    shown = shown_webhook(url, channel, language, bool(user.get("webhook_signed", True)))
    deliveries = [
        delivery | {"url": masked_url(delivery["url"])} if delivery.get("channel") in CHANNELS else delivery
        for delivery in await readers.deliveries.deliveries(user["_id"])
    ]
    return shown.model_copy(
        update={
            "disabled": bool(endpoint.get("disabled")),
            "disabled_reason": endpoint.get("disabled_reason"),
            "consecutive_failures": endpoint.get("consecutive_failures", 0),
            "last_error": endpoint.get("last_error"),
            "deliveries": deliveries,
        }
    )


PUSH_REFUSED = (
    422,
    "a field is not what the API takes, or the target is not its channel's or one webhooks may "
    "not reach: `detail` names the field and the rule",
)
NO_SUCH_CHANNEL = (404, "you have no push channel of this id")
ChannelId = Annotated[str, Path(pattern=push.CHANNEL_ID_PATTERN, description="push channel id")]


@router.get("/me/push-channels", response_model=list[push.PushChannelOut])
async def list_push_channels(user: CurrentUser, readers: ReadersDep) -> list[push.PushChannelOut]:
    """Your push channels (group bots, Telegram chats, webhooks), each a follow's matches may go to; `default`: where
    the matches of follows without a channel of their own go (none: to your webhook, if you set one)."""
    return await push.list_push_channels(readers, user["_id"])


@router.post(
    "/me/push-channels",
    response_model=push.PushChannelOut,
    status_code=201,
    dependencies=WRITE_LIMIT,
    responses=problem_responses(400, PUSH_REFUSED, (409, "you have the most push channels one may have"), 429),
)
async def add_push_channel(
    body: push.PushChannelCreate, user: CurrentUser, readers: ReadersDep, settings: SettingsDep
) -> push.PushChannelOut:
    """Add a push channel: checked as for your webhook (PUT /api/me/webhook); a generic one's signing secret is shown
    once, here; a bot's URL and token are shown masked from now on."""
    try:
        return await push.add_push_channel(readers, settings.webhook_policy, user["_id"], body)
    except push.BadPushTarget as error:
        raise HTTPException(422, str(error)) from error
    except push.TooManyPushChannels as error:
        raise HTTPException(409, str(error)) from error


@router.delete(
    "/me/push-channels/{channel_id}",
    status_code=204,
    dependencies=WRITE_LIMIT,
    responses=problem_responses(NO_SUCH_CHANNEL, 422, 429),
)
async def remove_push_channel(
    channel_id: ChannelId, user: CurrentUser, readers: ReadersDep, announce: FollowAnnouncerDep
) -> None:
    """Remove a push channel; the follows that pushed there push to the default from now on."""
    try:
        await push.remove_push_channel(readers, announce, user["_id"], channel_id)
    except NoSuchPushChannel as error:
        raise HTTPException(404, str(error)) from error


class PushChoice(BaseModel):
    push_channel_id: str | None = Field(
        None, pattern=push.CHANNEL_ID_PATTERN, description="one of your push channels; null: none"
    )


@router.put(
    "/me/push-default",
    status_code=204,
    dependencies=WRITE_LIMIT,
    responses=problem_responses(400, (404, "you have no push channel of this id"), 422, 429),
)
async def set_push_default(body: PushChoice, user: CurrentUser, readers: ReadersDep) -> None:
    """Where the matches of follows without a channel of their own go (null: to your webhook, if you set one)."""
    try:
        await push.set_push_default(readers, user["_id"], body.push_channel_id)
    except NoSuchPushChannel as error:
        raise HTTPException(404, str(error)) from error


@router.put(
    "/follows/{follow_id}/push",
    response_model=FollowOut,
    dependencies=WRITE_LIMIT,
    responses=problem_responses(400, (404, "you have no follow, or no push channel, of this id"), 422, 429),
)
async def push_follow_to(
    follow_id: FollowId,
    body: PushChoice,
    user: CurrentUser,
    readers: ReadersDep,
    papers: PapersDep,
    announce: FollowAnnouncerDep,
) -> FollowOut:
    """Push this follow's matches to one of your push channels (null: to your default one), from its next match."""
    try:
        await push.push_follow_to(readers, announce, user["_id"], follow_id, body.push_channel_id)
        return await accounts.read_follow(readers, papers, user["_id"], follow_id)
    except (NoSuchFollow, NoSuchPushChannel) as error:
        raise HTTPException(404, str(error)) from error


class EmailSet(BaseModel):
    email: str | None = Field(None, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="where digests are mailed")


@router.put("/me/email", status_code=204, responses=problem_responses(400, 422))
async def set_email(body: EmailSet, user: CurrentUser, readers: ReadersDep) -> None:
    """Set (or clear) the address your daily digest is mailed to."""
    await readers.users.set_email(user["_id"], body.email)


@router.get("/digests", responses=problem_responses(422))
async def list_digests(
    user: CurrentUser, readers: ReadersDep, limit: Annotated[int, Query(ge=1, le=60)] = 14
) -> list[dict[str, Any]]:
    """Your daily digests, newest first, grouped by topic."""
    return await readers.deliveries.digests(user["_id"], limit=limit)
