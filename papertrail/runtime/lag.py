"""Consumer lag: how far each consumer group of a service is behind the end of the topics it reads, as a gauge.

Every service that consumes starts one `LagMonitor` in its lifespan. It reads the broker's subscribers, so a
new subscriber is watched without touching this module; subscribers without a group (the matcher's follow
index reads every partition itself) commit nothing and have no lag.
"""

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from papertrail.runtime.metrics import CONSUMER_LAG
from papertrail.runtime.settings import InfraSettings

log = logging.getLogger("papertrail.lag")

LAG_INTERVAL_S = 15.0


def watched_groups(subscribers: Iterable[Any]) -> dict[str, str]:
    """topic → consumer group of every grouped subscriber (FastStream Kafka subscribers: `topic_names`, `group_id`)."""
    return {topic: s.group_id for s in subscribers if getattr(s, "group_id", None) for topic in s.topic_names}


def lag_by_topic(
    ends: Mapping[TopicPartition, int],
    committed: Mapping[TopicPartition, int],
    beginnings: Mapping[TopicPartition, int],
) -> dict[str, int]:
    """Sum over partitions of end − committed; a partition the group never committed counts from its beginning
    (the groups start at the earliest offset)."""
    lag: dict[str, int] = {}
    for partition, end in ends.items():
        done = committed.get(partition, beginnings.get(partition, 0))
        lag[partition.topic] = lag.get(partition.topic, 0) + max(0, end - done)
    return lag


class LagMonitor:
    """Refreshes papertrail_consumer_lag{service,topic} every `interval_s` until stopped.

    Its own admin client and group-less consumer read offsets only; they never join the service's groups. If the
    broker goes away the clients are dropped and made again at the next tick, so a broker restart heals itself.
    """

    def __init__(
        self, settings: InfraSettings, service: str, groups: Mapping[str, str], interval_s: float = LAG_INTERVAL_S
    ) -> None:
        self.bootstrap = settings.kafka_bootstrap_servers.split(",")
        self.timeout_ms = int(settings.startup_timeout_s * 1000)
        self.service = service
        self.groups = dict(groups)
        self.interval_s = interval_s
        self.task: asyncio.Task[None] | None = None
        self._admin: AIOKafkaAdminClient | None = None
        self._consumer: AIOKafkaConsumer | None = None
        for topic in self.groups:
            CONSUMER_LAG.labels(service, topic)  # the series exists (at 0) before the first measurement

    def start(self) -> "LagMonitor":
        if self.groups:
            self.task = asyncio.create_task(self._run(), name=f"consumer-lag-{self.service}")
        return self

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self._close()

    async def measure(self) -> dict[str, int]:
        """One reading of every watched topic; sets the gauge and returns topic → lag."""
        admin, consumer = await self._clients()
        described = await admin.describe_topics(list(self.groups))
        partitions = [
            TopicPartition(topic["topic"], p["partition"])
            for topic in described
            if not topic.get("error_code")
            for p in topic["partitions"]
        ]
        if not partitions:
            return {}
        ends = await consumer.end_offsets(partitions)
        beginnings = await consumer.beginning_offsets(partitions)
        committed: dict[TopicPartition, int] = {}
        for group in set(self.groups.values()):
            offsets = await admin.list_consumer_group_offsets(group)
            committed |= {tp: meta.offset for tp, meta in offsets.items() if meta.offset >= 0}
        lag = lag_by_topic(ends, committed, beginnings)
        for topic, value in lag.items():
            CONSUMER_LAG.labels(self.service, topic).set(value)
        return lag

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self.measure(), timeout=max(self.interval_s, 5.0))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # broker away or slow: keep the last reading, reconnect next time
                log.warning("consumer lag not measured", extra={"error": f"{type(exc).__name__}: {exc}"})
                await self._close()
            await asyncio.sleep(self.interval_s)

    async def _clients(self) -> tuple[AIOKafkaAdminClient, AIOKafkaConsumer]:
        if self._admin is None or self._consumer is None:
            await self._close()
            admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=self.timeout_ms)
            consumer = AIOKafkaConsumer(
                bootstrap_servers=self.bootstrap, enable_auto_commit=False, request_timeout_ms=self.timeout_ms
            )
            await admin.start()
            self._admin = admin
            await consumer.start()
            self._consumer = consumer
        return self._admin, self._consumer

    async def _close(self) -> None:
        admin, consumer, self._admin, self._consumer = self._admin, self._consumer, None, None
        for client in (consumer, admin):
            if client is not None:
                with contextlib.suppress(Exception):
                    await (client.stop() if isinstance(client, AIOKafkaConsumer) else client.close())
