"""The one Kafka setup: broker options, topic creation, consumer options and the dead-letter policy."""

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TypeVar

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError, for_code
from faststream import AckPolicy
from faststream.exceptions import FastStreamException
from faststream.kafka import KafkaBroker
from faststream.kafka.publisher.usecase import DefaultPublisher
from faststream.middlewares import BaseMiddleware
from pydantic import BaseModel, ValidationError

from papertrail.runtime.metrics import DEAD_LETTERS, HANDLE_SECONDS, MESSAGES_HANDLED
from papertrail.runtime.settings import InfraSettings

log = logging.getLogger("papertrail.kafka")

Publisher = DefaultPublisher  # what broker.publisher(topic) declares: a service's resources hold its publishers
DLQ_SUFFIX = ".dlq"
M = TypeVar("M", bound=BaseModel)
RETRY_DELAY_S = 1.0
# The producer refuses values above 1 MB (max_request_size); a dead letter keeps at most this much of the original.
DLQ_MAX_VALUE_BYTES = 512 * 1024


class TopicsNotCreated(Exception):
    """The broker refused to create a topic the service needs (too few brokers for the replication factor, a
    topic policy, no permission)."""


class UnprocessableMessage(Exception):
    """Raised by a handler for a message that will never succeed (unparseable record, broken invariant)."""


class DependencyRefused(Exception):
    """Raised by a handler when a dependency refuses the work for a reason of its own (a setting, a model), not the
    message's: the message is redelivered after a pause, as when the dependency is unreachable, rather than parked,
    until an operator fixes the cause (the handler says so loudly: a log line at error, a metric, an alert)."""


def kafka_name(settings: InfraSettings, name: str) -> str:
    """A topic's or consumer group's name on the broker: KAFKA_NAME_PREFIX, then the name."""
    return settings.kafka_name_prefix + name


def dead_letter_topic(topic: str) -> str:
    return topic + DLQ_SUFFIX


def is_transient(exc: BaseException) -> bool:
    """Errors worth redelivering: a dependency was unreachable or slow, the message itself is fine."""
    import httpx
    from aiokafka.errors import MessageSizeTooLargeError, RecordTooLargeError
    from meilisearch_python_sdk.errors import MeilisearchCommunicationError, MeilisearchTimeoutError
    from pymongo.errors import ConnectionFailure, PyMongoError

    if isinstance(exc, DependencyRefused):
        return True
    if isinstance(exc, MessageSizeTooLargeError | RecordTooLargeError):
        return False  # the same bytes are too large on every attempt: retrying would block the partition for good
    if isinstance(exc, ConnectionFailure | KafkaError | TimeoutError | OSError | httpx.TransportError):
        return True
    if isinstance(exc, MeilisearchCommunicationError | MeilisearchTimeoutError):
        return True
    # Write conflicts and the like are retryable; duplicate keys and bad documents are not.
    return isinstance(exc, PyMongoError) and exc.has_error_label("RetryableWriteError")


class DeadLetterPolicy:
    """Middleware factory: failed messages go to `<topic>.dlq` (original bytes, reason in headers) or retry.

    A message whose handling raised a transient error is redelivered after a pause; anything else is a
    message that can never succeed, so it is parked with its reason and the partition moves on.
    """

    def __init__(self, service: str) -> None:
        self.service = service
        self.broker: KafkaBroker | None = None

    def __call__(self, msg: Any, /, *, context: Any) -> "_DeadLetterMiddleware":
        return _DeadLetterMiddleware(msg, context=context, policy=self)

    async def keep_valid(self, records: Sequence[Any], model: type[M]) -> list[tuple[Any, M]]:
        """A batch's (record, event) pairs that validate against `model`; the others are parked with the reason."""
        valid, invalid = split_valid(records, model)
        for record, error in invalid:
            await self.park(record, error)
        return valid

    async def park(self, record: Any, exc: BaseException) -> None:
        """Publish the record's original bytes to its dead-letter topic with the reason in headers."""
        assert self.broker is not None, "DeadLetterPolicy.broker is set by make_broker"
        reason = f"{type(exc).__name__}: {exc}"[:4000]
        headers = {
            "x-dlq-reason": reason,
            "x-dlq-service": self.service,
            "x-dlq-topic": record.topic,
            "x-dlq-partition": str(record.partition),
            "x-dlq-offset": str(record.offset),
            "x-dlq-failed-at": datetime.now(UTC).isoformat(),
        }
        value = record.value or b""
        if len(value) > DLQ_MAX_VALUE_BYTES:  # too large to publish whole: keep the head, say what was cut
            headers["x-dlq-truncated-from-bytes"] = str(len(value))
            headers["x-dlq-sha256"] = hashlib.sha256(value).hexdigest()
            value = value[:DLQ_MAX_VALUE_BYTES]
        await self.broker.publish(value, dead_letter_topic(record.topic), key=record.key, headers=headers)
        DEAD_LETTERS.labels(self.service, record.topic).inc()
        log.warning(
            "message dead-lettered",
            extra={"topic": record.topic, "partition": record.partition, "offset": record.offset, "reason": reason},
        )


