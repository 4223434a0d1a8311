"""The one MongoDB setup: PyMongo's native async client, opened in a service's lifespan."""

from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

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
