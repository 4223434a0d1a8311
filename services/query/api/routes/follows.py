"""Per-user routes (bearer token): follows CRUD announced on follows.changed.v1, the feed, webhooks, digests."""

import secrets
import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path
from pydantic import BaseModel, Field, HttpUrl

from papertrail.follows.checks import FollowRuleError, check_follow
from schemas.events import Follow, FollowChanged
from services.query.deps import CurrentUser, FollowAnnouncerDep, PaperIndexDep, StoreDep

router = APIRouter(prefix="/api", tags=["follows"])
FollowId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="follow id")]


class FollowCreate(BaseModel):
    kind: Literal["keyword", "author", "topic"] = Field(description="what to follow")
    name: str = Field(min_length=1, max_length=200, description="what you call it")
    query: str | None = Field(
        None, max_length=2000, description='keyword expression, e.g. retrieval AND ("language model" OR LLM) NOT survey'
    )
    fields: Literal["title", "abstract", "both"] = "both"
    categories: list[Annotated[str, Field(pattern=r"^[A-Za-z\-]+(\.[A-Za-z\-]+)?$")]] = Field(
        default_factory=list, max_length=20
    )
    author: str | None = Field(None, max_length=200, description="author name for an author follow")
    topic_id: str | None = Field(None, max_length=64, description="catalogue topic id for a topic follow")
    affiliation: str | None = Field(None, max_length=200, description="author follow: only with this affiliation")
    orcid: str | None = Field(None, pattern=r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$", description="author follow: ORCID iD")
    source_author_id: str | None = Field(None, max_length=200, description="author follow: a source's author id")
    webhook_url: HttpUrl | None = Field(None, description="POST each match of this follow here (signed)")


class FollowOut(Follow):
    feed_url: str = Field(description="Atom feed of this follow's matches (keep it private: it carries a key)")


class Me(BaseModel):
    id: str
    name: str
    created_at: datetime


def _with_feed(follow: Follow, feed_key: str, *, show_secret: bool = False) -> FollowOut:
    """The follow as its owner sees it; the webhook secret only once, in the answer that created it."""
    shown = follow.model_dump() | ({} if show_secret else {"webhook_secret": None})
    return FollowOut(**shown, feed_url=f"/feeds/follows/{follow.id}.atom?key={feed_key}")


@router.get("/me", response_model=Me)
async def read_me(user: CurrentUser) -> dict[str, Any]:
    """The signed-in user."""
    return {"id": user["_id"], "name": user["name"], "created_at": user["created_at"]}


@router.post("/follows", response_model=FollowOut, status_code=201)
async def create_follow(
    body: FollowCreate, user: CurrentUser, store: StoreDep, announce: FollowAnnouncerDep
) -> FollowOut:
    """Follow a keyword expression, an author or a topic; invalid expressions are a 400 naming the problem."""
    try:
        check_follow(body.kind, query=body.query, author=body.author, topic_id=body.topic_id)
    except FollowRuleError as error:
        raise HTTPException(400, str(error)) from error
    fields = body.model_dump(exclude={"webhook_url"})
    webhook = (
        {"webhook_url": str(body.webhook_url), "webhook_secret": secrets.token_hex(32)} if body.webhook_url else {}
    )
    follow = Follow(id=uuid.uuid4().hex, user_id=user["_id"], created_at=datetime.now(UTC), **fields, **webhook)
    feed_key = secrets.token_urlsafe(16)
    await store.save_follow(follow, feed_key=feed_key)
    await announce(
        FollowChanged(
            action="created", follow_id=follow.id, user_id=follow.user_id, follow=follow, changed_at=follow.created_at
        )
    )
    return _with_feed(follow, feed_key, show_secret=True)


@router.get("/follows", response_model=list[FollowOut])
async def list_follows(user: CurrentUser, store: StoreDep) -> list[FollowOut]:
    """Your follows, newest first."""
    return [_with_feed(f, key) for f, key in await store.list_follows(user["_id"])]


@router.get("/follows/{follow_id}", response_model=FollowOut)
async def read_follow(follow_id: FollowId, user: CurrentUser, store: StoreDep) -> FollowOut:
    """One of your follows."""
    found = await store.get_follow(user["_id"], follow_id)
    if found is None:
        raise HTTPException(404, f"no follow {follow_id}")
    return _with_feed(*found)


@router.delete("/follows/{follow_id}", status_code=204)
async def delete_follow(follow_id: FollowId, user: CurrentUser, store: StoreDep, announce: FollowAnnouncerDep) -> None:
    """Unfollow: no new matches after this."""
    if not await store.delete_follow(user["_id"], follow_id):
        raise HTTPException(404, f"no follow {follow_id}")
    await announce(
        FollowChanged(
            action="deleted", follow_id=follow_id, user_id=user["_id"], follow=None, changed_at=datetime.now(UTC)
        )
    )


class FeedItem(BaseModel):
    paper_id: str
    follow_id: str
    follow_kind: str
    matched_at: datetime
    reasons: list[dict[str, Any]]
    paper: dict[str, Any] | None = Field(None, description="the paper's search document")


@router.get("/feed", response_model=list[FeedItem])
async def read_feed(
    user: CurrentUser, store: StoreDep, index: PaperIndexDep, follow_id: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """Papers matching your follows, newest match first, each with why it matched."""
    limit = max(1, min(limit, 200))
    matches = await store.matches_for(user["_id"], follow_id=follow_id, limit=limit)
    papers = await index.by_ids(list(dict.fromkeys(m["paper_id"] for m in matches)))
    return [{**m, "paper": papers.get(m["paper_id"])} for m in matches]


class WebhookSet(BaseModel):
    url: HttpUrl = Field(description="where each match is POSTed as JSON")


class WebhookState(BaseModel):
    url: str | None = Field(None, description="the webhook, if one is set")
    secret: str | None = Field(None, description="HMAC-SHA256 signing secret; shown once, when the webhook is set")
    disabled: bool = Field(False, description="the matcher stopped delivering after repeated failures")
    disabled_reason: str | None = None
    consecutive_failures: int = 0
    deliveries: list[dict[str, Any]] = Field(default_factory=list, description="latest delivery attempts")


@router.put("/me/webhook", response_model=WebhookState)
async def set_webhook(body: WebhookSet, user: CurrentUser, store: StoreDep) -> WebhookState:
    """Set your webhook; deliveries carry `X-PaperTrail-Signature: sha256=<hex HMAC of the body>`."""
    secret = await store.set_webhook(user["_id"], str(body.url))
    return WebhookState(url=str(body.url), secret=secret)


@router.delete("/me/webhook", status_code=204)
async def delete_webhook(user: CurrentUser, store: StoreDep) -> None:
    """Remove your webhook."""
    await store.set_webhook(user["_id"], None)


@router.get("/me/webhook", response_model=WebhookState)
async def read_webhook(user: CurrentUser, store: StoreDep) -> WebhookState:
    """Your webhook's state and its delivery log (attempts, status codes, errors)."""
    url = user.get("webhook_url")
    endpoint = await store.webhook_endpoint(user["_id"], url) if url else None
    return WebhookState(
        url=url,
        disabled=bool(endpoint and endpoint.get("disabled")),
        disabled_reason=(endpoint or {}).get("disabled_reason"),
        consecutive_failures=(endpoint or {}).get("consecutive_failures", 0),
        deliveries=await store.deliveries(user["_id"]),
    )


class EmailSet(BaseModel):
    email: str | None = Field(None, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="where digests are mailed")


@router.put("/me/email", status_code=204)
async def set_email(body: EmailSet, user: CurrentUser, store: StoreDep) -> None:
    """Set (or clear) the address your daily digest is mailed to."""
    await store.set_email(user["_id"], body.email)


@router.get("/digests")
async def list_digests(user: CurrentUser, store: StoreDep, limit: int = 14) -> list[dict[str, Any]]:
    """Your daily digests, newest first, grouped by topic."""
    return await store.digests(user["_id"], limit=max(1, min(limit, 60)))
