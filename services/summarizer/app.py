"""Summarizer service: papers.normalized.v1 → summary (or its status) and vector state → papers.enriched.v1 and
papers.new.v1 (services/summarizer/enrichment.py, the one flow); the sweeps → papers.enriched.v1 again;
papers.withdrawn.v1 → the paper stops waiting for a summary or a vector, and its vector goes."""

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Any

from faststream import Context
from faststream.asgi import AsgiFastStream
from faststream.kafka.annotations import KafkaMessage

from papertrail.embedding.backends import open_embedder
from papertrail.runtime.kafka import (
    DeadLetterPolicy,
    StaticMembershipBroker,
    batch_options,
    consumer_options,
    make_broker,
)
from papertrail.runtime.migrations import MigrationContext, MigrationRecord, publishing_on
from papertrail.runtime.service import Clients, service_app
from schemas import topics
from schemas.events import PaperEnriched, PaperNew, PaperNormalized, PaperWithdrawn
from services.summarizer.enrichment import Enrichment, Sweeps
from services.summarizer.migrations import MIGRATIONS
from services.summarizer.model import SummaryModel, make_openai_client
from services.summarizer.settings import SummarizerSettings
from services.summarizer.store import (
    MongoTokenBudget,
    NewPapersPublished,
    ReaderInterest,
    SummaryStore,
    TitleStore,
    VectorStore,
    search_vectors,
)
from services.summarizer.summarizing import Summarizer
from services.summarizer.title_model import TitleModel, Titles, make_titles_client
from services.summarizer.titling import TitleSweep
from services.summarizer.vectors import PaperVectors, SearchVectors

SERVICE = "summarizer"
NEEDS = ("kafka", "mongodb")  # checked before the service starts serving
TOPICS = [topics.PAPERS_NORMALIZED, topics.PAPERS_ENRICHED, topics.PAPERS_NEW, topics.PAPERS_WITHDRAWN]


@dataclass(frozen=True, slots=True)
class SummarizerResources:
    """What the handlers and hooks work with, built by `build_resources`; `prepare` readies its stores and `close`
    closes the clients and embedders it holds."""

    enrichment: Enrichment
    sweeps: Sweeps
    dead_letters: DeadLetterPolicy
    # each awaited once by `prepare` (indexes, the embedding models recorded) and by `close`, in order
    preparations: tuple[Callable[[], Awaitable[Any]], ...] = ()
    closers: tuple[Callable[[], Awaitable[Any]], ...] = ()


Resources = Annotated[SummarizerResources, Context()]  # what every handler takes, from the lifespan


