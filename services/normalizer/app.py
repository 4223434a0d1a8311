"""Normalizer service: harvest.raw.v1 → parse → merge into the canonical paper → store → papers.normalized.v1;
papers that are none (ACL front matter) are set aside, and those held from earlier releases withdrawn at start."""

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from faststream import Context, ContextRepo
from faststream.asgi import AsgiFastStream
from faststream.kafka.annotations import KafkaMessage

from papertrail.kafka import DeadLetterPolicy, batch_options, ensure_topics, make_broker, publish_confirmed
from papertrail.lag import LagMonitor, watched_groups
from papertrail.logs import configure_logging
from papertrail.mongo import database, make_mongo_client, ping
from papertrail.service import Readiness, health_routes, load_settings
from schemas import topics
from schemas.events import PaperNormalized, PaperWithdrawn
from services.normalizer.front_matter import REASON, set_aside_front_matter
from services.normalizer.metrics import SET_ASIDE, WITHDRAWN
from services.normalizer.normalize import apply_batch, settle, withdraw_front_matter
from services.normalizer.parsers import parse_batch
from services.normalizer.settings import NormalizerSettings
from services.normalizer.stopwatch import Stopwatch
from services.normalizer.store import PaperStore

SERVICE = "normalizer"
settings = load_settings(NormalizerSettings, SERVICE)
log = configure_logging(SERVICE, settings)
broker = make_broker(settings, SERVICE)
readiness = Readiness()
AI_CATEGORIES = frozenset(settings.ai_categories)
dead_letters = DeadLetterPolicy(SERVICE)  # parks single records of a batch; the broker's own parks whole messages
dead_letters.broker = broker

normalized = broker.publisher(
    topics.PAPERS_NORMALIZED, schema=PaperNormalized, description="canonical papers after a source record changed them"
)
withdrawn = broker.publisher(
    topics.PAPERS_WITHDRAWN, schema=PaperWithdrawn, description="papers removed from the store: not papers after all"
)


@asynccontextmanager
async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
    await ensure_topics(settings, [topics.HARVEST_RAW, topics.PAPERS_NORMALIZED, topics.PAPERS_WITHDRAWN])
    mongo = make_mongo_client(settings, SERVICE)
    store = PaperStore(database(mongo, settings))
    await store.ensure_indexes()
    started = time.monotonic()
    if refreshed := await store.refresh_fingerprints():  # before any record is consumed (see its docstring)
        log.info(
            "papers fingerprinted again after a change of scheme",
            extra={"papers": refreshed, "seconds": round(time.monotonic() - started, 1)},
        )
    context.set_global("papers", store)
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: ping(mongo))
    lag = LagMonitor(settings, SERVICE, watched_groups(broker.subscribers)).start()  # papertrail_consumer_lag
    try:
        yield
    finally:
        await lag.stop()
        await mongo.close()


async def emit(events: list[PaperNormalized]) -> None:
    await publish_confirmed(normalized, [(event, event.paper.id) for event in events])


async def announce(withdrawals: list[PaperWithdrawn]) -> None:
    await publish_confirmed(withdrawn, [(w, w.paper_id) for w in withdrawals])


@broker.subscriber(topics.HARVEST_RAW, **batch_options(SERVICE, settings.batch_size, settings.batch_wait_ms))
async def on_raw_records(
    body: list[Any], message: KafkaMessage, papers: Annotated[PaperStore, Context("papers")]
) -> None:
    """Turn a batch of raw records into changes of their canonical papers; offsets commit after the events.

    A record that does not parse (or breaks the schema) is parked on harvest.raw.v1.dlq and the rest go on.
    """
    clock = Stopwatch()
    with clock("parse"):
        parsed, bad = parse_batch(message.raw_message)  # type: ignore[arg-type]
        items, front_matter = set_aside_front_matter(parsed)
    with clock("store"):
        applied = await apply_batch(items, papers, ai_categories=AI_CATEGORIES, attempts=settings.merge_retries)
    with clock("settle"):
        await settle(applied, papers, emit)
    for consumer_record, error in bad:
        await dead_letters.park(consumer_record, error)
    for item in applied.unplaced:
        await dead_letters.park(item.origin, RuntimeError(f"{item.source_key}: the paper kept changing"))
    if front_matter:  # not a paper, not an error: counted, and named in the debug log
        SET_ASIDE.labels(REASON).inc(len(front_matter))
        log.debug("front matter set aside", extra={"records": [item.source_key for item in front_matter]})
    log.debug("batch handled", extra={"records": len(body), "events": len(applied.events), **clock.seconds})


app = AsgiFastStream(broker, lifespan=lifespan, asgi_routes=health_routes(readiness), logger=log)


@app.after_startup
async def withdraw_held_front_matter(papers: Annotated[PaperStore, Context("papers")]) -> None:
    """Papers earlier releases made of ACL front matter leave the store, announced on papers.withdrawn.v1 so the
    summarizer, the matcher and the query service drop them too; once the broker can publish."""
    withdrawals = await withdraw_front_matter(papers, announce)
    if withdrawals:
        WITHDRAWN.labels(REASON).inc(len(withdrawals))
        log.info("front matter withdrawn", extra={"papers": [w.paper_id for w in withdrawals]})
