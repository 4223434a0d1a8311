"""Topics are created with an explicit retention, dead-letter topics with a longer one, and the broker applies it."""

import uuid

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from papertrail.kafka import dead_letter_topic, ensure_topics, retention_ms, topic_configs
from papertrail.settings import InfraSettings
from tests.conftest import Servers, wait_until_async


def test_dead_letters_are_kept_longer_than_events() -> None:
    settings = InfraSettings(topic_retention_hours=24, dead_letter_retention_hours=720)
    assert retention_ms(settings, "papers.new.v1") == 86_400_000
    assert retention_ms(settings, dead_letter_topic("papers.new.v1")) == 2_592_000_000
    assert topic_configs(settings, dead_letter_topic("papers.new.v1"))["segment.ms"] == "86400000"  # rolled daily
    short = InfraSettings(topic_retention_hours=0.5)
    assert topic_configs(short, "papers.new.v1") == {"retention.ms": "1800000", "segment.ms": "1800000"}


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
