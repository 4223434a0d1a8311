"""The summarizer's collections: `summaries` (the cache), `summary_pending` (papers waiting), `summary_budget`.

No other file touches MongoDB for the summarizer.
"""

from datetime import UTC, datetime
from typing import Any

from pymongo import ASCENDING, DESCENDING
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.collections import SUMMARIES, SUMMARY_BUDGET, SUMMARY_PENDING
from papertrail.mongo import insert_else_update
from schemas.events import PaperNormalized
from schemas.summary import Summary

_SUMMARY_FIELDS = tuple(Summary.model_fields)


def _summary(doc: dict[str, Any] | None) -> Summary | None:
    if doc is None:
        return None
    return Summary.model_validate({k: doc[k] for k in _SUMMARY_FIELDS if k in doc})


class SummaryStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.summaries = db[SUMMARIES.name]
        self.pending = db[SUMMARY_PENDING.name]
        self.budget = db[SUMMARY_BUDGET.name]

    async def ensure_indexes(self) -> None:
        await self.summaries.create_index([("paper_ids", ASCENDING), ("generated_at", DESCENDING)])
        await self.pending.create_index([("since", ASCENDING)])

    # the cache

    async def find(self, key: str) -> Summary | None:
        return _summary(await self.summaries.find_one({"_id": key}))

    async def latest_for_paper(self, paper_id: str) -> Summary | None:
        """The paper's newest summary of any content, model or prompt: what a metadata update keeps."""
        doc = await self.summaries.find_one({"paper_ids": paper_id}, sort=[("generated_at", DESCENDING)])
        return _summary(doc)

    async def save(self, key: str, digest: str, paper_id: str, summary: Summary) -> None:
        """Upsert by cache key: the same content summarized twice (a replay, a redelivery) is one entry."""
        await self.summaries.update_one(
            {"_id": key},
            {
                "$set": {"content_hash": digest, **summary.model_dump(mode="python")},
                "$addToSet": {"paper_ids": paper_id},
            },
            upsert=True,
        )

    async def remember_paper(self, key: str, paper_id: str) -> None:
        """A cache hit for another paper with the same text: it may keep the summary on later updates too."""
        await self.summaries.update_one({"_id": key}, {"$addToSet": {"paper_ids": paper_id}})

    # papers waiting for a summary: the whole event, so the sweep can emit it again without reading `papers`

    async def hold_many(self, held: list[tuple[PaperNormalized, str, str]]) -> None:
        """(event, content hash, reason) per paper, keyed by paper: a newer event of the same paper replaces the
        older one (its summary would be stale). Most are new papers, so they are inserted in one round trip."""
        if not held:
            return
        now = datetime.now(UTC)
        await insert_else_update(
            self.pending,
            [
                (
                    {"_id": event.paper.id, **fields, "since": now, "attempts": 0},
                    {"$set": fields, "$setOnInsert": {"since": now, "attempts": 0}},
                )
                for event, digest, reason in held
                for fields in [{"event": event.model_dump(mode="json"), "content_hash": digest, "reason": reason}]
            ],
        )

    async def waiting(self, limit: int) -> list[tuple[PaperNormalized, str]]:
        """The oldest waiting papers first, with the content hash they wait with."""
        cursor = self.pending.find({}, sort=[("since", ASCENDING)], limit=limit)
        return [(PaperNormalized.model_validate(d["event"]), d["content_hash"]) async for d in cursor]

    async def still_waiting(self, paper_id: str, digest: str) -> bool:
        return await self.pending.find_one({"_id": paper_id, "content_hash": digest}, projection=["_id"]) is not None

    async def release(self, paper_id: str, digest: str) -> None:
        """Done waiting with this content; a newer event's entry (another content hash) stays."""
        await self.pending.delete_one({"_id": paper_id, "content_hash": digest})

    async def release_many(self, paper_ids: list[str]) -> None:
        if paper_ids:
            await self.pending.delete_many({"_id": {"$in": paper_ids}})

    async def note_attempt(self, paper_id: str, reason: str) -> None:
        await self.pending.update_one({"_id": paper_id}, {"$inc": {"attempts": 1}, "$set": {"reason": reason}})

    async def backlog(self) -> int:
        # the collection's count, not a scan of it: the gauge is refreshed every sweep, however long the backlog
        return await self.pending.estimated_document_count()

    # the daily token budget, shared by every instance

    async def tokens_used(self, day: str) -> int:
        doc = await self.budget.find_one({"_id": day})
        return int(doc["tokens_in"] + doc["tokens_out"]) if doc else 0

    async def spend(self, day: str, tokens_in: int, tokens_out: int) -> None:
        await self.budget.update_one(
            {"_id": day}, {"$inc": {"tokens_in": tokens_in, "tokens_out": tokens_out, "calls": 1}}, upsert=True
        )
