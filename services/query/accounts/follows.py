"""A user's follows: what a new follow says (checked by the rules the matcher compiles it with; a `similar` follow's
seed papers looked up by any id they hold), storing and announcing it on follows.changed.v1, removing it, and the
papers the user's follows matched."""

import secrets
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field, HttpUrl, create_model

from papertrail.domain.follows.catalogue import topic_title
from papertrail.domain.follows.checks import FollowRuleError, chinese_terms, only_chinese
from papertrail.domain.follows.kinds import FOLLOW_KINDS
from papertrail.domain.follows.reasons import reason_text
from papertrail.embedding.similarity import DEFAULT_THRESHOLD
from schemas.events import Follow, FollowChanged, FollowKind, SeedPaper
from services.query.accounts.repositories import ReaderRecords
from services.query.catalogue.interface import FEED_SIZE, FEED_WORDING, Catalogue, render_atom
from services.query.catalogue.reads.paper_lookup import MAX_ID_LENGTH, PAPER_ID_PATTERN, NotAPaperId, paper_key

Announce = Callable[[FollowChanged], Awaitable[None]]


WAITING_FOR_VECTORS = "waiting for vectors"


# a seed: the forms of a paper id stated as paper_key reads them; it names a seed of none (400, as the follow rules)
SeedId = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH, json_schema_extra={"pattern": PAPER_ID_PATTERN})]
# the body's fields naming papers by any id they hold: the ids this service reads (resolve_seeds), as it states them
PAPER_ID_LISTS = {"seeds": list[SeedId]}


class FollowCommon(BaseModel):
    """What a new follow of any kind says; each kind's own fields come from its module (FOLLOW_KINDS)."""

    kind: FollowKind = Field(description="what to follow")
    name: str = Field(min_length=1, max_length=200, description="what you call it")
    fields: Literal["title", "abstract", "both"] = "both"
    categories: list[Annotated[str, Field(pattern=r"^[A-Za-z\-]+(\.[A-Za-z\-]+)?$")]] = Field(
        default_factory=list, max_length=20
    )
    webhook_url: HttpUrl | None = Field(None, description="POST each match of this follow here (signed)")
    push_channel_id: str | None = Field(
        None,
        pattern=r"^[0-9a-f]{32}$",
        description="push this follow's matches to this one of your push channels (GET /api/me/push-channels); "
        "absent: to your default one, else your webhook",
    )


def _kind_fields() -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for spec in FOLLOW_KINDS.values():
        for name, (annotation, info) in spec.body_fields.items():
            fields[name] = (PAPER_ID_LISTS.get(name, annotation), info)
    return fields


# The API's body of a new follow: the common fields and every kind's own, flat (a client sends the kind and its
# fields); a kind's module declares its fields, so a new kind needs no edit here. Read through model_dump: a
# type checker knows only the common fields.
if TYPE_CHECKING:
    FollowCreate = FollowCommon
else:
    FollowCreate = create_model("FollowCreate", __base__=FollowCommon, **_kind_fields())


class FollowOut(Follow):
    feed_url: str = Field(description="Atom feed of this follow's matches (keep it private: it carries a key)")
    state: Literal["active", "waiting for vectors"] = Field(
        "active",
        description="`waiting for vectors`: a similar follow's seed papers have no vector yet; it matches on them "
        "once they have (its description and the seeds that have one match already)",
    )
    seeds_without_vectors: list[str] = Field(
        default_factory=list, description="similar follow: the seed papers that have no vector yet"
    )
    chinese_terms: list[str] = Field(
        default_factory=list,
        description="keyword follow: its terms written in Chinese (Japanese, Korean), as written. Each is matched in "
        "a paper's Chinese title (`fields` title) and its AI summary's Chinese TL;DR and 导读 (`fields` abstract), "
        "unquoted by each of the words a keyword search cuts it into (扩散模型加速: 扩散, 模型, 加速), quoted as a "
        "phrase: it finds only papers with an AI summary; the English title and abstract are matched by the English "
        "terms",
        examples=[["大模型推理"]],
    )
    warning: str | None = Field(
        None,
        description="in the answer that created it: why the follow cannot match anything yet (a follow of Chinese "
        "terms only while no paper has an AI summary)",
    )


class NoSuchFollow(LookupError):
    """The user has no follow of this id (another user's follow id reads as missing too)."""


class NoSuchPushChannel(LookupError):
    """The user has no push channel of this id."""


async def check_push_channel(readers: ReaderRecords, user_id: str, channel_id: str | None) -> None:
    """NoSuchPushChannel unless the user has this push channel (None: the default, always there)."""
    if channel_id is not None and channel_id not in {c["id"] for c in (await readers.users.push_channels(user_id))[0]}:
        raise NoSuchPushChannel(f"push_channel_id: you have no push channel {channel_id}")


