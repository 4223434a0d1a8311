"""Normalizer service: harvest.raw.v1 → parse → merge into the canonical paper → store → papers.normalized.v1."""

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
from schemas.events import PaperNormalized, RawRecord
from services.normalizer.normalize import apply_record
from services.normalizer.parsers import parse_raw
from services.normalizer.settings import NormalizerSettings
from services.normalizer.store import PaperStore

SERVICE = "normalizer"
settings = load_settings(NormalizerSettings, SERVICE)
log = configure_logging(SERVICE, settings.log_level)
broker = make_broker(settings, SERVICE)
readiness = Readiness()
AI_CATEGORIES = frozenset(settings.ai_categories)

normalized = broker.publisher(
    topics.PAPERS_NORMALIZED, schema=PaperNormalized, description="canonical papers after a source record changed them"
)


@asynccontextmanager
async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
    await ensure_topics(settings, [topics.HARVEST_RAW, topics.PAPERS_NORMALIZED])
    mongo = make_mongo_client(settings)
    store = PaperStore(database(mongo, settings))
    await store.ensure_indexes()
    context.set_global("papers", store)
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: ping(mongo))
    try:
        yield
    finally:
        await mongo.close()


@broker.subscriber(topics.HARVEST_RAW, **consumer_options(SERVICE))
async def on_raw_record(raw: RawRecord, papers: Annotated[PaperStore, Context("papers")]) -> None:
    """Turn one raw record into a change of its canonical paper; the same record twice changes nothing."""
    if await papers.already_seen(raw):
        return
    record = parse_raw(raw)  # UnparseableRecord is a ValueError: the record goes to the dead-letter topic
    outcome = await apply_record(
        record,
        papers,
        content_hash=raw.sha256,
        harvested_at=raw.harvested_at,
        ai_categories=AI_CATEGORIES,
        attempts=settings.merge_retries,
    )
    if outcome.event is not None:
        await normalized.publish(outcome.event, key=outcome.paper_id.encode())
    await papers.mark_seen(raw, outcome.paper_id, record)


app = AsgiFastStream(broker, lifespan=lifespan, asgi_routes=health_routes(readiness), logger=log)
