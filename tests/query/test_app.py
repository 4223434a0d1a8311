"""The query service's consumers on FastStream's in-memory broker, no servers: enriched papers that break the schema
are parked on papers.enriched.v1.dlq and nothing is indexed for them. (Indexing, withdrawals, source runs and
retagging run against real servers: test_api.py, test_topic_retag.py, tests/integration/.)"""

from typing import Any

from faststream.kafka import TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage
from meilisearch_python_sdk import AsyncClient
from pymongo import AsyncMongoClient

from papertrail.follows.catalogue import load_catalogue
from papertrail.kafka import dead_letter_topic
from papertrail.service import provide
from schemas import topics
from services.query.app import create_app
from services.query.deps import QueryResources
from services.query.index import PaperIndex
from services.query.indexer.topic_tags import TopicTagger
from services.query.library.importing import ImportJobs
from services.query.library.recommend import ReaderModels
from services.query.library.store import LibraryStore
from services.query.settings import QuerySettings
from services.query.store import QueryStore
from tests.conftest import broker_of, free_port, publisher_of


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
            resources = QueryResources(
                settings,
                PaperIndex(search, settings.index_name, task_timeout_s=1),
                QueryStore(mongo["unused"]),
                TopicTagger(load_catalogue()),
                publisher_of(broker, topics.FOLLOWS_CHANGED),
                broker.dead_letters,
                library := LibraryStore(mongo["unused"]),
                ImportJobs(mongo["unused"], library, chunk_size=500, max_entries=50_000),
                ReaderModels(mongo["unused"], settings.model_key, settings.embedding_dimensions, 20, 60),
            )
            provide(in_memory.context, resources)
            await in_memory.publish_batch(b'{"kind": "new"}', b"[1, 2]", topic=topics.PAPERS_ENRICHED)
    finally:
        await search.aclose()
        await mongo.close()
    assert [m.body for m in parked] == [b'{"kind": "new"}', b"[1, 2]"]
    assert {m.headers["x-dlq-service"] for m in parked} == {"query"}
    assert all("ValidationError" in m.headers["x-dlq-reason"] for m in parked)