def _with_feed(follow: Follow, feed_key: str, embedded: set[str], *, show_secret: bool = False) -> FollowOut:
    """The follow as its owner sees it, with the seeds still waiting for their vector; the webhook secret only once,
    in the answer that created it."""
    shown = follow.model_dump() | ({} if show_secret else {"webhook_secret": None})
    waiting = [seed.paper_id for seed in follow.seeds if seed.paper_id not in embedded]
    return FollowOut(
        **shown,
        feed_url=f"/feeds/follows/{follow.id}.atom?key={feed_key}",
        state=WAITING_FOR_VECTORS if waiting else "active",
        seeds_without_vectors=waiting,
        chinese_terms=chinese_terms(follow.query) if follow.kind == "keyword" else [],
    )


NO_SUMMARIES = (
    "no paper has an AI summary yet (the summarizer has no model, or has not reached them): this follow's Chinese "
    "terms are matched only in papers' Chinese titles and summaries, so it matches nothing until summaries are "
    'written; add the English words (大模型推理 OR "LLM inference") to match English titles and abstracts'
)


async def _cannot_match(papers: Catalogue, follow: Follow) -> str | None:
    """Why a new follow cannot match anything yet, if it cannot: one of Chinese terms only, with no AI summary held."""
    if follow.kind == "keyword" and only_chinese(follow.query) and not await papers.summarized():
        return NO_SUMMARIES
    return None


async def _embedded_seeds(papers: Catalogue, follows: list[Follow]) -> set[str]:
    return await papers.embedded(sorted({seed.paper_id for f in follows for seed in f.seeds}))


class BadSeed(FollowRuleError):
    """A seed that is no paper id (`not_an_id`) or names no paper held here (`not_held`): where it stands and what
    it was, for the pages to say in the reader's language."""

    def __init__(self, message: str, position: int, seed: str, why: Literal["not_an_id", "not_held"]) -> None:
        super().__init__(message)
        self.position, self.seed, self.why = position, seed, why


async def resolve_seeds(papers: Catalogue, written: list[str]) -> list[SeedPaper]:
    """The held papers a reader's seed ids name, each once, in the order written; FollowRuleError names the first
    that is no paper id or names no paper held here."""
    seeds: dict[str, SeedPaper] = {}
    for position, raw in enumerate(written):
        try:
            key = paper_key(raw)
        except NotAPaperId as error:
            raise BadSeed(f"seeds[{position}]: {error}", position, raw.strip(), "not_an_id") from error
        paper = await papers.holding(key)
        if paper is None:
            raise BadSeed(
                f"seeds[{position}]: no paper {raw.strip()!r} is held here", position, raw.strip(), "not_held"
            )
        seeds.setdefault(paper["_id"], SeedPaper(paper_id=paper["_id"], title=paper.get("title") or paper["_id"]))
    return list(seeds.values())


async def create_follow(
    readers: ReaderRecords,
    papers: Catalogue,
    announce: Announce,
    user_id: str,
    body: FollowCreate,
    default_threshold: float = DEFAULT_THRESHOLD,
) -> FollowOut:
    """Check, store and announce a new follow of the user; FollowRuleError names what makes it invalid. A similar
    follow without a threshold gets `default_threshold` (the embedding model's)."""
    spec = FOLLOW_KINDS[body.kind]
    values = body.model_dump(include=set(spec.body_fields))
    spec.check(values)
    await check_push_channel(readers, user_id, body.push_channel_id)
    fields = body.model_dump(include={"kind", "name", "fields", "categories", "push_channel_id"})
    fields |= spec.follow_fields(values)
    if "seeds" in fields:  # the papers held that the reader's ids name
        fields["seeds"] = await resolve_seeds(papers, fields["seeds"])
    if "threshold" in fields and fields["threshold"] is None:
        fields["threshold"] = default_threshold
    webhook = (
        {"webhook_url": str(body.webhook_url), "webhook_secret": secrets.token_hex(32)} if body.webhook_url else {}
    )
    follow = Follow(id=uuid.uuid4().hex, user_id=user_id, created_at=datetime.now(UTC), **fields, **webhook)
    feed_key = secrets.token_urlsafe(16)
    await readers.follows.save_follow(follow, feed_key=feed_key)
    await announce(
        FollowChanged(
            action="created", follow_id=follow.id, user_id=follow.user_id, follow=follow, changed_at=follow.created_at
        )
    )
    created = _with_feed(follow, feed_key, await _embedded_seeds(papers, [follow]), show_secret=True)
    created.warning = await _cannot_match(papers, follow)
    return created


async def list_follows(readers: ReaderRecords, papers: Catalogue, user_id: str) -> list[FollowOut]:
    """The user's follows, newest first."""
    follows = await readers.follows.list_follows(user_id)
    embedded = await _embedded_seeds(papers, [f for f, _ in follows])
    return [_with_feed(f, key, embedded) for f, key in follows]


async def read_follow(readers: ReaderRecords, papers: Catalogue, user_id: str, follow_id: str) -> FollowOut:
    found = await readers.follows.get_follow(user_id, follow_id)
    if found is None:
        raise NoSuchFollow(f"no follow {follow_id}")
    follow, feed_key = found
    return _with_feed(follow, feed_key, await _embedded_seeds(papers, [follow]))


