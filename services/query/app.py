"""Query service: papers.enriched.v1 → the Meilisearch index; the HTTP API and pages read it."""

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from faststream import Context
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from papertrail.kafka import consumer_options, ensure_topics, make_broker
from papertrail.logs import configure_logging
from papertrail.metrics import HTTP_REQUESTS, HTTP_SECONDS
from papertrail.mongo import database, make_mongo_client
from papertrail.mongo import ping as mongo_ping
from papertrail.search import make_search_client
from papertrail.search import ping as meili_ping
from papertrail.service import Readiness, load_settings
from schemas import topics
from schemas.events import PaperEnriched
from services.query.api.routes import papers
from services.query.documents import paper_document
from services.query.index import PaperIndex
from services.query.settings import QuerySettings

SERVICE = "query"
settings = load_settings(QuerySettings, SERVICE)
log = configure_logging(SERVICE, settings.log_level)
broker = make_broker(settings, SERVICE)
readiness = Readiness()


@broker.subscriber(topics.PAPERS_ENRICHED, **consumer_options(SERVICE))
async def on_paper_enriched(event: PaperEnriched, paper_index: Annotated[PaperIndex, Context()]) -> None:
    """Index the paper; the offset is committed only after Meilisearch applied the document."""
    await paper_index.upsert([paper_document(event)])


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    await ensure_topics(
        settings, [topics.PAPERS_ENRICHED, topics.HARVEST_STATUS, topics.FOLLOWS_MATCHED, topics.FOLLOWS_CHANGED]
    )
    mongo = make_mongo_client(settings)
    meili = make_search_client(settings)
    paper_index = PaperIndex(meili, settings.index_name, settings.index_task_timeout_s)
    await paper_index.ensure()
    app.state.paper_index = paper_index
    app.state.db = database(mongo, settings)
    broker.context.set_global("paper_index", paper_index)
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: mongo_ping(mongo))
    readiness.add("meilisearch", lambda: meili_ping(meili))
    await broker.start()
    try:
        yield
    finally:
        await broker.stop()
        await meili.aclose()
        await mongo.close()


app = FastAPI(
    title="PaperTrail query API",
    version="0.1.0",
    lifespan=lifespan,
    description="Search, browse and follow computer-science papers.",
)
app.include_router(papers.router)


@app.middleware("http")
async def count_requests(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    started = time.perf_counter()
    response = await call_next(request)
    route = getattr(request.scope.get("route"), "path", "unmatched")
    HTTP_REQUESTS.labels(SERVICE, route, str(response.status_code)).inc()
    HTTP_SECONDS.labels(SERVICE, route).observe(time.perf_counter() - started)
    return response


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
