"""papertrail_consumer_lag: end offset minus the group's committed offset per topic, over a real Kafka broker."""

import uuid

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from prometheus_client import REGISTRY

from papertrail.runtime.kafka import ensure_topics
from papertrail.runtime.lag import LagMonitor, lag_by_topic, watched_groups
from papertrail.runtime.settings import InfraSettings
from tests.support.kafka import broker_of
from tests.support.servers import Servers


def test_lag_sums_partitions_and_counts_uncommitted_partitions_from_their_beginning() -> None:
    a0, a1, b0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)
    ends = {a0: 10, a1: 7, b0: 5}
    assert lag_by_topic(ends, {a0: 4, a1: 7}, {a0: 0, a1: 0, b0: 2}) == {"a": 6, "b": 3}
    assert lag_by_topic(ends, {a0: 12}, {}) == {"a": 7, "b": 5}  # never negative


def test_each_service_watches_its_grouped_subscribers() -> None:
    from services.matcher.app import create_app as create_matcher
    from services.matcher.settings import MatcherSettings
    from services.normalizer.app import create_app as create_normalizer
    from services.normalizer.settings import NormalizerSettings

    normalizer = broker_of(create_normalizer(NormalizerSettings()))
    matcher = broker_of(create_matcher(MatcherSettings()))

    assert watched_groups(normalizer.subscribers) == {"harvest.raw.v1": "papertrail-normalizer"}
    # the follow index reads follows.changed.v1 without a group: it commits nothing and has no lag
    assert watched_groups(matcher.subscribers) == {
        "papers.enriched.v1": "papertrail-matcher",
        "follows.matched.v1": "papertrail-matcher-webhooks",
        "papers.withdrawn.v1": "papertrail-matcher-withdrawals",
    }


@pytest.mark.integration
async def test_lag_follows_what_the_group_commits(servers: Servers) -> None:
    topic, group = f"lagtest.{uuid.uuid4().hex[:8]}.v1", f"lagtest-{uuid.uuid4().hex[:6]}"
    settings = InfraSettings(kafka_bootstrap_servers=servers.kafka_bootstrap_servers, topic_partitions=3)
    await ensure_topics(settings, [topic])
    monitor = LagMonitor(settings, "lagtest", {topic: group})

    def gauge() -> float | None:
        return REGISTRY.get_sample_value("papertrail_consumer_lag", {"service": "lagtest", "topic": topic})

    try:
        assert gauge() == 0  # the series exists before the first reading
        assert await monitor.measure() == {topic: 0}
        producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers)
        await producer.start()
        try:
            for i in range(12):
                await producer.send_and_wait(topic, b"x", key=str(i).encode())
        finally:
            await producer.stop()
        assert await monitor.measure() == {topic: 12}
        assert gauge() == 12

        consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=servers.kafka_bootstrap_servers,
            group_id=group,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        await consumer.start()
        try:
            handled = 0
            while handled < 5:
                batch = await consumer.getmany(timeout_ms=1000, max_records=5 - handled)
                for partition, records in batch.items():
                    handled += len(records)
                    await consumer.commit({partition: records[-1].offset + 1})
        finally:
            await consumer.stop()
        assert await monitor.measure() == {topic: 7}
        assert gauge() == 7
    finally:
        await monitor.stop()
