"""The ledger of announced papers: each id the announcement watcher published, until OAI-PMH brings its record.
An id announced long ago and still not harvested is a gap (`papertrail_announce_gap_papers`, alert
AnnouncedNotHarvested): the feed said it exists, the complete record never came."""

import datetime as dt
from collections.abc import Callable

from prometheus_client import Gauge
from pymongo import UpdateOne
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.collections import HARVEST_ANNOUNCED
from schemas.events import HarvestStatus, RawRecord
from services.harvester.runner import Publishing

GAP = Gauge(
    "papertrail_announce_gap_papers",
    "Papers the announcement feed listed longer than ARXIV_FEED_GAP_S ago whose OAI-PMH record has not come.",
)
ANNOUNCED_FORMATS = frozenset({"arxiv_atom"})
HARVESTED_FORMATS = frozenset({"arXivRaw", "arXiv", "oai_dc"})


def split_by_origin(records: list[RawRecord]) -> tuple[list[RawRecord], list[str]]:
    """The records an announcement listed, and the arXiv ids whose OAI-PMH record this batch carries."""
    announced = [r for r in records if r.format in ANNOUNCED_FORMATS]
    harvested = [r.record_id for r in records if r.source == "arxiv" and r.format in HARVESTED_FORMATS]
    return announced, harvested


class AnnouncedPapers:
    """One document per announced arXiv id: `announced_at` (first seen in a feed), `day`, `harvested_at`."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.papers = db[HARVEST_ANNOUNCED.name]

    async def ensure_indexes(self) -> None:
        await self.papers.create_index([("harvested_at", 1), ("announced_at", 1)])

    async def record(self, records: list[RawRecord]) -> None:
        """Remember each announced id once: a second announcement (a replace) keeps the first sighting."""
        if records:
            await self.papers.bulk_write(
                [
                    UpdateOne(
                        {"_id": r.record_id},
                        {"$setOnInsert": {"announced_at": r.harvested_at, "day": r.datestamp, "harvested_at": None}},
                        upsert=True,
                    )
                    for r in records
                ],
                ordered=False,
            )

    async def mark_harvested(self, arxiv_ids: list[str], at: dt.datetime) -> None:
        if arxiv_ids:
            await self.papers.update_many(
                {"_id": {"$in": arxiv_ids}, "harvested_at": None}, {"$set": {"harvested_at": at}}
            )

    async def awaited(self, arxiv_ids: list[str]) -> list[str]:
        """Those of the ids announced whose OAI-PMH record has not come."""
        cursor = self.papers.find({"_id": {"$in": arxiv_ids}, "harvested_at": None}, {"_id": 1})
        return sorted([doc["_id"] async for doc in cursor])

    async def gap(self, announced_before: dt.datetime) -> list[str]:
        """The ids announced before the cutoff that OAI-PMH has not brought, oldest first."""
        cursor = self.papers.find(
            {"harvested_at": None, "announced_at": {"$lt": announced_before}}, {"_id": 1}, sort=[("announced_at", 1)]
        )
        return [doc["_id"] async for doc in cursor]


class LedgeredPublishing:
    """The harvester's publishing, keeping the ledger: after the broker acknowledged a batch, its announced ids
    are recorded and its OAI-PMH ids settle theirs; then the gap gauge is refreshed."""

    def __init__(
        self,
        out: Publishing,
        ledger: AnnouncedPapers,
        gap_after: dt.timedelta,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    ) -> None:
        self.out, self.ledger, self.gap_after, self.clock = out, ledger, gap_after, clock

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None:
        await self.out.publish_raw(records)
        announced, harvested = split_by_origin([record for record, _ in records])
        await self.ledger.record(announced)
        await self.ledger.mark_harvested(harvested, self.clock())
        await self.count_gap()

    async def count_gap(self) -> int:
        gap = len(await self.ledger.gap(self.clock() - self.gap_after))
        GAP.set(gap)
        return gap

    async def publish_status(self, status: HarvestStatus) -> None:
        """A watch's closing status says how many announced papers are still missing."""
        if status.announcement is not None:
            status.announcement.gap_papers = await self.count_gap()
        await self.out.publish_status(status)
