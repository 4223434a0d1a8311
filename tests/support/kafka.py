"""Kafka helpers for tests and benchmarks: a service app's broker and publishers, publish raw records, follow a
group's progress."""

import asyncio
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from schemas.events import RawRecord


def broker_of(app: Any) -> Any:
    """The Kafka broker of a service's app as its create_app made it (FastStream's AsgiFastStream, or the query
    service's FastAPI app, which keeps it in its state)."""
    broker = app.state.broker if hasattr(app, "state") else app.broker
    assert broker is not None
    return broker


def publisher_of(broker: Any, topic: str) -> Any:
    """The publisher a service's create_app declared on its broker for `topic`."""
    return next(p for p in broker.publishers if p.topic == topic)


async def publish_raw(bootstrap: str, topic: str, records: list[RawRecord]) -> None:
    """Publish as the harvester does: key `source:record_id`, value the RawRecord JSON; wait for every ack."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20, max_batch_size=1 << 20)
    await producer.start()
    try:
        futures = [
            await producer.send(topic, r.model_dump_json().encode(), key=f"{r.source}:{r.record_id}".encode())
            for r in records
        ]
        for future in futures:
            await future
    finally:
        await producer.stop()


async def end_offsets(bootstrap: str, topic: str) -> dict[TopicPartition, int]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or [])]
        return dict(await consumer.end_offsets(partitions)) if partitions else {}
    finally:
        await asyncio.sleep(0.01)  # aiokafka's stop() right after start() raises CancelledError from a task not yet run
        await consumer.stop()


async def committed(bootstrap: str, topic: str, group: str) -> dict[TopicPartition, int]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    await consumer.start()
    try:
        partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or [])]
        return {tp: (await consumer.committed(tp)) or 0 for tp in partitions}
    finally:
        await consumer.stop()


async def skip_to_end(bootstrap: str, topic: str, group: str) -> None:
    """Commit the group's offsets at the topic's end, so it ignores records other tests left there."""
    ends = await end_offsets(bootstrap, topic)
    if not ends:
        return
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    await consumer.start()
    try:
        consumer.assign(list(ends))
        await consumer.commit(ends)
    finally:
        await consumer.stop()


async def caught_up(bootstrap: str, topic: str, group: str) -> bool:
    """Every record on the topic has been handled and committed by the group."""
    ends = await end_offsets(bootstrap, topic)
    done = await committed(bootstrap, topic, group)
    return all(done.get(tp, 0) >= end for tp, end in ends.items())


async def stable_members(bootstrap: str, group: str) -> int:
    """How many members share the group's partitions, once it is stable (0 while it is rebalancing)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        (response,) = await admin.describe_consumer_groups([group])
    finally:
        await admin.close()
    (_, _, state, _, _, members, *_) = response.groups[0]
    assigned = [m for m in members if m[-1]]  # member_assignment: empty until the group synced
    return len(assigned) if state == "Stable" and len(assigned) == len(members) else 0


async def keys_on(bootstrap: str, topic: str) -> list[str]:
    """Every key on the topic so far, partition by partition."""
    ends = await end_offsets(bootstrap, topic)
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        consumer.assign(list(ends))
        await consumer.seek_to_beginning(*ends)
        keys: list[str] = []

        async def behind() -> bool:
            return any([await consumer.position(tp) < end for tp, end in ends.items()])

        while await behind():
            for records in (await consumer.getmany(timeout_ms=1000)).values():
                keys += [r.key.decode() for r in records if r.key]
        return keys
    finally:
        await consumer.stop()
