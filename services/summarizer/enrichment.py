"""The summarizer's one flow, for a batch of normalized papers and for the papers its sweeps settle later:
load (the cached summary, the stored vector) → decide (a summary and a vector state per paper) → store (papers left
pending wait for a sweep) → emit (papers.enriched.v1, and papers.new.v1 for new papers, each paper once)."""

import asyncio
import contextlib

from papertrail.runtime.kafka import Publisher, publish_confirmed
from schemas.events import PaperEnriched, PaperNew, PaperNormalized
from schemas.summary import Summary
from services.summarizer.policy import enriched_event, new_paper_event
from services.summarizer.store import AnnouncedPapers
from services.summarizer.summarizing import Summarizer
from services.summarizer.titling import TitleSweep
from services.summarizer.vectors import PaperVectors

Summarized = list[tuple[PaperNormalized, Summary]]


class Enrichment:
    """Every normalized paper's summary and vector state, stored and passed on; never holds a paper up for either."""

    def __init__(
        self,
        summarizer: Summarizer,
        vectors: PaperVectors,
        enriched: Publisher,
        new_papers: Publisher,
        announced: AnnouncedPapers,
    ) -> None:
        self.summarizer = summarizer
        self.vectors = vectors
        self.enriched = enriched
        self.new_papers = new_papers
        self.announced = announced

    async def enrich(self, events: list[PaperNormalized]) -> None:
        """A batch's papers, summarized side by side (the model's own concurrency limit still applies; one paper's
        events stay in order). Both topics get the batch with one confirmation wait each, before offsets commit."""
        summarized = await self.summaries(events)
        await self.summarizer.hold_pending(summarized)
        enriched = await self.with_vectors(summarized)
        await publish_confirmed(self.enriched, [(event, event.paper.id) for event in enriched])
        first_seen: dict[str, PaperNew] = {}  # a paper's first event, once, however often it was delivered
        for event, summary in summarized:
            if event.paper.id not in first_seen and (paper := new_paper_event(event, summary)):
                first_seen[event.paper.id] = paper
        unannounced = await self.announced.not_announced(list(first_seen))
        public = [(paper, paper_id) for paper_id, paper in first_seen.items() if paper_id in unannounced]
        await publish_confirmed(self.new_papers, public)
        await self.announced.record([paper_id for _, paper_id in public])
        await self.summarizer.settle(summarized)

    async def summaries(self, events: list[PaperNormalized]) -> Summarized:
        """Load and decide: each paper's summary (cached, written now, or pending), in the events' order."""
        by_paper: dict[str, list[PaperNormalized]] = {}
        for event in events:
            by_paper.setdefault(event.paper.id, []).append(event)

        async def in_order(of_paper: list[PaperNormalized]) -> Summarized:
            return [(event, await self.summarizer.summary_for(event)) for event in of_paper]

        per_paper = await asyncio.gather(*map(in_order, by_paper.values()))
        return [pair for pairs in per_paper for pair in pairs]

    async def with_vectors(self, summarized: Summarized) -> list[PaperEnriched]:
        """Load, decide and store: the events to emit, each with its vector's state; papers whose vector is pending
        start waiting for the vector sweep."""
        embeddings = await self.vectors.states([event.paper for event, _ in summarized])
        events = [enriched_event(e, s, v) for (e, s), v in zip(summarized, embeddings, strict=True)]
        await self.vectors.hold_pending(events)
        return events

    async def forget(self, paper_id: str) -> None:
        """A withdrawn paper no longer waits for a summary or a vector, and its vector goes."""
        await self.summarizer.forget(paper_id)
        await self.vectors.forget(paper_id)
        await self.announced.forget(paper_id)


class Sweeps:
    """The background sweeps, started once the broker can publish: papers pending a summary, papers pending a
    vector, and with no summary endpoint but a title model, waiting papers' Chinese titles. Each emits a paper again
    with what the others wrote (a summary or title, a vector) just before: one at a time, so the later event of a
    paper carries both, never an older summary after a newer one."""

    def __init__(
        self,
        enrichment: Enrichment,
        *,
        summary_interval_s: float,
        summary_batch: int,
        vector_interval_s: float,
        vector_batch: int,
        titles: TitleSweep | None = None,
        title_interval_s: float = 30.0,
        title_batch: int = 16,
    ) -> None:
        self.enrichment = enrichment
        self.titles, self.title_interval_s, self.title_batch = titles, title_interval_s, title_batch
        self.summary_interval_s, self.summary_batch = summary_interval_s, summary_batch
        self.vector_interval_s, self.vector_batch = vector_interval_s, vector_batch
        self.emitting = asyncio.Lock()
        self.tasks: list[asyncio.Task[None]] = []

    async def emit_summarized(self, event: PaperNormalized, summary: Summary) -> None:
        """The summary sweep's emit: with the vector's state as it is now."""
        async with self.emitting:
            (enriched,) = await self.enrichment.with_vectors([(event, summary)])
            await self.enrichment.enriched.publish(enriched, key=event.paper.id.encode())

    async def emit_embedded(self, event: PaperEnriched) -> None:
        """The vector sweep's emit: with the summary as it is now."""
        async with self.emitting:
            summary = await self.enrichment.summarizer.current_summary(event)
            updated = event.model_copy(update={"summary": summary})
            await self.enrichment.enriched.publish(updated, key=event.paper.id.encode())

    def start(self) -> None:
        summaries = self.enrichment.summarizer.run_sweeps(
            self.emit_summarized, interval_s=self.summary_interval_s, batch=self.summary_batch
        )
        vectors = self.enrichment.vectors.run_sweeps(
            self.emit_embedded, interval_s=self.vector_interval_s, batch=self.vector_batch
        )
        self.tasks = [
            asyncio.create_task(summaries, name="summary sweep"),
            asyncio.create_task(vectors, name="vector sweep"),
        ]
        if self.titles is not None:
            # the summary sweep's emit: the title's event carries the vector's state as it is now
            titles = self.titles.run(self.emit_summarized, interval_s=self.title_interval_s, batch=self.title_batch)
            self.tasks.append(asyncio.create_task(titles, name="title sweep"))

    async def stop(self) -> None:
        for sweep in self.tasks:  # none when the service stopped before it finished starting
            sweep.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweep
        self.tasks = []
