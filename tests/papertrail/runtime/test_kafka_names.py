"""KAFKA_NAME_PREFIX names every topic and consumer group on the broker: installations or test runs sharing one
Kafka never read each other's events or offsets, while the code names topics as docs/events.md does."""

import uuid

import pytest
from aiokafka.admin import AIOKafkaAdminClient

from papertrail.runtime.dlq import dead_letter_topics
from papertrail.runtime.kafka import batch_options, consumer_options, ensure_topics, make_broker
from papertrail.runtime.settings import InfraSettings
from schemas import topics
from tests.support.servers import Servers


def test_the_broker_names_topics_and_groups_with_the_prefix() -> None:
    broker = make_broker(InfraSettings(kafka_name_prefix="staging."), "normalizer")
    raw = broker.subscriber(topics.HARVEST_RAW, **batch_options("normalizer", 10, 100))
    follows = broker.subscriber(topics.FOLLOWS_CHANGED, **consumer_options("matcher", shared=False))
    normalized = broker.publisher(topics.PAPERS_NORMALIZED)
    assert raw.topic_names == ["staging.harvest.raw.v1"] and raw.group_id == "staging.papertrail-normalizer"
    assert follows.topic_names == ["staging.follows.changed.v1"] and follows.group_id is None
    assert normalized.topic == "staging.papers.normalized.v1"


def test_no_prefix_keeps_the_documented_names() -> None:
    broker = make_broker(InfraSettings(), "normalizer")
    raw = broker.subscriber(topics.HARVEST_RAW, **batch_options("normalizer", 10, 100))
    assert raw.topic_names == [topics.HARVEST_RAW] and raw.group_id == "papertrail-normalizer"
    assert broker.publisher(topics.PAPERS_NORMALIZED).topic == topics.PAPERS_NORMALIZED


def test_dead_letter_commands_see_only_their_own_prefix() -> None:
    on_broker = {"a.harvest.raw.v1.dlq", "b.harvest.raw.v1.dlq", "harvest.raw.v1.dlq", "a.harvest.raw.v1"}
    assert dead_letter_topics(on_broker, None, "a.") == ["a.harvest.raw.v1.dlq"]
    assert dead_letter_topics(on_broker, topics.HARVEST_RAW, "b.") == ["b.harvest.raw.v1.dlq"]
    assert dead_letter_topics(on_broker, "harvest.raw.v1.dlq", "") == ["harvest.raw.v1.dlq"]


def test_a_prefix_kafka_cannot_name_is_refused() -> None:
    with pytest.raises(ValueError, match="kafka_name_prefix"):
        InfraSettings(kafka_name_prefix="runs/1")


@pytest.mark.integration
async def test_topics_are_created_under_the_prefix(servers: Servers) -> None:
    prefix = f"names-{uuid.uuid4().hex[:8]}."
    settings = InfraSettings(kafka_bootstrap_servers=servers.kafka_bootstrap_servers, kafka_name_prefix=prefix)
    await ensure_topics(settings, [topics.PAPERS_NEW])
    admin = AIOKafkaAdminClient(bootstrap_servers=servers.kafka_bootstrap_servers)
    await admin.start()
    try:
        created = {t for t in await admin.list_topics() if t.startswith(prefix)}
    finally:
        await admin.close()
    assert created == {f"{prefix}papers.new.v1", f"{prefix}papers.new.v1.dlq"}