async def delete_follow(readers: ReaderRecords, announce: Announce, user_id: str, follow_id: str) -> None:
    """Unfollow and announce it: no new matches after this."""
    if not await readers.follows.delete_follow(user_id, follow_id):
        raise NoSuchFollow(f"no follow {follow_id}")
    await announce(
        FollowChanged(action="deleted", follow_id=follow_id, user_id=user_id, follow=None, changed_at=datetime.now(UTC))
    )


async def matched_page(
    readers: ReaderRecords,
    papers: Catalogue,
    user_id: str,
    follow_id: str | None,
    after: tuple[bool, datetime, str] | None,
    limit: int,
    since: datetime | None,
    skip: int = 0,
) -> tuple[list[dict[str, Any]], tuple[bool, datetime, str] | None]:
    """One page of the papers the user's follows (or one of them) matched, once each, new ones before backfilled
    ones and newest match first (after a paper, less the first `skip`), each with every match of it (every follow's
    reasons), its search document, and `new` (matched after `since`, not by a backfill); where the next page starts
    (None on the last)."""
    grouped = await readers.matches.papers_page(user_id, follow_id, after, limit + 1, skip)
    page = grouped[:limit]
    ids = [g["_id"] for g in page]
    found = await papers.by_ids(ids)
    every: dict[str, list[dict[str, Any]]] = {}
    for match in await readers.matches.of_papers(user_id, ids):
        every.setdefault(match["paper_id"], []).append(match)
    items = [feed_entry(g["_id"], every.get(g["_id"], []), found.get(g["_id"]), since) for g in page]
    last = page[-1] if len(grouped) > limit else None
    return items, (bool(last["backfill"]), last["at"], last["_id"]) if last else None


def feed_entry(
    paper_id: str, matches: list[dict[str, Any]], paper: dict[str, Any] | None, since: datetime | None
) -> dict[str, Any]:
    """A paper's feed entry from its matches (newest first): the newest match's follow and time as before, every
    follow's reasons once each, the matches themselves, `backfill` when each came from a backfill, `new` when one
    not from a backfill came after `since`."""
    newest = matches[0] if matches else {}
    reasons: list[dict[str, Any]] = []
    for match in matches:
        reasons += [r for r in match.get("reasons", []) if r not in reasons]
    live = [m for m in matches if not m.get("backfill")]
    return {
        "paper_id": paper_id,
        "follow_id": newest.get("follow_id"),
        "follow_kind": newest.get("follow_kind"),
        "follow_name": newest.get("follow_name"),
        "matched_at": newest.get("matched_at"),
        "reasons": reasons,
        "matches": [
            {k: m.get(k) for k in ("follow_id", "follow_name", "follow_kind", "matched_at", "backfill", "reasons")}
            for m in matches
        ],
        "backfill": bool(matches) and not live,
        "new": since is not None and any(m["matched_at"] > since for m in live),
        "paper": paper,
    }


async def matched_papers(
    readers: ReaderRecords, papers: Catalogue, user_id: str, follow_id: str | None, limit: int
) -> list[dict[str, Any]]:
    """The user's matches (of one follow, or of all), newest first, each with its paper's search document."""
    matches = await readers.matches.matches_for(user_id, follow_id=follow_id, limit=limit)
    found = await papers.by_ids(list(dict.fromkeys(m["paper_id"] for m in matches)))
    return [{**m, "paper": found.get(m["paper_id"])} for m in matches]


def follow_title(follow: Follow) -> str:
    """A follow as its feed is titled: its name, or for a topic follow named by its topic id (as the pages name one
    left unnamed), the topic's names."""
    if follow.kind == "topic" and follow.topic_id and follow.name.strip() in ("", follow.topic_id):
        return topic_title(follow.topic_id)
    return follow.name


async def follow_feed(
    readers: ReaderRecords, papers: Catalogue, site: str, follow_id: str, key: str, self_url: str
) -> bytes | None:
    """The latest papers matching one follow; None when the follow id and its feed key do not go together."""
    follow = await readers.follows.follow_by_feed_key(follow_id, key)
    if follow is None:
        return None
    matches = await readers.matches.matches_for(follow.user_id, follow_id=follow_id, limit=FEED_SIZE)
    found = await papers.by_ids([m["paper_id"] for m in matches])
    ordered = [found[m["paper_id"]] for m in matches if m["paper_id"] in found]
    updated = {m["paper_id"]: m["matched_at"] for m in matches}
    why = {m["paper_id"]: "; ".join(reason_text(r, FEED_WORDING) for r in m.get("reasons", [])) for m in matches}
    return render_atom(
        site_url=site,
        path=f"/feeds/follows/{follow_id}",
        title=follow_title(follow),
        self_url=self_url,
        papers=ordered,
        updated=updated,
        why=why,
    )
