"""Query service: papers.enriched.v1 → the Meilisearch index (each paper tagged with the catalogue topics it hits),
papers.withdrawn.v1 → out of it, harvest.status.v1 → source freshness; the HTTP API, Atom feeds and web pages
read them."""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import stamina
from fastapi import FastAPI
from faststream import Context
from faststream.kafka.annotations import KafkaMessage
from prometheus_client import Histogram

from papertrail.follows.catalogue import load_catalogue
from papertrail.kafka import batch_options, consumer_options, make_broker
from papertrail.metrics import RequestMetrics
from papertrail.search_document import paper_document
from papertrail.service import Readiness, health_routes, open_resources, provide
from schemas import topics
from schemas.events import FollowChanged, HarvestStatus, PaperEnriched, PaperWithdrawn
from services.query.api.routes import corrections, feeds, follows, overview, papers
from services.query.api.routes import topics as topic_routes
from services.query.deps import QueryResources
from services.query.index import PaperIndex
from services.query.settings import QuerySettings
from services.query.store import QueryStore
from services.query.topic_tags import TopicTagger
from services.query.web import mount_web

SERVICE = "query"
NEEDS = ("kafka", "mongodb", "meilisearch")  # checked before the service starts serving
TOPICS = [topics.PAPERS_ENRICHED, topics.PAPERS_WITHDRAWN, topics.HARVEST_STATUS, topics.FOLLOWS_CHANGED]
log = logging.getLogger(f"papertrail.{SERVICE}")

Resources = Annotated[QueryResources, Context()]  # what every handler takes, from the lifespan

INDEX_LAG = Histogram(
    "papertrail_index_lag_seconds",
    "Raw record harvested → searchable, per indexed paper.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600),
)


async def on_papers_enriched(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Index a batch, each paper with its catalogue topics; offsets are committed only after Meilisearch applied
    it; bad records are parked."""
    dead_letters = resources.dead_letters
    valid = await dead_letters.keep_valid(message.raw_message, PaperEnriched)  # type: ignore[arg-type]
    documents = [paper_document(event, resources.topic_tagger.of(event.paper)) for _, event in valid]
    failures = await resources.paper_index.upsert_isolating_failures(documents)
    for position, error in failures:
        await dead_letters.park(valid[position][0], error)
    now = time.time()
    parked = {position for position, _ in failures}  # never searchable: no latency to observe
    for position, (_, event) in enumerate(valid):
        if event.harvested_at is not None and position not in parked:
            INDEX_LAG.observe(max(0.0, now - event.harvested_at.timestamp()))


async def on_paper_withdrawn(event: PaperWithdrawn, resources: Resources) -> None:
    """A withdrawn paper leaves the index, and with it search, browse, feeds and every count of the overview."""
    await resources.paper_index.remove([event.paper_id])


async def on_harvest_status(status: HarvestStatus, resources: Resources) -> None:
    """Keep every source's runs for the overview and the sources page."""
    await resources.store.record_run(status)


@stamina.retry(on=Exception, attempts=None, timeout=None, wait_max=60)
async def retag_on_catalogue_change(paper_index: PaperIndex, store: QueryStore, tagger: TopicTagger) -> None:
    """Re-derive every indexed paper's topics when the catalogue differs from the one that tagged them (a new
    release's topics.toml); retried until it succeeds, since a paper retagged twice comes out the same."""
    if await store.tagged_catalogue(paper_index.name) == tagger.digest:
        return
    started = time.perf_counter()
    changed = await paper_index.retag(tagger)
    await store.save_tagged_catalogue(paper_index.name, tagger.digest)
    seconds = round(time.perf_counter() - started, 1)
    log.info("papers retagged for the topic catalogue", extra={"changed": changed, "seconds": seconds})


def create_app(settings: QuerySettings) -> FastAPI:
    """The query service: the API and pages (FastAPI), its broker's publisher and handlers, and the lifespan that
    opens what both work with."""
    broker = make_broker(settings, SERVICE)
    follow_changes = broker.publisher(topics.FOLLOWS_CHANGED, schema=FollowChanged, description="follow changes")
    indexing = batch_options(SERVICE, settings.index_batch_size, settings.index_batch_wait_ms, settings.index_linger_ms)
    broker.subscriber(topics.PAPERS_ENRICHED, **indexing)(on_papers_enriched)
    # a group of its own, so withdrawals never rebalance the papers consumer (docs/events.md)
    broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))(on_paper_withdrawn)
    broker.subscriber(topics.HARVEST_STATUS, **consumer_options(SERVICE))(on_harvest_status)
    readiness = Readiness()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_resources(settings, SERVICE, broker, readiness, topics=TOPICS, needs=NEEDS) as clients:
            assert clients.search is not None  # NEEDS names meilisearch
            paper_index = PaperIndex(clients.search, settings.index_name, settings.index_task_timeout_s)
            await paper_index.ensure()
            store = QueryStore(clients.db)
            await store.ensure_indexes()
            tagger = TopicTagger(load_catalogue())
            resources = QueryResources(settings, paper_index, store, tagger, follow_changes, broker.dead_letters)
            app.state.resources = resources  # the routes' and pages' dependencies read it
            provide(broker.context, resources)
            await broker.start()
            for follow in await store.retire_catalogue_follows():
                await resources.announce_follow_change(
                    FollowChanged(
                        action="deleted", follow_id=follow.id, user_id=follow.user_id, changed_at=datetime.now(UTC)
                    )
                )
            retag = asyncio.create_task(retag_on_catalogue_change(paper_index, store, tagger), name="retag")
            try:
                yield
            finally:
                retag.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await retag
                await broker.stop()

    app = FastAPI(
        title="PaperTrail query API",
        version="0.1.0",
        lifespan=lifespan,
        description="Search, browse and follow computer-science papers.",
    )
    for router in (
        papers.router,
        overview.router,
        topic_routes.router,
        follows.router,
        feeds.router,
        corrections.router,
    ):
        app.include_router(router)
    if not mount_web(app):  # the web pages and their static files
        log.warning("KaTeX is not installed: pages show formulas as their source; run `papertrail assets`")
    app.state.broker = broker  # its consumers and publisher, for whoever holds only the app (tests, tools)
    app.add_middleware(RequestMetrics, service=SERVICE)
    for path, endpoint in health_routes(readiness):
        app.add_route(path, endpoint, include_in_schema=False)
    return app