async def on_papers_normalized(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Attach each paper's summary (cached, written now, or pending for the sweep) and pass the papers on; events
    that break the schema are parked on the dead-letter topic."""
    valid = await resources.dead_letters.keep_valid(message.raw_message, PaperNormalized)  # type: ignore[arg-type]
    await resources.enrichment.enrich([event for _, event in valid])


async def on_paper_withdrawn(event: PaperWithdrawn, resources: Resources) -> None:
    await resources.enrichment.forget(event.paper_id)


async def start_sweeps(resources: Resources) -> None:
    """Papers pending a summary or a vector are worked on in the background, once the broker can publish them."""
    resources.sweeps.start()


async def stop_sweeps(resources: Resources) -> None:
    await resources.sweeps.stop()


def build_resources(
    settings: SummarizerSettings, clients: Clients, broker: StaticMembershipBroker
) -> SummarizerResources:
    """The summarizer's resources over its clients and the publishers `create_app` declared on `broker`: the stores,
    the summary model's client and the embedders (the search vectors' too, unless SEARCH_EMBEDDING_MODEL turns them
    off). The service's one wiring, without I/O (a local model loads on first use): the lifespan and the tests build
    them here alike, then `prepare` them and `close` them after, as the other services' lifespans do."""
    store = SummaryStore(clients.db)
    vector_store = VectorStore(clients.db)
    search_store = search_vectors(clients.db)
    openai_client = make_openai_client(settings) if settings.model_configured else None
    model = SummaryModel(openai_client, settings) if openai_client else None
    titles_client = make_titles_client(settings) if settings.titles_configured else None
    titles = Titles(TitleStore(clients.db), TitleModel(titles_client, settings)) if titles_client else None
    summarizer = Summarizer(
        store,
        model,
        daily_token_budget=settings.daily_token_budget,
        parallel=settings.summary_concurrency,
        interest=ReaderInterest(clients.db),
        titles=titles,
        claim=timedelta(seconds=settings.sweep_claim_s),
    )
    embedder = open_embedder(settings, MongoTokenBudget(vector_store), nice=settings.embedding_nice)
    search_settings = settings.search_embedding
    search_embedder = open_embedder(search_settings, nice=settings.embedding_nice) if search_settings else None
    search = SearchVectors(search_store, search_embedder) if search_embedder else None
    enriched = broker.declared_publisher(topics.PAPERS_ENRICHED)
    new_papers = broker.declared_publisher(topics.PAPERS_NEW)
    enrichment = Enrichment(
        summarizer,
        PaperVectors(vector_store, embedder, search, claim=timedelta(seconds=settings.sweep_claim_s)),
        enriched,
        new_papers,
        NewPapersPublished(clients.db),
    )
    sweeps = Sweeps(
        enrichment,
        summary_interval_s=settings.sweep_interval_s,
        summary_batch=settings.sweep_batch,
        vector_interval_s=settings.embedding_sweep_interval_s,
        vector_batch=settings.embedding_sweep_batch,
        titles=TitleSweep(
            store, titles, parallel=settings.titles_concurrency, claim=timedelta(seconds=settings.sweep_claim_s)
        )
        if titles
        else None,
        title_interval_s=settings.titles_sweep_interval_s,
        title_batch=settings.titles_batch,
    )
    preparations = (
        store.ensure_indexes,
        vector_store.ensure_indexes,
        lambda: vector_store.record_model(settings.model_key),
        search_store.ensure_indexes,
        # `none` when off: the query service checks it
        lambda: search_store.record_model(settings.search_model_key),
    )
    closers = [sweeps.stop, embedder.close]
    closers += [search_embedder.close] if search_embedder is not None else []
    closers += [openai_client.close] if openai_client else []
    closers += [titles_client.close] if titles_client else []
    return SummarizerResources(enrichment, sweeps, broker.dead_letters, preparations, tuple(closers))


async def prepare(resources: SummarizerResources) -> None:
    """What the resources need before the first event: the stores' indexes, the embedding models recorded."""
    for step in resources.preparations:
        await step()


async def close(resources: SummarizerResources) -> None:
    """Stop the sweeps, then close the embedders and the model clients."""
    for step in resources.closers:
        await step()


def create_app(settings: SummarizerSettings) -> AsgiFastStream:
    """The summarizer's broker, publishers and handlers, and the lifespan that opens what they work with."""
    broker = make_broker(settings, SERVICE)
    broker.publisher(topics.PAPERS_ENRICHED, schema=PaperEnriched, description="papers with summaries")
    broker.publisher(topics.PAPERS_NEW, schema=PaperNew, description="public: papers seen first time")
    broker.subscriber(topics.PAPERS_NORMALIZED, **batch_options(SERVICE, settings.batch_size, settings.batch_wait_ms))(
        on_papers_normalized
    )
    # A group of its own: a second member in the papers group makes that group rebalance, and a batch whose commit
    # the rebalance refuses is handled again (seen in the summarizer's tests: papers.new.v1 messages repeated).
    broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))(on_paper_withdrawn)

    @asynccontextmanager
    async def open_summarizer(clients: Clients) -> AsyncIterator[SummarizerResources]:
        # before a vector is read or written: the stored ones are binary float32 (migrations.py), once
        migrating = MigrationContext(clients.db, publishing_on(broker, settings))
        await MigrationRecord(clients.db).run_pending(MIGRATIONS, migrating)
        resources = build_resources(settings, clients, broker)
        try:
            await prepare(resources)
            yield resources
        finally:
            await close(resources)

    app = service_app(settings, SERVICE, broker, open_summarizer, topics=TOPICS, needs=NEEDS)
    app.after_startup(start_sweeps)
    app.on_shutdown(stop_sweeps)
    return app
