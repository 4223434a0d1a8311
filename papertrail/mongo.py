"""The one MongoDB setup: PyMongo's native async client, opened in a service's lifespan."""

from typing import Any

from pymongo import AsyncMongoClient
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import OperationFailure

from papertrail.settings import InfraSettings


def make_mongo_client(settings: InfraSettings) -> AsyncMongoClient:
    timeout_ms = int(settings.startup_timeout_s * 1000)
    return AsyncMongoClient(
        settings.mongodb_url,
        tz_aware=True,
        serverSelectionTimeoutMS=timeout_ms,
        connectTimeoutMS=timeout_ms,
        appname="papertrail",
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
