"""Topics are created with an explicit retention (dead-letter topics with a longer one) and replication factor, the
broker applies them, and a topic the broker refuses to create stops the service with the reason."""

import uuid

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from papertrail.runtime.kafka import (
    TopicsNotCreated,
    dead_letter_topic,
    ensure_topics,
    refused_topics,
    retention_ms,
    topic_configs,
)
from papertrail.runtime.settings import InfraSettings
from tests.support.servers import Servers
from tests.support.waiting import wait_until_async


def test_dead_letters_are_kept_longer_than_events() -> None:
    settings = InfraSettings(topic_retention_hours=24, dead_letter_retention_hours=720)
    assert retention_ms(settings, "papers.new.v1") == 86_400_000
    assert retention_ms(settings, dead_letter_topic("papers.new.v1")) == 2_592_000_000
    assert topic_configs(settings, dead_letter_topic("papers.new.v1"))["segment.ms"] == "86400000"  # rolled daily
    short = InfraSettings(topic_retention_hours=0.5)
    assert topic_configs(short, "papers.new.v1") == {"retention.ms": "1800000", "segment.ms": "1800000"}


def test_only_real_refusals_of_a_create_topics_answer_count() -> None:
    answer = [
        ("created", 0, None),
        ("raced", 36, "Topic 'raced' already exists."),  # another instance was first
        ("slow", 7, None),  # timed out: retriable, Kafka goes on creating it
        ("replicas", 38, "only 1 broker(s)"),
        ("policy", 44),  # CreateTopics v0 answers carry no message
    ]
    assert refused_topics(answer) == [
        "replicas: InvalidReplicationFactorError: only 1 broker(s)",
        "policy: PolicyViolationError: Request parameters do not satisfy the configured policy.",
    ]


@pytest.mark.integration
async def test_a_replication_factor_the_broker_cannot_keep_stops_the_service(servers: Servers) -> None:
    """One broker cannot hold three copies: the service must not start on a topic it did not get (aiokafka hands
    the broker's refusal back in the answer instead of raising it)."""
    topic = f"replicated.{uuid.uuid4().hex[:8]}"
    settings = InfraSettings(kafka_bootstrap_servers=servers.kafka_bootstrap_servers, topic_replication_factor=3)
    with pytest.raises(TopicsNotCreated, match=r"InvalidReplicationFactorError.*TOPIC_REPLICATION_FACTOR=3") as refusal:
        await ensure_topics(settings, [topic])
    assert topic in str(refusal.value) and dead_letter_topic(topic) in str(refusal.value)
    await ensure_topics(InfraSettings(kafka_bootstrap_servers=servers.kafka_bootstrap_servers), [topic])  # 1 is kept


@pytest.mark.integration
async def test_a_topic_keeps_events_only_for_its_retention(servers: Servers) -> None:
    topic = f"retention.{uuid.uuid4().hex[:8]}"
    settings = InfraSettings(
        kafka_bootstrap_servers=servers.kafka_bootstrap_servers,
        topic_partitions=1,
        topic_retention_hours=2 / 3600,  # two seconds
        dead_letter_retention_hours=1,
    )
    await ensure_topics(settings, [topic])
    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers, acks="all")
    consumer = AIOKafkaConsumer(bootstrap_servers=servers.kafka_bootstrap_servers, group_id=None)
    await producer.start()
    await consumer.start()
    events, dead_letters = TopicPartition(topic, 0), TopicPartition(dead_letter_topic(topic), 0)
    try:
        for n in range(50):
            await producer.send_and_wait(topic, f"event {n}".encode())
            await producer.send_and_wait(dead_letters.topic, f"dead letter {n}".encode())

        async def trimmed() -> bool:
            await producer.send_and_wait(topic, b"later event")  # brokers trim as they are written to
            return (await consumer.beginning_offsets([events]))[events] >= 50

        await wait_until_async(trimmed, 60, f"{topic} to drop events older than its retention")
        assert (await consumer.beginning_offsets([dead_letters]))[dead_letters] == 0  # kept for an hour
    finally:
        await producer.stop()
        await consumer.stop()
