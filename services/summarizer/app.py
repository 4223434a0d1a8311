"""Summarizer service: papers.normalized.v1 → summary (or its status) and vector state → papers.enriched.v1 and
papers.new.v1; the vector sweep → papers.enriched.v1 again;
papers.withdrawn.v1 → the paper stops waiting for a summary."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from faststream import Context
from faststream.asgi import AsgiFastStream
from faststream.kafka.annotations import KafkaMessage

from papertrail.embedders import open_embedder
from papertrail.kafka import (
    DeadLetterPolicy,
    Publisher,
    batch_options,
    consumer_options,
    make_broker,
    publish_confirmed,
)
from papertrail.service import Clients, service_app
from schemas import topics
from schemas.events import PaperEnriched, PaperNew, PaperNormalized, PaperWithdrawn
from schemas.summary import Summary
from services.summarizer.model import SummaryModel, make_openai_client
from services.summarizer.policy import enriched_event, new_paper_event
from services.summarizer.settings import SummarizerSettings
from services.summarizer.store import MongoTokenBudget, SummaryStore, VectorStore
from services.summarizer.summarizing import Summarizer
from services.summarizer.vectors import PaperVectors

SERVICE = "summarizer"
NEEDS = ("kafka", "mongodb")  # checked before the service starts serving
TOPICS = [topics.PAPERS_NORMALIZED, topics.PAPERS_ENRICHED, topics.PAPERS_NEW, topics.PAPERS_WITHDRAWN]


@dataclass(slots=True)
class SummarizerResources:
    """What the handlers work with, opened by the lifespan; `sweeps` is the retry loop started after startup."""

    settings: SummarizerSettings
    summarizer: Summarizer
    enriched: Publisher
    new_papers: Publisher
    dead_letters: DeadLetterPolicy
    vectors: PaperVectors
    sweeps: list[asyncio.Task[None]] = field(default_factory=list)
    # Each sweep reads what the other writes (a summary, a vector) just before it emits: one at a time, so the later
    # event of a paper carries both, never an older summary after a newer one.
    sweeps_emitting: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def enriched_events(self, summarized: list[tuple[PaperNormalized, Summary]]) -> list[PaperEnriched]:
        """The events to emit, each with its vector's state; papers whose vector is pending start waiting for it."""
        embeddings = await self.vectors.states([event.paper for event, _ in summarized])
        events = [enriched_event(e, s, v) for (e, s), v in zip(summarized, embeddings, strict=True)]
        await self.vectors.hold_pending(events)
        return events

    async def emit_enriched(self, event: PaperNormalized, summary: Summary) -> None:
        """The summary sweep's emit: with the vector's state as it is now."""
        async with self.sweeps_emitting:
            (enriched,) = await self.enriched_events([(event, summary)])
            await self.enriched.publish(enriched, key=event.paper.id.encode())

    async def emit_embedded(self, event: PaperEnriched) -> None:
        """The vector sweep's emit: with the summary as it is now."""
        async with self.sweeps_emitting:
            summary = await self.summarizer.current_summary(event)
            await self.enriched.publish(event.model_copy(update={"summary": summary}), key=event.paper.id.encode())


Resources = Annotated[SummarizerResources, Context()]  # what every handler takes, from the lifespan


async def on_papers_normalized(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Attach each paper's summary (cached, written now, or pending for the sweep) and pass the papers on.

    Papers of a batch are summarized side by side (the model's own concurrency limit still applies); one paper's
    events stay in order. Both topics get the batch with one confirmation wait each, before offsets commit."""
    summarizer = resources.summarizer
    valid = await resources.dead_letters.keep_valid(message.raw_message, PaperNormalized)  # type: ignore[arg-type]
    by_paper: dict[str, list[PaperNormalized]] = {}
    for _, event in valid:
        by_paper.setdefault(event.paper.id, []).append(event)

    async def summarize_in_order(events: list[PaperNormalized]) -> list[tuple[PaperNormalized, Summary]]:
        return [(event, await summarizer.summary_for(event)) for event in events]

    per_paper = await asyncio.gather(*map(summarize_in_order, by_paper.values()))
    summarized = [pair for pairs in per_paper for pair in pairs]
    await summarizer.hold_pending(summarized)
    enriched = await resources.enriched_events(summarized)
    await publish_confirmed(resources.enriched, [(event, event.paper.id) for event in enriched])
    public = [(paper, event.paper.id) for event, summary in summarized if (paper := new_paper_event(event, summary))]
    await publish_confirmed(resources.new_papers, public)
    await summarizer.settle(summarized)


async def on_paper_withdrawn(event: PaperWithdrawn, resources: Resources) -> None:
    """A withdrawn paper no longer waits for a summary or a vector, and its vector goes."""
    await resources.summarizer.forget(event.paper_id)
    await resources.vectors.forget(event.paper_id)


async def start_sweeps(resources: Resources) -> None:
    """Papers pending a summary or a vector are worked on in the background, once the broker can publish them."""
    settings = resources.settings
    summaries = resources.summarizer.run_sweeps(
        resources.emit_enriched, interval_s=settings.sweep_interval_s, batch=settings.sweep_batch
    )
    vectors = resources.vectors.run_sweeps(
        resources.emit_embedded, interval_s=settings.embedding_sweep_interval_s, batch=settings.embedding_sweep_batch
    )
    resources.sweeps = [asyncio.create_task(summaries), asyncio.create_task(vectors)]


async def stop_sweeps(resources: Resources) -> None:
    for sweep in resources.sweeps:  # none when the service stopped before it finished starting
        sweep.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sweep


def create_app(settings: SummarizerSettings) -> AsgiFastStream:
    """The summarizer's broker, publishers and handlers, and the lifespan that opens what they work with."""
    broker = make_broker(settings, SERVICE)
    enriched = broker.publisher(topics.PAPERS_ENRICHED, schema=PaperEnriched, description="papers with summaries")
    new_papers = broker.publisher(topics.PAPERS_NEW, schema=PaperNew, description="public: papers seen first time")
    broker.subscriber(topics.PAPERS_NORMALIZED, **batch_options(SERVICE, settings.batch_size, settings.batch_wait_ms))(
        on_papers_normalized
    )
    # A group of its own: a second member in the papers group makes that group rebalance, and a batch whose commit
    # the rebalance refuses is handled again (seen in the summarizer's tests: papers.new.v1 messages repeated).
    broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))(on_paper_withdrawn)

    @asynccontextmanager
    async def open_summarizer(clients: Clients) -> AsyncIterator[SummarizerResources]:
        store = SummaryStore(clients.db)
        await store.ensure_indexes()
        openai_client = make_openai_client(settings) if settings.model_configured else None
        model = SummaryModel(openai_client, settings) if openai_client else None
        summarizer = Summarizer(
            store, model, daily_token_budget=settings.daily_token_budget, parallel=settings.summary_concurrency
        )
        vector_store = VectorStore(clients.db)
        await vector_store.ensure_indexes()
        embedder = open_embedder(settings, MongoTokenBudget(vector_store))
        vectors = PaperVectors(vector_store, embedder)
        try:
            yield SummarizerResources(settings, summarizer, enriched, new_papers, broker.dead_letters, vectors)
        finally:
            await embedder.close()
            if openai_client:
                await openai_client.close()

    app = service_app(settings, SERVICE, broker, open_summarizer, topics=TOPICS, needs=NEEDS)
    app.after_startup(start_sweeps)
    app.on_shutdown(stop_sweeps)
    return app
