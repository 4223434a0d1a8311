"""The summarizer's app on FastStream's in-memory broker, no servers: events that break the schema are parked on
papers.normalized.v1.dlq with the reason and original bytes, and nothing is passed on for them. (SummarizerResources,
holding and passing papers on run against real servers: test_summarizing.py, test_public_topic.py.)"""

from collections.abc import AsyncIterator
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage
from pymongo import AsyncMongoClient

from papertrail.embedders import open_embedder
from papertrail.kafka import dead_letter_topic
from papertrail.service import provide
from schemas import topics
from services.summarizer.app import SummarizerResources, create_app
from services.summarizer.settings import SummarizerSettings
from services.summarizer.store import SummaryStore, VectorStore
from services.summarizer.summarizing import Summarizer
from services.summarizer.vectors import PaperVectors
from tests.conftest import broker_of, free_port, publisher_of


@pytest.fixture
async def memory() -> AsyncIterator[tuple[Any, dict[str, list[Any]]]]:
    """The app's broker in memory over a MongoDB address where nothing listens, and what reached its outputs."""
    settings = SummarizerSettings(mongodb_url=f"mongodb://127.0.0.1:{free_port()}")
    broker = broker_of(create_app(settings))
    seen: dict[str, list[Any]] = {topics.PAPERS_ENRICHED: [], topics.PAPERS_NEW: [], "parked": []}
    broker.subscriber(topics.PAPERS_ENRICHED)(lambda body: seen[topics.PAPERS_ENRICHED].append(body))
    broker.subscriber(topics.PAPERS_NEW)(lambda body: seen[topics.PAPERS_NEW].append(body))

    @broker.subscriber(dead_letter_topic(topics.PAPERS_NORMALIZED))
    async def parked(message: KafkaMessage) -> None:
        seen["parked"].append(message)

    client: AsyncMongoClient = AsyncMongoClient(settings.mongodb_url, serverSelectionTimeoutMS=300)
    try:
        async with TestKafkaBroker(broker) as in_memory:
            summarizer = Summarizer(SummaryStore(client["unused"]), None, daily_token_budget=0)
            enriched, new = publisher_of(broker, topics.PAPERS_ENRICHED), publisher_of(broker, topics.PAPERS_NEW)
            vectors = PaperVectors(VectorStore(client["unused"]), open_embedder(settings))
            resources = SummarizerResources(settings, summarizer, enriched, new, broker.dead_letters, vectors)
            provide(in_memory.context, resources)
            yield in_memory, seen
    finally:
        await client.close()


async def test_events_that_break_the_schema_are_parked_and_passed_on_nowhere(memory: tuple[Any, Any]) -> None:
    broker, seen = memory
    await broker.publish_batch(b'{"paper": {"id": 1}}', b"not json", topic=topics.PAPERS_NORMALIZED)
    assert [m.body for m in seen["parked"]] == [b'{"paper": {"id": 1}}', b"not json"]
    assert all("ValidationError" in m.headers["x-dlq-reason"] for m in seen["parked"])
    assert {m.headers["x-dlq-service"] for m in seen["parked"]} == {"summarizer"}
    assert seen[topics.PAPERS_ENRICHED] == [] and seen[topics.PAPERS_NEW] == []
