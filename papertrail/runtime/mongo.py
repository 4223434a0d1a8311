"""The one MongoDB setup: PyMongo's native async client, opened in a service's lifespan."""

from typing import Any

from prometheus_client import Histogram
from pymongo import AsyncMongoClient, UpdateOne, monitoring
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import BulkWriteError, OperationFailure

from papertrail.runtime.settings import InfraSettings

MONGO_SECONDS = Histogram(
    "papertrail_mongo_command_seconds",
    "MongoDB commands the service sent, by command and collection, with their round trip (failed ones too).",
    ["service", "command", "collection"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
_UNTIMED = frozenset({"hello", "ismaster", "isMaster", "ping", "endSessions", "saslStart", "saslContinue"})


class CommandTimes(monitoring.CommandListener):
    """Times every command a client sends, so an operator sees which collection a service waits on (the local
    MongoDB-protocol server is one Python process that every service shares)."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.collections: dict[int, str] = {}

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name not in _UNTIMED:
            target = event.command.get("collection" if event.command_name == "getMore" else event.command_name)
            self.collections[event.request_id] = target if isinstance(target, str) else ""

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        self._observe(event)

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        self._observe(event)

    def _observe(self, event: monitoring.CommandSucceededEvent | monitoring.CommandFailedEvent) -> None:
        collection = self.collections.pop(event.request_id, None)
        if collection is not None:
            MONGO_SECONDS.labels(self.service, event.command_name, collection).observe(event.duration_micros / 1e6)


def make_mongo_client(settings: InfraSettings, service: str = "papertrail") -> AsyncMongoClient:
    timeout_ms = int(settings.startup_timeout_s * 1000)
    return AsyncMongoClient(
        settings.mongodb_url,
        tz_aware=True,
        serverSelectionTimeoutMS=timeout_ms,
        connectTimeoutMS=timeout_ms,
        appname=f"papertrail-{service}",
        event_listeners=[CommandTimes(service)],
    )


def database(client: AsyncMongoClient, settings: InfraSettings) -> AsyncDatabase:
    return client[settings.mongodb_database]


async def ping(client: AsyncMongoClient) -> bool:
    try:
        await client.admin.command("ping")
    except Exception:
        return False
    return True


async def ensure_index(collection: AsyncCollection, keys: list[tuple[str, int]], **options: Any) -> None:
    """Create an index; if one of the same name exists with other options (an older release's definition),
    replace it, so an upgrade never stops a service at start."""
    try:
        await collection.create_index(keys, **options)
    except OperationFailure as error:
        if error.code not in (85, 86):  # IndexOptionsConflict, IndexKeySpecsConflict
            raise
        name = options.get("name") or "_".join(f"{field}_{direction}" for field, direction in keys)
        await collection.drop_index(name)
        await collection.create_index(keys, **options)


DUPLICATE_KEY = 11000


async def insert_else_update(collection: AsyncCollection, writes: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """(document, update) pairs: each document is inserted, or, when its _id is held already, the update is applied
    to it (as an upsert, so one deleted meanwhile is written). For collections where most writes are new documents:
    the local MongoDB-protocol server takes one bulk insert several times faster than as many upserts."""
    if not writes:
        return
    held: list[int] = []
    try:
        await collection.insert_many([document for document, _ in writes], ordered=False)
    except BulkWriteError as error:
        for problem in error.details.get("writeErrors", []):
            if problem.get("code") != DUPLICATE_KEY:
                raise
            held.append(problem["index"])
    if held:
        await collection.bulk_write(
            [UpdateOne({"_id": writes[i][0]["_id"]}, writes[i][1], upsert=True) for i in held], ordered=False
        )
