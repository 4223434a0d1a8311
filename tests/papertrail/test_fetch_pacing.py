"""Idle consumers do not spin: an empty fetch answered at once (as the local broker does) is paced to the
consumer's fetch wait, and a record that arrives meanwhile is still delivered."""

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.consumer.fetcher import Fetcher

from papertrail import fetch_pacing
from tests.conftest import Servers

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
    topic = "pacing.idle"
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
