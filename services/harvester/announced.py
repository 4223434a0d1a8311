"""The ledger of announced papers: each id the announcement watcher published, until OAI-PMH brings its record.
An id announced long ago and still not harvested is a gap (`papertrail_announce_gap_papers`, alert
AnnouncedNotHarvested): the feed said it exists, the complete record never came. The other way round, a new paper
OAI-PMH dates on a watched day that no feed listed is counted (`papertrail_announce_unannounced_papers_total`): the
feeds missed it, and only OAI-PMH brought it."""

import datetime as dt
from collections.abc import Callable

from prometheus_client import Counter, Gauge
from pymongo import UpdateOne
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.paper_ids import ARXIV_NEW_ID
from papertrail.runtime.collections import HARVEST_ANNOUNCED
from schemas.events import HarvestStatus, RawRecord
from services.harvester.runner import Publishing

GAP = Gauge(
    "papertrail_announce_gap_papers",
    "Papers the announcement feed listed longer than ARXIV_FEED_GAP_S ago whose OAI-PMH record has not come.",
)
UNANNOUNCED = Counter(
    "papertrail_announce_unannounced_papers_total",
    "New papers OAI-PMH dated on a watched announcement day (or the day after) that no announcement feed listed.",
)
ANNOUNCED_FORMATS = frozenset({"arxiv_atom"})
HARVESTED_FORMATS = frozenset({"arXivRaw", "arXiv", "oai_dc"})


def from_oai(record: RawRecord) -> bool:
    return record.source == "arxiv" and record.format in HARVESTED_FORMATS


def split_by_origin(records: list[RawRecord]) -> tuple[list[RawRecord], list[str]]:
    """The records an announcement listed, and the arXiv ids whose OAI-PMH record this batch carries."""
    announced = [r for r in records if r.format in ANNOUNCED_FORMATS]
    harvested = [r.record_id for r in records if from_oai(r)]
    return announced, harvested


def is_new_submission(arxiv_id: str, datestamp: str) -> bool:
    """Whether a record OAI-PMH dated `datestamp` can be a paper's first announcement: its id's month (2402.xxxxx:
    February 2024) is that of the date or the one before (a paper sent at a month's end is announced in the next).
    An older paper re-dated by a revision or a metadata change is not one the day's announcement lists as new."""
    if not ARXIV_NEW_ID.match(arxiv_id):
        return False
    try:
        day = dt.date.fromisoformat(datestamp)
    except ValueError:
        return False
    month_before = (day.replace(day=1) - dt.timedelta(days=1)).strftime("%y%m")
    return arxiv_id[:4] in {day.strftime("%y%m"), month_before}


def near_days(datestamp: str) -> list[str]:
    """The announcement days a record dated `datestamp` may belong to: OAI-PMH dates a new paper on the day of its
    announcement (US Eastern) or, by UTC, the day after."""
    day = dt.date.fromisoformat(datestamp)
    return [day.isoformat(), (day - dt.timedelta(days=1)).isoformat()]


class AnnouncedPapers:
    """One document per announced arXiv id: `announced_at` (first seen in a feed), `day`, `harvested_at`."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.papers = db[HARVEST_ANNOUNCED.name]

    async def ensure_indexes(self) -> None:
        await self.papers.create_index([("harvested_at", 1), ("announced_at", 1)])
        await self.papers.create_index([("day", 1)])

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

    async def record_unannounced(self, records: list[RawRecord], at: dt.datetime) -> int:
        """The new papers among OAI-PMH records dated on a day the watcher saw announced that no feed listed, kept
        (`announced_at` null, `unannounced` true) so each counts once; returns how many were not kept before."""
        dated = [(r.record_id, r.datestamp) for r in records if r.datestamp]
        watched: dict[str, bool] = {}
        unannounced = []
        for arxiv_id, day in dated:
            if not is_new_submission(arxiv_id, day):
                continue
            if day not in watched:
                found = await self.papers.find_one({"day": {"$in": near_days(day)}, "announced_at": {"$ne": None}})
                watched[day] = found is not None
            if watched[day]:
                unannounced.append((arxiv_id, day))
        if not unannounced:
            return 0
        fields = {"announced_at": None, "harvested_at": at, "unannounced": True}
        result = await self.papers.bulk_write(
            [
                UpdateOne({"_id": arxiv_id}, {"$setOnInsert": fields | {"day": day}}, upsert=True)
                for arxiv_id, day in unannounced
            ],
            ordered=False,
        )
        return result.upserted_count

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
        oai = [record for record, _ in records if from_oai(record)]
        UNANNOUNCED.inc(await self.ledger.record_unannounced(oai, self.clock()))
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
