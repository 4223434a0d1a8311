"""Summarizer service: papers.normalized.v1 → summary (or its status) → papers.enriched.v1 and papers.new.v1."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from faststream import Context, ContextRepo
from faststream.asgi import AsgiFastStream

from papertrail.kafka import consumer_options, ensure_topics, make_broker
from papertrail.logs import configure_logging
from papertrail.mongo import database, make_mongo_client, ping
from papertrail.service import Readiness, health_routes, load_settings
from schemas import topics
from schemas.events import PaperEnriched, PaperNew, PaperNormalized
from schemas.summary import Summary
from services.summarizer.settings import SummarizerSettings
from services.summarizer.store import SummaryStore

SERVICE = "summarizer"
settings = load_settings(SummarizerSettings, SERVICE)
log = configure_logging(SERVICE, settings.log_level)
broker = make_broker(settings, SERVICE)
readiness = Readiness()

enriched = broker.publisher(topics.PAPERS_ENRICHED, schema=PaperEnriched, description="papers with summaries")
new_papers = broker.publisher(topics.PAPERS_NEW, schema=PaperNew, description="public: papers seen first time")


@asynccontextmanager
async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
    await ensure_topics(settings, [topics.PAPERS_NORMALIZED, topics.PAPERS_ENRICHED, topics.PAPERS_NEW])
    mongo = make_mongo_client(settings)
    store = SummaryStore(database(mongo, settings))
    await store.ensure_indexes()
    context.set_global("summaries", store)
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: ping(mongo))
    try:
        yield
    finally:
        await mongo.close()


@broker.subscriber(topics.PAPERS_NORMALIZED, **consumer_options(SERVICE))
async def on_paper_normalized(event: PaperNormalized, summaries: Annotated[SummaryStore, Context("summaries")]) -> None:
    """Attach the paper's summary; with no model configured the summary is pending and the paper flows on."""
    summary = Summary(status="pending", error=None if settings.model_configured else "no model configured")
    await summaries.save(event.paper, summary)
    await enriched.publish(
        PaperEnriched(
            kind=event.kind, paper=event.paper, version=event.version, summary=summary, harvested_at=event.harvested_at
        ),
        key=event.paper.id.encode(),
    )
    if event.kind == "new":
        await new_papers.publish(
            PaperNew(paper=event.paper, summary=summary, first_seen=event.paper.first_seen), key=event.paper.id.encode()
        )


app = AsgiFastStream(broker, lifespan=lifespan, asgi_routes=health_routes(readiness), logger=log)
