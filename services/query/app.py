"""Query service: papers.enriched.v1 → the Meilisearch index (each paper tagged with the catalogue topics it hits),
papers.withdrawn.v1 → out of it, harvest.status.v1 → source freshness; the HTTP API, Atom feeds and web pages
read them."""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import stamina
from fastapi import FastAPI, Response
from fastapi.responses import JSONResponse
from faststream import Context
from faststream.kafka.annotations import KafkaMessage
from prometheus_client import CONTENT_TYPE_LATEST, Histogram, generate_latest

from papertrail.kafka import DeadLetterPolicy, batch_options, consumer_options, ensure_topics, make_broker
from papertrail.lag import LagMonitor, watched_groups
from papertrail.logs import configure_logging
from papertrail.metrics import RequestMetrics
from papertrail.mongo import database, make_mongo_client
from papertrail.mongo import ping as mongo_ping
from papertrail.search import make_search_client
from papertrail.search import ping as meili_ping
from papertrail.service import Readiness, load_settings
from schemas import topics
from schemas.events import FollowChanged, HarvestStatus, PaperEnriched, PaperWithdrawn
from services.matcher.catalogue import load_catalogue
from services.query.api.routes import corrections, feeds, follows, overview, papers
from services.query.api.routes import topics as topic_routes
from services.query.documents import paper_document
from services.query.index import PaperIndex
from services.query.settings import QuerySettings
from services.query.store import QueryStore
from services.query.topic_tags import TopicTagger
from services.query.web import mount_web

SERVICE = "query"
settings = load_settings(QuerySettings, SERVICE)
log = configure_logging(SERVICE, settings)
broker = make_broker(settings, SERVICE)
readiness = Readiness()
follow_changes = broker.publisher(topics.FOLLOWS_CHANGED, schema=FollowChanged, description="follow changes")

INDEX_LAG = Histogram(
    "papertrail_index_lag_seconds",
    "Raw record harvested → searchable, per indexed paper.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600),
)


@broker.subscriber(
    topics.PAPERS_ENRICHED,
    **batch_options(SERVICE, settings.index_batch_size, settings.index_batch_wait_ms, settings.index_linger_ms),
)
async def on_papers_enriched(
    body: list[Any],
    message: KafkaMessage,
    paper_index: Annotated[PaperIndex, Context()],
    topic_tagger: Annotated[TopicTagger, Context()],
    dead_letters: Annotated[DeadLetterPolicy, Context()],
) -> None:
    """Index a batch, each paper with its catalogue topics; offsets are committed only after Meilisearch applied
    it; bad records are parked."""
    valid = await dead_letters.keep_valid(message.raw_message, PaperEnriched)  # type: ignore[arg-type]
    documents = [paper_document(event, topic_tagger.of(event.paper)) for _, event in valid]
    failures = await paper_index.upsert_isolating_failures(documents)
    for position, error in failures:
        await dead_letters.park(valid[position][0], error)
    now = time.time()
    parked = {position for position, _ in failures}  # never searchable: no latency to observe
    for position, (_, event) in enumerate(valid):
        if event.harvested_at is not None and position not in parked:
            INDEX_LAG.observe(max(0.0, now - event.harvested_at.timestamp()))


# a group of its own, so withdrawals never rebalance the papers consumer (docs/events.md)
@broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))
async def on_paper_withdrawn(event: PaperWithdrawn, paper_index: Annotated[PaperIndex, Context()]) -> None:
    """A withdrawn paper leaves the index, and with it search, browse, feeds and every count of the overview."""
    await paper_index.remove([event.paper_id])


# a group of its own too: in the papers group, the papers consumer's join at start failed its commits (docs/events.md)
@broker.subscriber(topics.HARVEST_STATUS, **consumer_options(f"{SERVICE}-status"))
async def on_harvest_status(status: HarvestStatus, store: Annotated[QueryStore, Context()]) -> None:
    """Keep every source's runs for the overview and the sources page."""
    await store.record_run(status)


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


async def announce_follow_change(change: FollowChanged) -> None:
    await follow_changes.publish(change, key=change.user_id.encode())


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    await ensure_topics(
        settings, [topics.PAPERS_ENRICHED, topics.PAPERS_WITHDRAWN, topics.HARVEST_STATUS, topics.FOLLOWS_CHANGED]
    )
    mongo = make_mongo_client(settings, SERVICE)
    meili = make_search_client(settings)
    paper_index = PaperIndex(meili, settings.index_name, settings.index_task_timeout_s)
    await paper_index.ensure()
    store = QueryStore(database(mongo, settings))
    await store.ensure_indexes()
    app.state.paper_index, app.state.store, app.state.settings = paper_index, store, settings
    app.state.follow_announcer = announce_follow_change
    topic_tagger = TopicTagger(load_catalogue())
    broker.context.set_global("paper_index", paper_index)
    broker.context.set_global("topic_tagger", topic_tagger)
    broker.context.set_global("store", store)
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: mongo_ping(mongo))
    readiness.add("meilisearch", lambda: meili_ping(meili))
    lag = LagMonitor(settings, SERVICE, watched_groups(broker.subscribers)).start()  # papertrail_consumer_lag
    await broker.start()
    for follow in await store.retire_catalogue_follows():
        await announce_follow_change(
            FollowChanged(action="deleted", follow_id=follow.id, user_id=follow.user_id, changed_at=datetime.now(UTC))
        )
    retag = asyncio.create_task(retag_on_catalogue_change(paper_index, store, topic_tagger), name="retag")
    try:
        yield
    finally:
        retag.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await retag
        await lag.stop()
        await broker.stop()
        await meili.aclose()
        await mongo.close()


app = FastAPI(
    title="PaperTrail query API",
    version="0.1.0",
    lifespan=lifespan,
    description="Search, browse and follow computer-science papers.",
)
for router in (papers.router, overview.router, topic_routes.router, follows.router, feeds.router, corrections.router):
    app.include_router(router)
if not mount_web(app):  # the web pages and their static files
    log.warning("KaTeX is not installed: pages show formulas as their source; run `papertrail assets`")
app.add_middleware(RequestMetrics, service=SERVICE)


@app.get("/metrics", include_in_schema=False)
async def read_metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


@app.get("/healthz", include_in_schema=False)
async def read_health() -> dict[str, str]:
    return {"status": "ok"}


@app.get("/readyz", include_in_schema=False)
async def read_readiness() -> JSONResponse:
    ready, checks = await readiness.report()
    return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)
