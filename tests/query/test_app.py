"""The query service's consumers on FastStream's in-memory broker, no servers: enriched papers that break the schema
are parked on papers.enriched.v1.dlq and nothing is indexed for them. (Indexing, withdrawals, source runs and
retagging run against real servers: test_api.py, test_topic_retag.py, tests/integration/.)"""

from typing import Any

from faststream.kafka import TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage
from meilisearch_python_sdk import AsyncClient
from pymongo import AsyncMongoClient

from papertrail.runtime.kafka import dead_letter_topic
from papertrail.runtime.service import Clients, provide
from schemas import topics
from services.query.app import build_resources, create_app
from services.query.settings import QuerySettings
from tests.support.kafka import broker_of
from tests.support.servers import free_port


async def test_enriched_papers_that_break_the_schema_are_parked_and_not_indexed() -> None:
    settings = QuerySettings(
        mongodb_url=f"mongodb://127.0.0.1:{free_port()}", meili_url=f"http://127.0.0.1:{free_port()}"
    )
    broker = broker_of(create_app(settings))
    parked: list[Any] = []

    @broker.subscriber(dead_letter_topic(topics.PAPERS_ENRICHED))
    async def dead_letter(message: KafkaMessage) -> None:
        parked.append(message)

    mongo: AsyncMongoClient = AsyncMongoClient(settings.mongodb_url, serverSelectionTimeoutMS=300)
    search = AsyncClient(settings.meili_url, "key", timeout=1)  # a paper indexed would fail here
    try:
        async with TestKafkaBroker(broker) as in_memory:
            resources = build_resources(settings, Clients(mongo["unused"], search), broker)
            provide(in_memory.context, resources)
            await in_memory.publish_batch(b'{"kind": "new"}', b"[1, 2]", topic=topics.PAPERS_ENRICHED)
    finally:
        await search.aclose()
        await mongo.close()
    assert [m.body for m in parked] == [b'{"kind": "new"}', b"[1, 2]"]
    assert {m.headers["x-dlq-service"] for m in parked} == {"query"}
    assert all("ValidationError" in m.headers["x-dlq-reason"] for m in parked)
