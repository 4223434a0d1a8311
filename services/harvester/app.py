"""Harvester service: on each source's schedule, fetch → harvest.raw.v1 → checkpoint → harvest.status.v1."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

import httpx
from faststream import Context, ContextRepo
from faststream.asgi import AsgiFastStream

from papertrail.kafka import ensure_topics, make_broker, publish_confirmed
from papertrail.logs import configure_logging
from papertrail.mongo import database, make_mongo_client, ping
from papertrail.service import Readiness, health_routes, load_settings
from schemas import topics
from schemas.events import HarvestStatus, RawRecord
from services.harvester.runner import init_metrics, restore_freshness
from services.harvester.scheduler import build_sources, make_http_client, run_forever
from services.harvester.settings import HarvesterSettings
from services.harvester.store import HarvestStore

SERVICE = "harvester"
settings = load_settings(HarvesterSettings, SERVICE)
log = configure_logging(SERVICE, settings)
broker = make_broker(settings, SERVICE)
readiness = Readiness()

raw_records = broker.publisher(topics.HARVEST_RAW, schema=RawRecord, description="raw source records")
run_status = broker.publisher(topics.HARVEST_STATUS, schema=HarvestStatus, description="harvest runs")


async def publish_raw(records: list[tuple[RawRecord, str]]) -> None:
    await publish_confirmed(raw_records, records)


async def publish_status(status: HarvestStatus) -> None:
    await run_status.publish(status, key=status.source.encode())


@asynccontextmanager
async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
    await ensure_topics(settings, [topics.HARVEST_RAW, topics.HARVEST_STATUS])
    mongo = make_mongo_client(settings, SERVICE)
    http = make_http_client(settings)
    store = HarvestStore(database(mongo, settings))
    await store.ensure_indexes()
    context.set_global("harvest_store", store)
    context.set_global("http", http)
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: ping(mongo))
    try:
        yield
    finally:
        await http.aclose()
        await mongo.close()


app = AsgiFastStream(broker, lifespan=lifespan, asgi_routes=health_routes(readiness), logger=log)
schedules: list[asyncio.Task[None]] = []


@app.after_startup
async def start_schedules(
    harvest_store: Annotated[HarvestStore, Context()], http: Annotated[httpx.AsyncClient, Context()]
) -> None:
    """Once the broker is connected, run every configured source on its own interval."""
    init_metrics(settings.sources)
    built = build_sources(settings.sources, settings, http)
    await restore_freshness(harvest_store, {name: interval for name, (_, interval) in built.items()})
    for name, (source, interval) in built.items():
        schedules.append(
            asyncio.create_task(
                run_forever(source, interval, harvest_store, publish_raw, publish_status, settings.lease_ttl_s),
                name=f"harvest-{name}",
            )
        )


@app.on_shutdown
async def stop_schedules() -> None:
    for task in schedules:
        task.cancel()
    await asyncio.gather(*schedules, return_exceptions=True)
