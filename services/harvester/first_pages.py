"""The queue of arXiv papers whose first page (arXiv's HTML rendering) is still to be read: every arXiv paper the
harvester publishes that can have one is queued once, and the `arxiv_html` source takes them newest first, each
settled with its outcome (`papertrail_harvester_first_pages_total`)."""

import datetime as dt
from collections.abc import Callable

from prometheus_client import Counter
from pymongo import UpdateOne
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.paper_ids import ARXIV_NEW_ID
from papertrail.runtime.collections import HARVEST_FIRST_PAGES, PAPERS
from schemas.events import HarvestStatus, RawRecord
from services.harvester.runner import Publishing

OUTCOMES = Counter(
    "papertrail_harvester_first_pages_total",
    "arXiv papers whose first page was looked for, by outcome: read (its HTML author block published), read_pdf "
    "(no HTML rendering: its PDF's first-page head published), no_pdf (neither), too_large, not_html, "
    "not_arxiv_html, no_author_block, not_pdf, no_text.",
    ["outcome"],
)
# arXiv renders HTML for papers submitted from December 2023 on; an older id would only cost a request per 3 s
HTML_SINCE = "2312"
ARXIV_PAPER_SOURCES = frozenset({"arxiv", "daily_arxiv"})  # whose record ids are arXiv ids


def has_html_rendering(arxiv_id: str) -> bool:
    return bool(ARXIV_NEW_ID.match(arxiv_id)) and arxiv_id[:4] >= HTML_SINCE


class FirstPageQueue:
    """One document per arXiv id: `queued_at`, then `outcome` and `done_at` once its page was looked for."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.pages = db[HARVEST_FIRST_PAGES.name]
        self.held = db[PAPERS.name]  # the normalizer's, read only: the back catalogue to queue

    async def ensure_indexes(self) -> None:
        await self.pages.create_index([("outcome", 1), ("_id", -1)])

    async def enqueue(self, arxiv_ids: list[str], at: dt.datetime) -> None:
        """Queue each id once; one queued before keeps its place and its outcome."""
        wanted = sorted({i for i in arxiv_ids if has_html_rendering(i)})
        if wanted:
            await self.pages.bulk_write(
                [
                    UpdateOne({"_id": i}, {"$setOnInsert": {"queued_at": at, "outcome": None}}, upsert=True)
                    for i in wanted
                ],
                ordered=False,
            )

    async def enqueue_held(self, at: dt.datetime, chunk: int = 1000) -> int:
        """Queue the first page of every arXiv paper the store holds (the back catalogue: papers stored before this
        stage ran); the queue takes them newest first like the rest. Returns how many were looked at."""
        cursor = self.held.find({"ids.arxiv": {"$gte": HTML_SINCE}}, {"ids.arxiv": 1})
        batch: list[str] = []
        seen = 0
        async for doc in cursor:
            batch.append(doc["ids"]["arxiv"])
            if len(batch) >= chunk:
                await self.enqueue(batch, at)
                seen, batch = seen + len(batch), []
        await self.enqueue(batch, at)
        return seen + len(batch)

    async def pending(self, limit: int) -> list[str]:
        """The ids still to look for, newest first (the papers readers see first)."""
        cursor = self.pages.find({"outcome": None}, {"_id": 1}, sort=[("_id", -1)], limit=limit)
        return [doc["_id"] async for doc in cursor]

    async def settle(self, arxiv_id: str, outcome: str, at: dt.datetime) -> None:
        await self.pages.update_one({"_id": arxiv_id}, {"$set": {"outcome": outcome, "done_at": at}})
        OUTCOMES.labels(outcome).inc()


class QueueingPublishing:
    """The harvester's publishing, queueing the first page of every arXiv paper it published (after the broker
    acknowledged the batch, so a paper is searchable before its page is even looked for)."""

    def __init__(
        self,
        out: Publishing,
        queue: FirstPageQueue,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    ) -> None:
        self.out, self.queue, self.clock = out, queue, clock

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None:
        await self.out.publish_raw(records)
        arxiv_ids = [r.record_id for r, _ in records if r.source in ARXIV_PAPER_SOURCES]
        await self.queue.enqueue(arxiv_ids, self.clock())

    async def publish_status(self, status: HarvestStatus) -> None:
        await self.out.publish_status(status)
