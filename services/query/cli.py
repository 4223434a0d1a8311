"""`papertrail users create NAME`: create a user and print its token once (only the hash is stored)."""

import asyncio

from papertrail.mongo import database, make_mongo_client
from papertrail.service import load_settings
from services.query.settings import QuerySettings
from services.query.store import QueryStore


def create_user(name: str) -> tuple[str, str]:
    settings = load_settings(QuerySettings, "users")

    async def create() -> tuple[str, str]:
        client = make_mongo_client(settings)
        try:
            store = QueryStore(database(client, settings))
            await store.ensure_indexes()
            return await store.create_user(name)
        finally:
            await client.close()

    return asyncio.run(create())