class _DeadLetterMiddleware(BaseMiddleware):
    def __init__(self, msg: Any, /, *, context: Any, policy: DeadLetterPolicy) -> None:
        super().__init__(msg, context=context)
        self.policy = policy
        self.started = time.perf_counter()

    async def after_processed(
        self,
        exc_type: type[BaseException] | None = None,
        exc_val: BaseException | None = None,
        exc_tb: TracebackType | None = None,
    ) -> bool | None:
        records = self.msg if isinstance(self.msg, tuple | list) else (self.msg,)  # batch subscribers get tuples
        topic = getattr(records[0], "topic", "?") if records else "?"
        service = self.policy.service
        HANDLE_SECONDS.labels(service, topic).observe(time.perf_counter() - self.started)
        if exc_val is None or isinstance(exc_val, asyncio.CancelledError | FastStreamException):
            if exc_val is None:
                MESSAGES_HANDLED.labels(service, topic, "ok").inc(len(records))
            return False
        if is_transient(exc_val):
            MESSAGES_HANDLED.labels(service, topic, "retried").inc(len(records))
            log.warning(
                "transient error, message will be redelivered",
                extra={"topic": topic, "error": f"{type(exc_val).__name__}: {exc_val}"},
            )
            await asyncio.sleep(RETRY_DELAY_S)
            return False  # the acknowledgement middleware nacks: the offset is consumed again
        if not isinstance(exc_val, UnprocessableMessage | ValidationError | ValueError | json.JSONDecodeError):
            log.error("unexpected error handling message", exc_info=exc_val, extra={"topic": topic})
        for record in records:
            await self.policy.park(record, exc_val)
        MESSAGES_HANDLED.labels(service, topic, "dead_lettered").inc(len(records))
        return True  # suppressed: the message is acknowledged, the partition moves on


def broker_options(settings: InfraSettings, service: str) -> dict[str, Any]:
    """Keyword arguments for KafkaBroker and faststream's FastAPI KafkaRouter alike."""
    return {
        "bootstrap_servers": settings.kafka_bootstrap_servers.split(","),
        "client_id": f"papertrail-{service}",
        "enable_idempotence": settings.kafka_idempotent_producer,
        "acks": "all",
        "request_timeout_ms": 30_000,
        "graceful_timeout": 15.0,
        "logger": logging.getLogger(f"papertrail.{service}.broker"),
        "log_level": logging.DEBUG,  # FastStream's "Received" / "Processed" of each message: shown by LOG_LEVEL=DEBUG
    }


def static_member_id(instance_id: str, topics: Sequence[str]) -> str:
    """The group.instance.id of one grouped subscriber: the instance, then its topics. A service may have several
    grouped subscribers, each its own consumer, so each needs its own name."""
    return "-".join([instance_id, *topics])


