"""The papers whose citation counts are asked for, each with when to ask again (`harvest_citations`): taken in from
the papers the normalizer stores (new and changed ones since the last run), marked followed when a follow matched
them (the matcher's `matches`), and taken in order of the longest overdue by the `semantic_scholar` source."""

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pymongo import UpdateOne
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.collections import HARVEST_CITATIONS, MATCHES, PAPERS
from services.harvester.citation_schedule import asked_id, refresh_after


@dataclass(frozen=True, slots=True)
class DuePaper:
    paper_id: str
    asked: str  # the id the source is asked by ("ARXIV:2401.12345")


class CitationQueue:
    """One document per paper: `asked`, `published_at`, `followed`, `next_at`, and the last `outcome`."""

    def __init__(self, db: AsyncDatabase, chunk: int = 1000) -> None:
        self.queue = db[HARVEST_CITATIONS.name]
        self.papers = db[PAPERS.name]  # the normalizer's, read only
        self.matches = db[MATCHES.name]  # the matcher's, read only
        self.chunk = chunk

    async def ensure_indexes(self) -> None:
        await self.queue.create_index([("next_at", 1)])

    async def take_in(
        self, papers_since: dt.datetime | None, matches_since: dt.datetime | None, now: dt.datetime
    ) -> tuple[dt.datetime | None, dt.datetime | None]:
        """Queue the papers stored or changed since `papers_since` (a new one due at once; a held one keeps its
        turn) and mark those matched since `matches_since` followed, due at once; returns the new marks."""
        query: dict[str, Any] = {"updated_at": {"$gt": papers_since}} if papers_since else {}
        cursor = self.papers.find(query, {"ids": 1, "published_at": 1, "updated_at": 1})
        writes: list[UpdateOne] = []
        async for doc in cursor:
            ids = doc.get("ids") or {}
            papers_since = max(papers_since or doc["updated_at"], doc["updated_at"])
            asked = asked_id(ids.get("arxiv"), ids.get("dois") or [], ids.get("acl"))
            if asked is None:
                continue
            writes.append(
                UpdateOne(
                    {"_id": doc["_id"]},
                    {
                        "$set": {"asked": asked, "published_at": doc.get("published_at")},
                        "$setOnInsert": {"next_at": now, "followed": False, "outcome": None},
                    },
                    upsert=True,
                )
            )
            if len(writes) >= self.chunk:
                await self.queue.bulk_write(writes, ordered=False)
                writes = []
        if writes:
            await self.queue.bulk_write(writes, ordered=False)
        matched: dict[str, Any] = {"matched_at": {"$gt": matches_since}} if matches_since else {}
        followed: set[str] = set()
        async for match in self.matches.find(matched, {"paper_id": 1, "matched_at": 1}):
            followed.add(match["paper_id"])
            matches_since = max(matches_since or match["matched_at"], match["matched_at"])
        newly = sorted(followed)
        for start in range(0, len(newly), self.chunk):
            part = newly[start : start + self.chunk]
            await self.queue.update_many(
                {"_id": {"$in": part}, "followed": False}, {"$set": {"followed": True, "next_at": now}}
            )
        return papers_since, matches_since

    async def due(self, now: dt.datetime, limit: int) -> list[DuePaper]:
        """The papers whose count is due, the longest overdue first."""
        cursor = self.queue.find(
            {"next_at": {"$lte": now}}, {"asked": 1}, sort=[("next_at", 1), ("_id", 1)], limit=limit
        )
        return [DuePaper(doc["_id"], doc["asked"]) async for doc in cursor]

    async def settle(self, outcomes: dict[str, str], now: dt.datetime) -> None:
        """Each paper asked about with its outcome (`counted`, `not_found`, `no_count`), due again when its schedule
        says."""
        docs = self.queue.find({"_id": {"$in": list(outcomes)}}, {"published_at": 1, "followed": 1})
        writes = []
        async for doc in docs:
            outcome = outcomes[doc["_id"]]
            published = doc.get("published_at")
            if published is not None and published.tzinfo is None:
                published = published.replace(tzinfo=dt.UTC)
            wait = refresh_after(published, bool(doc.get("followed")), now, found=outcome == "counted")
            writes.append(
                UpdateOne({"_id": doc["_id"]}, {"$set": {"outcome": outcome, "checked_at": now, "next_at": now + wait}})
            )
        if writes:
            await self.queue.bulk_write(writes, ordered=False)
