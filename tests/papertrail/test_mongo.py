"""An index whose definition changed between releases is replaced at start instead of stopping the service."""

import uuid

import pytest
from pymongo import AsyncMongoClient

from papertrail.mongo import ensure_index
from tests.conftest import Servers

pytestmark = pytest.mark.integration


async def test_changed_index_definition_is_replaced(servers: Servers) -> None:
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url)
    collection = client[f"papertrail_idx_{uuid.uuid4().hex[:6]}"]["papers"]
    try:
        await ensure_index(collection, [("ids.openreview", 1)], sparse=True)
        await ensure_index(collection, [("ids.openreview", 1)], sparse=True, unique=True)  # an upgrade
        indexes = await collection.index_information()
        assert indexes["ids.openreview_1"].get("unique") is True
        await ensure_index(collection, [("ids.openreview", 1)], sparse=True, unique=True)  # unchanged: no error
    finally:
        await client.drop_database(collection.database.name)
        await client.close()