class StaticMembershipBroker(KafkaBroker):
    """A KafkaBroker whose grouped subscribers are static members of their groups (KIP-345).

    A dynamic member that dies without leaving (kill -9, OOM, power loss) keeps its partitions until the broker
    expires it, and the local Kafka-protocol broker (noida-db) never does. A static member that starts again under
    the same name takes its place, partitions and committed offsets at once. A graceful stop still leaves the
    group (aiokafka skips LeaveGroup for static members), so on scale-down the partitions move without waiting
    for the session timeout.

    Each grouped subscriber needs a group of its own: two consumers of one service in one group (on different
    topics) rebalance each other whenever either joins or leaves, and a batch the other handled meanwhile is
    refused its commit (CommitFailedError, "the group has already rebalanced") and handled again. In the query
    service, the papers consumer joining at start did that to the harvest-status consumer when statuses waited.

    Every topic and group it is given is named on the broker with `name_prefix` (KAFKA_NAME_PREFIX) in front, so a
    service's code names topics as docs/events.md does.
    """

    instance_id: str = ""
    name_prefix: str = ""
    dead_letters: DeadLetterPolicy  # the policy its middleware applies; handlers park single records of a batch with it

    def subscriber(self, *topics: Any, **options: Any) -> Any:
        group = options.get("group_id")
        if group:
            group = options["group_id"] = self.name_prefix + group
            taken = [t for s in self.subscribers if getattr(s, "group_id", None) == group for t in s.topic_names]  # type: ignore[attr-defined]
            if taken:
                raise ValueError(f"consumer group {group} already has a subscriber (on {', '.join(taken)}): "
                                 f"give the subscriber of {', '.join(topics)} a group of its own")  # fmt: skip
            if options.get("group_instance_id") is None:
                options["group_instance_id"] = static_member_id(self.instance_id, topics)
        return super().subscriber(*(self.name_prefix + topic for topic in topics), **options)

    def publisher(self, topic: str, *args: Any, **options: Any) -> Any:  # type: ignore[override]
        return super().publisher(self.name_prefix + topic, *args, **options)

    def declared_publisher(self, topic: str) -> Any:
        """The publisher declared for `topic` (by its documented name): what a service's resources publish with."""
        return next(p for p in self.publishers if getattr(p, "topic", None) == self.name_prefix + topic)

    async def stop(
        self,
        exc_type: type[BaseException] | None = None,
        exc_val: BaseException | None = None,
        exc_tb: TracebackType | None = None,
    ) -> None:
        for subscriber in self.subscribers:
            for consumer in [getattr(subscriber, "consumer", None), *getattr(subscriber, "consumer_subgroup", [])]:
                coordinator = getattr(consumer, "_coordinator", None)
                if coordinator is not None:
                    # aiokafka sends LeaveGroup on close only for dynamic members; commits never carry this id
                    coordinator._group_instance_id = None
        await super().stop(exc_type, exc_val, exc_tb)


def make_broker(settings: InfraSettings, service: str) -> StaticMembershipBroker:
    """The service's broker, with the dead-letter policy installed and its consumers static group members
    named after INSTANCE_ID."""
    policy = DeadLetterPolicy(service)
    broker = StaticMembershipBroker(middlewares=[policy], **broker_options(settings, service))
    broker.instance_id = settings.instance_id
    broker.name_prefix = settings.kafka_name_prefix
    broker.dead_letters = policy
    policy.broker = broker
    return broker


def consumer_options(service: str, *, shared: bool = True) -> dict[str, Any]:
    """Subscriber options. Shared: one consumer group per service (instances split the partitions) and
    offsets committed only after handling. Not shared: every instance reads every partition from the
    start without a group, for state each instance keeps in memory (the matcher's follow index)."""
    if not shared:
        return {"auto_offset_reset": "earliest", "ack_policy": AckPolicy.ACK_FIRST}
    return {
        "group_id": f"papertrail-{service}",
        "auto_offset_reset": "earliest",
        "ack_policy": AckPolicy.NACK_ON_ERROR,
    }


# A lingering subscriber's fetches wait for this much data or for the linger, whichever comes first.
LINGER_MIN_BYTES = 1024 * 1024


