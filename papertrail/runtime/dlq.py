"""`papertrail dlq list|replay`: show dead letters, and re-drive them to the topic they came from.

Dead letters are written by kafka.DeadLetterPolicy: the original bytes as value, the key kept, and the
reason and origin in headers (x-dlq-reason, x-dlq-topic, x-dlq-partition, x-dlq-offset, x-dlq-service,
x-dlq-failed-at). `list` reads every dead-letter topic (or one) from the start; `replay` re-publishes each
dead letter not replayed before (its progress is the consumer group `papertrail-dlq-replay`) with its
original bytes and key to its x-dlq-topic, where the service meets it again, fixed or not.
"""

import asyncio
from dataclasses import dataclass

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from papertrail.runtime.kafka import DLQ_SUFFIX, kafka_name
from papertrail.runtime.settings import InfraSettings

REPLAY_GROUP = "papertrail-dlq-replay"


@dataclass(frozen=True, slots=True)
class DeadLetter:
    topic: str  # the dead-letter topic
    partition: int
    offset: int
    key: bytes | None
    value: bytes
    headers: dict[str, str]

    @property
    def origin(self) -> str:
        return self.headers.get("x-dlq-topic") or self.topic.removesuffix(DLQ_SUFFIX)


def dead_letter_topics(all_topics: set[str], topic: str | None, prefix: str = "") -> list[str]:
    """`--topic` may name the source topic or its dead-letter topic; none means every dead-letter topic. Names are
    PaperTrail's (docs/events.md): on the broker they carry KAFKA_NAME_PREFIX, and only topics with it count."""
    if topic:
        wanted = prefix + (topic if topic.endswith(DLQ_SUFFIX) else topic + DLQ_SUFFIX)
        return [wanted] if wanted in all_topics else []
    return sorted(t for t in all_topics if t.startswith(prefix) and t.endswith(DLQ_SUFFIX))


async def _topics(settings: InfraSettings) -> set[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap_servers.split(","))
    await admin.start()
    try:
        return set(await admin.list_topics())
    finally:
        await admin.close()


async def read_dead_letters(
    settings: InfraSettings, topic: str | None, *, group: str | None = None
) -> tuple[list[DeadLetter], dict[TopicPartition, int]]:
    """Every dead letter up to now, from the start or from where `group` stopped; and the end offsets read to."""
    names = dead_letter_topics(await _topics(settings), topic, settings.kafka_name_prefix)
    if not names:
        return [], {}
    consumer = AIOKafkaConsumer(
        bootstrap_servers=settings.kafka_bootstrap_servers.split(","), group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    letters: list[DeadLetter] = []
    try:
        partitions = [TopicPartition(t, p) for t in names for p in sorted(consumer.partitions_for_topic(t) or [])]
        consumer.assign(partitions)
        ends = await consumer.end_offsets(partitions)
        for tp in partitions:
            position = await consumer.committed(tp) if group else None
            if position is None:
                await consumer.seek_to_beginning(tp)
            else:
                consumer.seek(tp, position)
        pending = {tp for tp in partitions if await consumer.position(tp) < ends[tp]}
        while pending:
            batches = await consumer.getmany(*pending, timeout_ms=1000)
            for tp, messages in batches.items():
                for m in messages:
                    if m.offset < ends[tp]:
                        headers = {k: v.decode("utf-8", "replace") for k, v in m.headers}
                        letters.append(DeadLetter(tp.topic, tp.partition, m.offset, m.key, m.value or b"", headers))
            pending = {tp for tp in pending if await consumer.position(tp) < ends[tp]}
    finally:
        await asyncio.sleep(0.01)  # aiokafka's stop() right after start() raises CancelledError from a task not yet run
        await consumer.stop()
    return letters, dict(ends)


async def _commit(settings: InfraSettings, group: str, offsets: dict[TopicPartition, int]) -> None:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=settings.kafka_bootstrap_servers.split(","), group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    try:
        consumer.assign(list(offsets))
        await consumer.commit(offsets)
    finally:
        await consumer.stop()


async def replay_dead_letters(settings: InfraSettings, topic: str | None) -> list[DeadLetter]:
    """Re-publish the dead letters not replayed yet (original bytes and key) to the topic each came from.

    The replay group's offsets advance only after the broker acknowledged every re-published record.
    """
    group = kafka_name(settings, REPLAY_GROUP)
    letters, read_to = await read_dead_letters(settings, topic, group=group)
    if letters:
        producer = AIOKafkaProducer(bootstrap_servers=settings.kafka_bootstrap_servers.split(","), acks="all")
        await producer.start()
        try:
            futures = [await producer.send(letter.origin, letter.value, key=letter.key) for letter in letters]
            await asyncio.gather(*futures)
        finally:
            await producer.stop()
    if read_to:
        await _commit(settings, group, read_to)
    return letters


def format_letter(letter: DeadLetter) -> str:
    h = letter.headers
    key = (letter.key or b"").decode("utf-8", "replace")
    preview = letter.value[:120].decode("utf-8", "replace").replace("\n", " ")
    return (
        f"{letter.topic}[{letter.partition}]@{letter.offset}  from {letter.origin}"
        f"[{h.get('x-dlq-partition', '?')}]@{h.get('x-dlq-offset', '?')}  service={h.get('x-dlq-service', '?')}"
        f"  at={h.get('x-dlq-failed-at', '?')}\n    key={key}\n    reason={h.get('x-dlq-reason', '?')}\n"
        f"    value={preview}"
    )


def run(action: str, topic: str | None) -> int:
    """The CLI: print the dead letters, or replay them and say how many went where."""
    settings = InfraSettings()
    if action == "list":
        letters, _ = asyncio.run(read_dead_letters(settings, topic))
        for letter in letters:
            print(format_letter(letter))
        print(f"{len(letters)} dead letter(s)")
    else:
        letters = asyncio.run(replay_dead_letters(settings, topic))
        for origin, count in sorted(_count_by_origin(letters).items()):
            print(f"replayed {count} to {origin}")
        print(f"{len(letters)} dead letter(s) replayed")
    return 0


def _count_by_origin(letters: list[DeadLetter]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for letter in letters:
        counts[letter.origin] = counts.get(letter.origin, 0) + 1
    return counts
