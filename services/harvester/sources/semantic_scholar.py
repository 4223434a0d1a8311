"""Citation counts from Semantic Scholar: the papers due in the citation queue (citation_queue.py), asked for in
batches (`POST <S2_API_URL>/paper/batch`, up to 500 ids each) at the API's published pace, each paper answered with
a count published as its record (`s2_paper_json`: the answer's paper object as the source wrote it, keyed by the id
asked), for the normalizer to put on the paper.

A 429 (after the fetcher's retries, Retry-After honoured) slows the source down: the pause between its batches
doubles (up to S2_MAX_PAUSE_S), and eases back after each good batch. That run fails, so the source shows as failing
and then stale, the papers not asked stay due for the next run, and nothing else waits on it. An unreadable answer
fails the run the same way, naming what was wrong; the batches published before it are kept."""

import asyncio
import datetime as dt
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from services.harvester.citation_queue import CitationQueue, DuePaper
from services.harvester.http import PoliteFetcher, SourceUnavailable
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRecord, SourceRunFailed
from services.harvester.sources.s2_batch import FIELDS, MalformedBatch, batch_answers
from services.harvester.sources.spec import SourceParts, SourceSpec, needed

TOO_MANY_REQUESTS = 429


@dataclass(slots=True)
class Pace:
    """The pause before each batch beyond the fetcher's own interval: doubled by a 429, halved by a good batch."""

    max_s: float
    pause_s: float = 0.0

    def slow_down(self, base_s: float) -> None:
        self.pause_s = min(self.max_s, max(base_s, self.pause_s * 2))

    def ease(self) -> None:
        self.pause_s = self.pause_s / 2 if self.pause_s >= 1.0 else 0.0


def _moment(value: object) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if isinstance(value, str) else None


class SemanticScholarSource:
    name = "semantic_scholar"

    def __init__(
        self,
        settings: HarvesterSettings,
        fetcher: PoliteFetcher,
        queue: CitationQueue,
        *,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.url = settings.s2_api_url.rstrip("/") + "/paper/batch"
        self.batch = settings.s2_batch
        self.per_run = settings.s2_batches_per_run * settings.s2_batch
        self.base_pause_s = max(1.0, settings.s2_min_request_interval_s)
        key = settings.s2_api_key.get_secret_value() if settings.s2_api_key else ""
        self.headers = {"x-api-key": key} if key else {}
        self.fetcher, self.queue, self.clock, self.sleep = fetcher, queue, clock, sleep
        self.pace = Pace(settings.s2_max_pause_s)

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One page per batch of due papers, each settled once the runner published its records."""
        now = self.clock()
        papers_since, matches_since = await self.queue.take_in(
            _moment(checkpoint.get("papers_since")), _moment(checkpoint.get("matches_since")), now
        )
        marks = {
            "papers_since": papers_since.isoformat() if papers_since else None,
            "matches_since": matches_since.isoformat() if matches_since else None,
        }
        due = await self.queue.due(now, self.per_run)
        if not due:
            yield SourcePage([], marks)
            return
        for start in range(0, len(due), self.batch):
            chunk = due[start : start + self.batch]
            left = len(due) - start
            if self.pace.pause_s:
                await self.sleep(self.pace.pause_s)
            try:
                records, outcomes = await self.ask(chunk)
            except SourceUnavailable as failed:
                if failed.status == TOO_MANY_REQUESTS:
                    self.pace.slow_down(self.base_pause_s)
                raise SourceRunFailed(
                    f"Semantic Scholar did not answer a batch ({failed}); {left} papers stay due for the next run, "
                    f"{self.pace.pause_s:g} s between batches"
                ) from failed
            except MalformedBatch as bad:
                raise SourceRunFailed(
                    f"Semantic Scholar answered a batch of {len(chunk)} unreadably: {bad}; {left} papers stay due"
                ) from bad
            self.pace.ease()
            notes = [
                f"{paper.asked}: {outcomes[paper.paper_id]}" for paper in chunk if outcomes[paper.paper_id] != "counted"
            ]
            yield SourcePage(records, marks, notes=notes)
            await self.queue.settle(outcomes, self.clock())

    async def ask(self, chunk: list[DuePaper]) -> tuple[list[SourceRecord], dict[str, str]]:
        """The records of one batch's counted papers, and every paper's outcome."""
        asked = [paper.asked for paper in chunk]
        response = await self.fetcher.post_json(
            self.url, {"ids": asked}, params={"fields": FIELDS}, headers=self.headers
        )
        answers = batch_answers(response.content, asked)
        records = [
            SourceRecord.of(answer.asked, "s2_paper_json", json.dumps(answer.paper, ensure_ascii=False), None)
            for answer in answers
            if answer.outcome == "counted"
        ]
        return records, {paper.paper_id: answer.outcome for paper, answer in zip(chunk, answers, strict=True)}


def _build(parts: SourceParts) -> SemanticScholarSource:
    queue = needed(parts.citations, "semantic_scholar reads the citation queue: give it the database's")
    return SemanticScholarSource(parts.settings, parts.fetcher(parts.settings.s2_min_request_interval_s), queue)


SOURCE = SourceSpec(
    "semantic_scholar",
    _build,
    lambda settings: settings.s2_interval_s,
    formats=("s2_paper_json",),
    settings="S2_",
)
