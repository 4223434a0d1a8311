"""Idle consumers do not spin: an empty fetch answered at once (as the local broker does) is paced to the
consumer's fetch wait, and a record that arrives meanwhile is still delivered."""

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.consumer.fetcher import Fetcher

from papertrail.runtime import fetch_pacing
from tests.support.servers import Servers

pytestmark = pytest.mark.integration
WINDOW_S = 2.0


@pytest.fixture
def counted_fetches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """Install pacing in this process, counting the fetches that actually go to the broker."""
    sent: list[float] = []
    unpaced = fetch_pacing._unpaced

    async def counting(self: Fetcher, *args: Any) -> bool:
        sent.append(time.monotonic())
        return await unpaced(self, *args)

    monkeypatch.setattr(fetch_pacing, "_unpaced", counting)
    monkeypatch.setattr(Fetcher, "_proc_fetch_request", Fetcher._proc_fetch_request)  # restored after the test
    fetch_pacing.install()
    assert fetch_pacing.installed()
    yield sent


async def test_an_idle_consumer_fetches_at_most_ten_times_a_second(
    servers: Servers, counted_fetches: list[float]
) -> None:
    topic = servers.topic("pacing.idle")
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=servers.kafka_bootstrap_servers, group_id="pacing-test", auto_offset_reset="earliest"
    )
    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers)
    await producer.start()
    await producer.send_and_wait(topic, b"first")  # creates the topic
    await consumer.start()
    try:
        first = await asyncio.wait_for(consumer.getone(), timeout=60)
        assert first.value == b"first"
        waiting = asyncio.ensure_future(consumer.getone())
        counted_fetches.clear()
        await asyncio.wait({waiting}, timeout=WINDOW_S)  # idle: nothing is published for this window
        idle_fetches = len(counted_fetches)
        # ≤ 10/s with the 100 ms pause (plus slack for the first); unpaced on noida-db this was ~1,800/s.
        assert idle_fetches <= WINDOW_S / fetch_pacing.MAX_PAUSE_S + 5, idle_fetches
        await producer.send_and_wait(topic, b"second")
        assert (await asyncio.wait_for(waiting, timeout=30)).value == b"second"  # delivered despite the pauses
    finally:
        await consumer.stop()
        await producer.stop()


async def test_a_lingering_consumer_gets_records_in_few_batches_gathered_over_its_wait(
    servers: Servers, counted_fetches: list[float]
) -> None:
    """fetch_min_bytes / fetch_max_wait_ms (the query service's INDEX_LINGER_MS): a trickle of records arrives in
    batches gathered over the wait, as Kafka's broker would hold the fetch; noida-db answers each fetch at once."""
    topic, linger_s = servers.topic("pacing.linger"), 0.8
    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers)
    await producer.start()
    await producer.send_and_wait(topic, b"first")  # creates the topic
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=servers.kafka_bootstrap_servers,
        group_id="pacing-linger",
        auto_offset_reset="earliest",
        fetch_min_bytes=1024 * 1024,
        fetch_max_wait_ms=int(linger_s * 1000),
    )
    await consumer.start()
    try:
        assert (await asyncio.wait_for(consumer.getone(), timeout=60)).value == b"first"
        batches: list[int] = []

        async def trickle() -> None:  # 40 records over 2 s
            for n in range(40):
                await producer.send_and_wait(topic, str(n).encode())
                await asyncio.sleep(0.05)

        sending = asyncio.ensure_future(trickle())
        while sum(batches) < 40:
            got = await asyncio.wait_for(consumer.getmany(timeout_ms=5000), timeout=30)
            if got:
                batches.append(sum(len(records) for records in got.values()))
        await sending
        # ~2 s of records gathered over 0.8 s waits: a handful of batches (unpaced on noida-db: one per record or so)
        assert len(batches) <= 6, batches
        assert max(batches) >= 10, batches
    finally:
        await consumer.stop()
        await producer.stop()
