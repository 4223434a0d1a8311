"""The matcher's MongoDB access: it owns `matches`, `follow_backfills`, `webhook_endpoints`,
`webhook_deliveries` and `digests`; it reads `follows`, `users` and `reader_picks` (query service), `papers`
(normalizer) and `paper_vectors` (summarizer)."""

import contextlib
import hashlib
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from pydantic import ValidationError
from pymongo import ASCENDING, DESCENDING, ReturnDocument, UpdateOne
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import BulkWriteError, DuplicateKeyError, OperationFailure

from papertrail.embedding.paper_vectors import PAPER_VECTORS_PROJECTION, vector_of
from papertrail.runtime.collections import (
    DIGESTS,
    FOLLOW_BACKFILLS,
    FOLLOWS,
    MATCHES,
    PAPER_VECTORS,
    PAPERS,
    READER_PICKS,
    USERS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_ENDPOINTS,
    WITHDRAWN_PAPERS,
)
from papertrail.runtime.mongo import DUPLICATE_KEY
from papertrail.runtime.venue_catalogue import VenueCatalogue
from schemas.events import Follow, FollowMatched
from schemas.paper import Author, Paper
from services.matcher.delivery.webhooks import disabled_reason

log = logging.getLogger("papertrail.matcher.store")
VECTORS_PER_READ = 1000  # 1,000 vectors of 384 floats: ~3 MB of BSON a round trip


def _match_key(match: FollowMatched) -> dict[str, str]:
    """The unique key of a match: one per user + follow + paper."""
    return {"user_id": match.user_id, "follow_id": match.follow_id, "paper_id": match.paper_id}


def endpoint_id(user_id: str, host: str) -> str:
    """A user's webhooks on one receiving host: failures are counted, and webhooks disabled, per host, so a new URL
    on the same host starts no new count."""
    return hashlib.sha256(f"{user_id}\n{host}".encode()).hexdigest()[:32]


PENDING_BY_DUE = "pending_due_at"  # the queue's index: pending deliveries by when they are due (claimed: lease end)


def claimable(now: datetime, busy_hosts: list[str], busy_users: list[str]) -> dict[str, Any]:
    """Pending deliveries due by `now` (a claimed one is due again when its claim runs out: the claim moves its
    `due_at`), to a host and of a user with room for a try: one range of the queue's index, read in `due_at` order
    until the first that is not busy."""
    return {
        "outcome": "pending",
        "due_at": {"$lte": now},
        "host": {"$nin": busy_hosts},
        "user_id": {"$nin": busy_users},
    }


class MatchStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.matches = db[MATCHES.name]
        self.backfills = db[FOLLOW_BACKFILLS.name]
        self.withdrawn = db[WITHDRAWN_PAPERS.name]
        self.endpoints = db[WEBHOOK_ENDPOINTS.name]
        self.deliveries = db[WEBHOOK_DELIVERIES.name]
        self.digests = db[DIGESTS.name]
        self.follows = db[FOLLOWS.name]  # written by the query service; read here
        self.papers = db[PAPERS.name]  # written by the normalizer; read for backfill authors
        self.vectors = db[PAPER_VECTORS.name]  # written by the summarizer; read for similar follows
        self.users = db[USERS.name]  # written by the query service; read for webhook and e-mail settings
        self.reader_picks = db[READER_PICKS.name]  # written by the query service; read for the digest's 为你推荐
        self.venue_catalogue = VenueCatalogue(db)  # the harvester's venue_catalogue over the shipped one: reminders

    async def ensure_indexes(self) -> None:
        await self.matches.create_index([("user_id", 1), ("follow_id", 1), ("paper_id", 1)], unique=True)
        await self.matches.create_index([("follow_id", 1), ("matched_at", -1)])
        await self.matches.create_index([("user_id", 1), ("matched_at", -1)])
        await self.matches.create_index([("matched_at", -1)])
        await self.deliveries.create_index([("user_id", 1), ("created_at", -1)])
        await self.deliveries.create_index("delivery_id")
        # the queue: pending deliveries by when they are due. On `due_at` alone, so the index gives the claim's order
        # (the local stand-in sorted every pending delivery for each claim over the one led by `outcome`).
        await self.deliveries.create_index(
            [("due_at", 1)], partialFilterExpression={"outcome": "pending"}, name=PENDING_BY_DUE
        )
        with contextlib.suppress(OperationFailure):  # the index the queue had before (issue 38)
            await self.deliveries.drop_index("pending_by_due")
        await self.digests.create_index([("user_id", 1), ("day", -1)])
        await self.digests.create_index([("sent_at", 1), ("day", -1)])  # each digest run: the days not mailed yet

    # follows and users (read only) ----------------------------------------------------------------------
    async def all_follows(self, kind: str | None = None) -> list[Follow]:
        """Every follow (of this kind, if given)."""
        follows = []
        async for doc in self.follows.find({"kind": kind} if kind else {}):
            if doc.get("deleted"):
                continue
            try:
                # the query service stores its own fields beside the follow's (e.g. the feed key)
                known = {k: v for k, v in doc.items() if k in Follow.model_fields}
                follows.append(Follow.model_validate({**known, "id": doc["_id"]}))
            except ValidationError as error:
                log.warning("unreadable follow skipped", extra={"follow_id": doc["_id"], "error": str(error)})
        return follows

    async def follow_exists(self, follow_id: str) -> bool:
        return await self.follows.find_one({"_id": follow_id}, {"_id": 1}) is not None

    async def paper_authors(self, paper_ids: list[str]) -> dict[str, list[Author]]:
        """Full author records (affiliations, ORCID, source ids) of held papers, from the normalizer's `papers`."""
        found: dict[str, list[Author]] = {}
        async for doc in self.papers.find({"_id": {"$in": paper_ids}}, {"authors": 1}):
            found[doc["_id"]] = [Author.model_validate(a) for a in doc.get("authors", [])]
        return found

    async def held_papers(self, paper_ids: list[str]) -> dict[str, Paper]:
        """Held papers as the normalizer stored them (their claims, published record and version), by id."""
        found: dict[str, Paper] = {}
        async for doc in self.papers.find({"_id": {"$in": paper_ids}}, {k: 1 for k in Paper.model_fields}):
            fields = {k: doc[k] for k in Paper.model_fields if k in doc and k != "id"}
            found[doc["_id"]] = Paper.model_validate({"id": doc["_id"], **fields})
        return found

    async def paper_vectors(self, paper_ids: list[str], model_key: str) -> dict[str, np.ndarray]:
        """The vectors these papers have from this model (the summarizer's `paper_vectors`); a paper without one is
        left out. Read in chunks, so a backfill's thousands of ids never make one huge query."""
        found: dict[str, np.ndarray] = {}
        for first in range(0, len(paper_ids), VECTORS_PER_READ):
            chunk = paper_ids[first : first + VECTORS_PER_READ]
            async for doc in self.vectors.find({"_id": {"$in": chunk}}, PAPER_VECTORS_PROJECTION):
                if (vector := vector_of(doc, model_key)) is not None:
                    found[doc["_id"]] = vector
        return found

    async def user(self, user_id: str) -> dict[str, Any] | None:
        return await self.users.find_one({"_id": user_id}, {"token_hash": 0, "password_hash": 0})

    async def users_by_id(self, user_ids: list[str]) -> dict[str, dict[str, Any]]:
        if not user_ids:
            return {}
        return {
            doc["_id"]: doc
            async for doc in self.users.find({"_id": {"$in": user_ids}}, {"token_hash": 0, "password_hash": 0})
        }

    # matches --------------------------------------------------------------------------------------------
    async def record(self, match: FollowMatched) -> FollowMatched | None:
        """Store the match once; return the stored match if it still has to be announced, else None.

        Newly stored, or stored before but never marked announced (a crash between store and emit),
        both mean announce it; the same paper twice for the same follow is one match.
        """
        doc = {**match.model_dump(mode="python"), "announced": False}
        before = await self.matches.find_one_and_update(
            _match_key(match),
            {"$setOnInsert": doc},
            upsert=True,
            return_document=ReturnDocument.BEFORE,
        )
        if before is None:
            return None if await self._drop_withdrawn([match]) else match
        if before.get("announced"):
            return None
        fields = set(FollowMatched.model_fields)
        return FollowMatched.model_validate({k: v for k, v in before.items() if k in fields})

    async def record_many(self, matches: list[FollowMatched]) -> list[FollowMatched]:
        """`record` for a batch in one round trip: new matches are inserted together; the few that exist already
        (a redelivered paper) are looked up one by one to tell announced from stored-but-unannounced. A match the
        batch holds twice (its paper came twice) counts once."""
        once: dict[tuple[str, ...], FollowMatched] = {}
        for match in matches:
            once.setdefault(tuple(_match_key(match).values()), match)
        matches = list(once.values())
        if not matches:
            return []
        docs = [{**match.model_dump(mode="python"), "announced": False} for match in matches]
        existing: set[int] = set()
        try:
            await self.matches.insert_many(docs, ordered=False)
        except BulkWriteError as error:
            for failure in error.details.get("writeErrors", []):
                if failure.get("code") != DUPLICATE_KEY:
                    raise
                existing.add(failure["index"])
        pending = [match for position, match in enumerate(matches) if position not in existing]
        withdrawn = await self._drop_withdrawn(pending)
        pending = [match for match in pending if match.paper_id not in withdrawn]
        for position in sorted(existing):
            again = await self.record(matches[position])
            if again is not None:
                pending.append(again)
        return pending

    async def forget_paper(self, paper_id: str) -> int:
        """Delete every match of a withdrawn paper (feeds and later digests no longer list it); how many went.

        The paper is remembered as withdrawn first: a match written meanwhile from an older view of it (a follow's
        backfill that read the index before the paper left it) is then dropped by its writer (`_drop_withdrawn`),
        whichever of the two writes comes last."""
        await self.withdrawn.update_one(
            {"_id": paper_id}, {"$setOnInsert": {"withdrawn_at": datetime.now(UTC)}}, upsert=True
        )
        return (await self.matches.delete_many({"paper_id": paper_id})).deleted_count

    async def forget_follow(self, follow_id: str) -> int:
        """Delete every match of an unfollowed follow: its reader's feed no longer lists them; how many went."""
        return (await self.matches.delete_many({"follow_id": follow_id})).deleted_count

    async def _drop_withdrawn(self, written: list[FollowMatched]) -> set[str]:
        """Of matches just written, delete those of withdrawn papers; the withdrawn papers' ids."""
        ids = list({match.paper_id for match in written})
        withdrawn = (
            {doc["_id"] async for doc in self.withdrawn.find({"_id": {"$in": ids}}, {"_id": 1})} if ids else set()
        )
        if withdrawn:
            await self.matches.delete_many({"paper_id": {"$in": sorted(withdrawn)}})
        return withdrawn

    async def mark_announced_many(self, matches: list[FollowMatched]) -> None:
        if matches:
            now = datetime.now(UTC)
            await self.matches.bulk_write(
                [UpdateOne(_match_key(m), {"$set": {"announced": True, "announced_at": now}}) for m in matches],
                ordered=False,
            )

    async def picks_of(self, user_id: str) -> list[dict[str, Any]]:
        """The reader's 为你推荐 picks of the last day, as the query service last ranked them (none without a model)."""
        doc = await self.reader_picks.find_one({"_id": user_id})
        return list((doc or {}).get("picks") or [])

    async def matches_between(self, start: datetime, end: datetime) -> list[dict[str, Any]]:
        cursor = self.matches.find({"matched_at": {"$gte": start, "$lt": end}}).sort("matched_at", ASCENDING)
        return [doc async for doc in cursor]

    # backfills ------------------------------------------------------------------------------------------
    async def claim_backfill(
        self, follow_id: str, now: datetime, stale_after: timedelta, vectors: int | None = None
    ) -> bool:
        """Claim the follow's backfill for this instance: False when it is done or another instance runs it. A similar
        follow's backfill (`vectors`: how many it is scored by now) done with fewer vectors is claimed again."""
        claim: dict[str, Any] = {"state": "running", "started_at": now}
        if vectors is not None:
            claim["vectors"] = vectors
        claimable: list[dict[str, Any]] = [
            {"state": "failed"},
            {"state": "running", "started_at": {"$lt": now - stale_after}},
        ]
        if vectors is not None:  # a backfill stored before counts were kept counts as one with fewer
            claimable.append({"state": "done", "$or": [{"vectors": {"$lt": vectors}}, {"vectors": {"$exists": False}}]})
        try:
            await self.backfills.insert_one({"_id": follow_id, **claim})
            return True
        except DuplicateKeyError:
            taken = await self.backfills.update_one({"_id": follow_id, "$or": claimable}, {"$set": claim})
            return taken.modified_count == 1

    async def fail_backfill(self, follow_id: str, now: datetime, error: str) -> None:
        await self.backfills.update_one(
            {"_id": follow_id}, {"$set": {"state": "failed", "failed_at": now, "error": error}, "$inc": {"failures": 1}}
        )

    async def finish_backfill(self, follow_id: str, now: datetime, papers: int, matches: int) -> None:
        await self.backfills.update_one(
            {"_id": follow_id},
            {"$set": {"state": "done", "finished_at": now, "papers_checked": papers, "matches": matches}},
        )

    # webhooks: endpoints (per user and receiving host) and deliveries (the log, and the queue of those pending) -
    async def endpoint(self, user_id: str, host: str) -> dict[str, Any]:
        doc = await self.endpoints.find_one({"_id": endpoint_id(user_id, host)})
        return doc or {"_id": endpoint_id(user_id, host), "consecutive_failures": 0, "disabled": False}

    async def endpoint_succeeded(self, user_id: str, host: str, now: datetime) -> None:
        await self.endpoints.update_one(
            {"_id": endpoint_id(user_id, host)},
            {"$set": {"user_id": user_id, "host": host, "consecutive_failures": 0, "last_success_at": now}},
            upsert=True,
        )

    async def endpoint_failed(self, user_id: str, host: str, now: datetime, error: str, disable_after: int) -> bool:
        """Count a failed (or slow) delivery to the host, `error` saying why; disable the user's webhooks there after
        `disable_after` in a row, whichever URLs they used. True when disabled now."""
        doc = await self.endpoints.find_one_and_update(
            {"_id": endpoint_id(user_id, host)},
            {
                "$inc": {"consecutive_failures": 1},
                "$set": {"user_id": user_id, "host": host, "last_failure_at": now, "last_error": error},
            },
            upsert=True,
            return_document=ReturnDocument.AFTER,
        )
        assert doc is not None  # upserted
        if doc["consecutive_failures"] >= disable_after and not doc.get("disabled"):
            reason = disabled_reason(doc["consecutive_failures"], error)
            await self.endpoints.update_one(
                {"_id": doc["_id"]}, {"$set": {"disabled": True, "disabled_at": now, "disabled_reason": reason}}
            )
            return True
        return False

    async def endpoint_enabled(self, user_id: str, host: str) -> None:
        await self.endpoints.update_one(
            {"_id": endpoint_id(user_id, host)},
            {"$set": {"disabled": False, "consecutive_failures": 0}, "$unset": {"disabled_reason": ""}},
        )

    async def queue_deliveries(self, deliveries: list[dict[str, Any]]) -> int:
        """Queue deliveries (each `_id` its delivery id): one already queued or done is left as it is, so a
        redelivered match is not sent twice. How many are new."""
        if not deliveries:
            return 0
        result = await self.deliveries.bulk_write(
            [UpdateOne({"_id": d["_id"]}, {"$setOnInsert": d}, upsert=True) for d in deliveries], ordered=False
        )
        return result.upserted_count

    async def claim_due_delivery(
        self, now: datetime, lease: timedelta, busy_hosts: list[str], busy_users: list[str]
    ) -> dict[str, Any] | None:
        """Take the pending delivery due first, to a host and of a user not at their bounds, for one try within
        `lease`: one atomic update, so two matcher replicas never try it together. The claim moves its `due_at` to the
        lease's end, so a crashed replica's claim runs out by itself and the claim's query is one range of the queue's
        index; the delivery is handed back as it was due (`due_at`), with `claimed_until`."""
        until = now + lease
        before = await self.deliveries.find_one_and_update(
            claimable(now, busy_hosts, busy_users),
            {"$set": {"claimed_until": until, "due_at": until}},
            sort=[("due_at", ASCENDING)],
            hint=PENDING_BY_DUE,
            return_document=ReturnDocument.BEFORE,
        )
        return None if before is None else {**before, "claimed_until": until}

    async def next_due(self, now: datetime, busy_hosts: list[str], busy_users: list[str]) -> datetime | None:
        """When the next pending delivery that `claim_due_delivery` could take falls due (a claimed one: when its
        claim runs out)."""
        wanted = {"outcome": "pending", "host": {"$nin": busy_hosts}, "user_id": {"$nin": busy_users}}
        doc = await self.deliveries.find_one(wanted, {"due_at": 1}, sort=[("due_at", ASCENDING)], hint=PENDING_BY_DUE)
        return None if doc is None else doc["due_at"]

    async def delivery_released(self, delivery_id: str, due_at: datetime) -> None:
        """Give a claimed delivery back untried (its receiver was full once its host resolved): due as it was."""
        await self.deliveries.update_one(
            {"_id": delivery_id}, {"$set": {"due_at": due_at}, "$unset": {"claimed_until": ""}}
        )

    async def delivery_tried(self, delivery_id: str, attempt: dict[str, Any], changes: dict[str, Any]) -> None:
        """Log a try of the delivery and set what it changed (its outcome, or when it is due again); unclaimed."""
        await self.deliveries.update_one(
            {"_id": delivery_id}, {"$push": {"attempts": attempt}, "$set": changes, "$unset": {"claimed_until": ""}}
        )

    async def delivery_closed(self, delivery_id: str, changes: dict[str, Any]) -> None:
        """End a delivery without a try (the host's webhooks are disabled)."""
        await self.deliveries.update_one({"_id": delivery_id}, {"$set": changes, "$unset": {"claimed_until": ""}})

    # digests --------------------------------------------------------------------------------------------
    async def digest(self, user_id: str, day: str) -> dict[str, Any] | None:
        return await self.digests.find_one({"_id": f"{user_id}:{day}"})

    async def save_digest(self, user_id: str, day: str, content: dict[str, Any], html: str, now: datetime) -> None:
        await self.digests.update_one(
            {"_id": f"{user_id}:{day}"},
            {"$setOnInsert": {"user_id": user_id, "day": day, "digest": content, "html": html, "created_at": now}},
            upsert=True,
        )

    async def claim_digest_mail(self, digest_id: str, now: datetime, lease: timedelta) -> bool:
        """Take the right to mail one digest for `lease`; False when it is sent or another replica holds it.
        One atomic update, so two matcher replicas never both mail it (a crashed holder's lease runs out)."""
        claimed = await self.digests.find_one_and_update(
            {
                "_id": digest_id,
                "sent_at": {"$exists": False},
                "$or": [{"mail_claimed_until": {"$exists": False}}, {"mail_claimed_until": {"$lt": now}}],
            },
            {"$set": {"mail_claimed_until": now + lease}},
        )
        return claimed is not None

    async def release_digest_mail(self, digest_id: str) -> None:
        await self.digests.update_one({"_id": digest_id}, {"$unset": {"mail_claimed_until": ""}})

    async def digest_sent(self, user_id: str, day: str, to: str, now: datetime) -> None:
        await self.digests.update_one(
            {"_id": f"{user_id}:{day}"}, {"$set": {"sent_to": to, "sent_at": now}, "$unset": {"mail_claimed_until": ""}}
        )

    async def unsent_digests(self, since_day: str) -> list[dict[str, Any]]:
        # `sent_at` null (a missing field is indexed as null), not `$exists: false`: an equality an index serves
        cursor = self.digests.find({"sent_at": None, "day": {"$gte": since_day}}).sort("day", DESCENDING)
        return [doc async for doc in cursor]
