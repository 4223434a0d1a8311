"""The normalizer's app on FastStream's in-memory broker, no servers: its handler parks records that do not parse on
harvest.raw.v1.dlq with the reason and original bytes, sets ACL front matter aside, and needs the database for
neither. (The flows that store papers run against real servers: test_dead_letters.py, tests/integration/.)"""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage
from prometheus_client import REGISTRY
from pymongo import AsyncMongoClient

from papertrail.kafka import dead_letter_topic
from papertrail.service import Clients, provide
from schemas import topics
from services.normalizer.app import build_resources, create_app
from services.normalizer.settings import NormalizerSettings
from tests.conftest import broker_of, free_port
from tests.normalizer.sources import acl_records, raw_record


@dataclass
class Seen:
    normalized: list[Any] = field(default_factory=list)
    parked: list[Any] = field(default_factory=list)  # the dead letters' messages


@pytest.fixture
async def memory() -> AsyncIterator[tuple[Any, Seen]]:
    """The app's broker in memory, its resources over a MongoDB address where nothing listens (a handler that touched
    the database would fail), and what reached papers.normalized.v1 and harvest.raw.v1.dlq."""
    settings = NormalizerSettings(mongodb_url=f"mongodb://127.0.0.1:{free_port()}")
    broker = broker_of(create_app(settings))
    seen = Seen()

    @broker.subscriber(topics.PAPERS_NORMALIZED)
    async def normalized(body: Any) -> None:
        seen.normalized.append(body)

    @broker.subscriber(dead_letter_topic(topics.HARVEST_RAW))
    async def parked(message: KafkaMessage) -> None:
        seen.parked.append(message)

    client: AsyncMongoClient = AsyncMongoClient(settings.mongodb_url, serverSelectionTimeoutMS=300)
    try:
        async with TestKafkaBroker(broker) as in_memory:
            resources = build_resources(settings, Clients(client["unused"]), broker)  # the lifespan's wiring
            provide(in_memory.context, resources)
            yield in_memory, seen
    finally:
        await client.close()


async def test_records_that_do_not_parse_are_parked_with_the_reason(memory: tuple[Any, Seen]) -> None:
    broker, seen = memory
    broken = raw_record("acl", "broken-1", "acl_xml", "<volume collection='2024.acl' id='long'><meta>")
    unknown = b'{"source": "gopher"}'
    await broker.publish_batch(broken, unknown, topic=topics.HARVEST_RAW)
    assert [m.body for m in seen.parked] == [broken.model_dump_json().encode(), unknown]  # the original bytes
    reasons = [m.headers["x-dlq-reason"] for m in seen.parked]
    assert "not XML" in reasons[0] and "ValidationError" in reasons[1]
    assert {m.headers["x-dlq-service"] for m in seen.parked} == {"normalizer"}
    assert seen.normalized == []


async def test_front_matter_is_set_aside_without_an_event_or_a_dead_letter(memory: tuple[Any, Seen]) -> None:
    broker, seen = memory
    front_matter = [r for r in acl_records() if r.record_id.endswith(".0")]
    before = REGISTRY.get_sample_value("papertrail_normalizer_records_set_aside_total", {"reason": "front_matter"}) or 0
    await broker.publish_batch(*front_matter, topic=topics.HARVEST_RAW)
    after = REGISTRY.get_sample_value("papertrail_normalizer_records_set_aside_total", {"reason": "front_matter"})
    assert after == before + len(front_matter)
    assert seen.parked == [] and seen.normalized == []
