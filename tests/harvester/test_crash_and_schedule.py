"""A crashed run resumes over real Kafka and MongoDB; leases keep a source's runs apart; failures stay isolated."""

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from prometheus_client import REGISTRY

from papertrail.runtime.kafka import Publisher
from schemas.events import RawRecord
from services.harvester.http import PoliteFetcher
from services.harvester.lease import LeaseHeld, source_lease
from services.harvester.runner import init_metrics, run_source
from services.harvester.scheduler import build_source, run_forever, run_once
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage
from services.harvester.sources.arxiv import ArxivOaiSource
from services.harvester.store import HarvestStore
from tests.support.fakes import Published
from tests.support.harvests import CHAIN_IDS
from tests.support.replay import Replay
from tests.support.servers import Servers
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.integration


@pytest.fixture
async def raw_topic(servers: Servers) -> AsyncIterator[tuple[str, Publisher]]:
    """A topic of its own on the real Kafka-protocol server and a publisher to it on a connected broker (the
    service's setup)."""
    from papertrail.runtime.kafka import make_broker
    from papertrail.runtime.settings import InfraSettings

    topic = f"test.harvest.raw.{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=servers.kafka_bootstrap_servers)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, 2, 1)])
    finally:
        await admin.close()
    broker = make_broker(InfraSettings(kafka_bootstrap_servers=servers.kafka_bootstrap_servers), "harvester-test")
    publisher = broker.publisher(topic)
    await broker.start()
    try:
        yield topic, publisher
    finally:
        await broker.stop()


async def _keys_on(servers: Servers, topic: str, at_least: int) -> list[str]:
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=servers.kafka_bootstrap_servers, auto_offset_reset="earliest", group_id=None
    )
    await consumer.start()
    keys: list[str] = []
    try:

        async def enough() -> bool:
            for records in (await consumer.getmany(timeout_ms=500)).values():
                keys.extend(r.key.decode() for r in records if r.key)
            return len(keys) >= at_least

        await wait_until_async(enough, 30, f"{at_least} records on {topic}")
    finally:
        await consumer.stop()
    return keys


async def test_a_run_killed_after_its_first_page_resumes_without_losing_a_record(
    settings: HarvesterSettings,
    store: HarvestStore,
    replay: Replay,
    raw_topic: tuple[str, Publisher],
    servers: Servers,
) -> None:
    from papertrail.runtime.kafka import publish_confirmed

    topic, publisher = raw_topic
    published: list[RawRecord] = []

    async def publish_raw(records: list[tuple[RawRecord, str]]) -> None:
        await publish_confirmed(publisher, records)
        published.extend(r for r, _ in records)

    async def no_status(status: object) -> None:
        return None

    first_page_done = asyncio.Event()

    def on_page(page: SourcePage) -> None:
        first_page_done.set()

    # page 2 hangs, so the run is caught between pages when it is killed
    replay.fault(path="/oai", query={"resumptionToken": "726959|1001"}, delay_s=60)
    async with httpx.AsyncClient(timeout=120) as client:
        source = ArxivOaiSource(settings, PoliteFetcher(client, min_interval_s=0, retries=0, retry_after_max_s=1))
        run = asyncio.create_task(run_source(source, store, publish_raw, no_status, on_page=on_page))  # type: ignore[arg-type]
        await asyncio.wait_for(first_page_done.wait(), 30)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
    assert [r.record_id for r in published] == CHAIN_IDS[:2]
    assert (await store.load_checkpoint("arxiv"))["sets"]["cs"]["resumption_token"] == "726959|1001"

    replay.reset()
    async with httpx.AsyncClient(timeout=10) as client:
        source = ArxivOaiSource(settings, PoliteFetcher(client, min_interval_s=0, retries=0, retry_after_max_s=1))
        status = await run_source(source, store, publish_raw, no_status)  # type: ignore[arg-type]
    assert status.state == "finished", status.error
    # the second run starts from the checkpoint: the token, not the window
    assert replay.requests()[0]["query"] == {"verb": "ListRecords", "resumptionToken": "726959|1001"}
    keys = await _keys_on(servers, topic, len(CHAIN_IDS))
    assert {f"arxiv:{i}" for i in CHAIN_IDS} <= set(keys)


async def test_a_held_lease_keeps_a_second_run_of_the_source_out(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    async with source_lease(store, "arxiv", ttl_s=30) as holder:
        assert await store.lease_holder("arxiv") == holder
        with pytest.raises(LeaseHeld):
            async with source_lease(store, "arxiv", ttl_s=30):
                pass
        async with httpx.AsyncClient(timeout=10) as client:
            source, interval = build_source("arxiv", settings, client)
            wait = await run_once(source, interval, store, published, 30)
        assert wait == 30 and published.statuses == [] and replay.requests() == []  # skipped, not run
        async with source_lease(store, "hf", ttl_s=30):  # other sources are free
            pass
    assert await store.lease_holder("arxiv") is None
    async with source_lease(store, "arxiv", ttl_s=30):  # released: free again
        pass


async def test_an_expired_lease_can_be_taken_over(store: HarvestStore) -> None:
    assert await store.acquire_lease("acl", "crashed-process", ttl_s=0.2)
    assert not await store.acquire_lease("acl", "scheduler", ttl_s=30)
    await asyncio.sleep(0.3)  # let the crashed holder's lease run out (the lease's own clock, not a wait for work)
    assert await store.acquire_lease("acl", "scheduler", ttl_s=30)
    assert await store.lease_holder("acl") == "scheduler"


async def test_one_failing_source_never_stops_the_others(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    settings.http_retries = 0
    settings.hf_days = 0
    replay.fault(path="/oai", status=500, times=1000)  # arXiv is down for the whole test
    async with httpx.AsyncClient(timeout=10) as client:
        tasks = []
        for name in ("arxiv", "acl"):
            source, _ = build_source(name, settings, client)
            tasks.append(asyncio.create_task(run_forever(source, 0.3, store, published, 30)))
        try:

            async def both_ran_twice() -> bool:
                done = [(s.source, s.state) for s in published.statuses]
                return done.count(("arxiv", "failed")) >= 2 and done.count(("acl", "finished")) >= 2

            await wait_until_async(both_ran_twice, 30, "two failed arXiv runs and two finished ACL runs")
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    assert all(not t.done() or t.cancelled() for t in tasks)
    finished = [s for s in published.statuses if s.state in ("finished", "failed")]
    for status in finished:
        assert status.next_run_at is not None and status.finished_at is not None
        assert (status.next_run_at - status.finished_at).total_seconds() == pytest.approx(0.3)
        assert status.next_run_at > datetime(2020, 1, 1, tzinfo=UTC)
    recorded = await store.runs.find_one({"source": "acl", "state": "finished"})
    assert recorded is not None and recorded["next_run_at"] is not None


def test_labelled_series_exist_before_any_run() -> None:
    init_metrics(["never-ran-source"])
    for name, labels in [
        ("papertrail_harvest_records_total", {"source": "never-ran-source"}),
        ("papertrail_harvest_pages_total", {"source": "never-ran-source"}),
        ("papertrail_harvest_runs_total", {"source": "never-ran-source", "outcome": "ok"}),
        ("papertrail_harvest_runs_total", {"source": "never-ran-source", "outcome": "failed"}),
        ("papertrail_harvest_errors_total", {"source": "never-ran-source", "kind": "source"}),
        ("papertrail_harvest_run_seconds_count", {"source": "never-ran-source"}),
    ]:
        assert REGISTRY.get_sample_value(name, labels) == 0, name