def batch_options(service: str, max_records: int, wait_ms: int, linger_ms: int = 0) -> dict[str, Any]:
    """Options of a grouped batch subscriber: up to `max_records` at once, waiting at most `wait_ms` to fill.

    `linger_ms` > 0 gathers records for that long (or until LINGER_MIN_BYTES are there) before handing over a
    batch, through Kafka's fetch.min.bytes / fetch.max.wait.ms: fewer, larger batches, for a handler whose every
    call has a large fixed cost, at the price of up to `linger_ms` more latency."""
    options = {"batch": True, "max_records": max_records, "batch_timeout_ms": wait_ms, **consumer_options(service)}
    if linger_ms:
        options |= {"fetch_min_bytes": LINGER_MIN_BYTES, "fetch_max_wait_ms": linger_ms}
    return options


async def ensure_topics(settings: InfraSettings, topics: list[str]) -> None:
    """Create each topic and its dead-letter topic if missing, with the configured partition count and retention.

    An existing topic keeps its settings: change them with the broker's tools (docs/operations.md)."""
    admin = AIOKafkaAdminClient(
        bootstrap_servers=settings.kafka_bootstrap_servers.split(","),
        request_timeout_ms=int(settings.startup_timeout_s * 1000),
    )
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        wanted = [
            name
            for topic in topics
            for name in (kafka_name(settings, topic), dead_letter_topic(kafka_name(settings, topic)))
        ]
        missing = [
            NewTopic(
                t,
                settings.topic_partitions,
                settings.topic_replication_factor,
                topic_configs=topic_configs(settings, t),
            )
            for t in dict.fromkeys(wanted)
            if t not in existing
        ]
        if missing:
            # aiokafka returns a refusal per topic in the response instead of raising it
            refused = refused_topics((await admin.create_topics(missing)).topic_errors)
            if refused:
                raise TopicsNotCreated(
                    f"the broker refused to create {'; '.join(refused)} (TOPIC_PARTITIONS="
                    f"{settings.topic_partitions}, TOPIC_REPLICATION_FACTOR={settings.topic_replication_factor})"
                )
    finally:
        await admin.close()


def refused_topics(topic_errors: Sequence[tuple[Any, ...]]) -> list[str]:
    """`topic: ErrorName: message` for each topic of a CreateTopics response the broker refused for good. Not
    refusals: a topic that exists already (another instance created it between our list and create), and a
    retriable error (the request timed out, the controller moved), after which Kafka usually creates it anyway."""
    refused = []
    for topic, code, *message in topic_errors:
        error = for_code(code)
        if code and error is not TopicAlreadyExistsError and not error.retriable:
            refused.append(f"{topic}: {error.__name__}: {message[0] if message and message[0] else error.description}")
    return refused


def retention_ms(settings: InfraSettings, topic: str) -> int:
    hours = settings.dead_letter_retention_hours if topic.endswith(DLQ_SUFFIX) else settings.topic_retention_hours
    return round(hours * 3_600_000)


def topic_configs(settings: InfraSettings, topic: str) -> dict[str, str]:
    """Retention, and segments rolled at least daily: a broker deletes only closed segments, so with Kafka's
    7-day segments a 7-day topic would hold up to 14 days."""
    keep = retention_ms(settings, topic)
    return {"retention.ms": str(keep), "segment.ms": str(min(keep, 86_400_000))}


def split_valid(records: Sequence[Any], model: type[M]) -> tuple[list[tuple[Any, M]], list[tuple[Any, Exception]]]:
    """Validate each record of a batch: (record, event) pairs that pass, (record, error) pairs that do not."""
    good: list[tuple[Any, M]] = []
    bad: list[tuple[Any, Exception]] = []
    for record in records:
        try:
            good.append((record, model.model_validate_json(record.value or b"")))
        except ValidationError as error:
            bad.append((record, error))
    return good, bad


async def publish_confirmed(publisher: Any, messages: list[tuple[Any, str]]) -> None:
    """Publish (payload, key) pairs without waiting on each, then wait until the broker acknowledged all.

    Callers advance checkpoints or commit offsets only after this returns, so nothing is skipped.
    """
    futures = [await publisher.publish(payload, key=key.encode(), no_confirm=True) for payload, key in messages]
    # A broker that delivers at once (FastStream's in-memory TestKafkaBroker, for handler tests) returns no future.
    await asyncio.gather(*(future for future in futures if future is not None))
