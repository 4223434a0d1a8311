"""The shared MongoDB setup: an index whose definition changed between releases is replaced at start instead of
stopping the service; every command a service sends is timed by collection; inserts fall back to updates."""

import uuid

import pytest
from pymongo import AsyncMongoClient

from papertrail.runtime.mongo import MONGO_SECONDS, ensure_index, insert_else_update, make_mongo_client
from papertrail.runtime.settings import InfraSettings
from tests.support.servers import Servers

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


def _commands(service: str, command: str, collection: str) -> float:
    for metric in MONGO_SECONDS.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count") and sample.labels == {
                "service": service,
                "command": command,
                "collection": collection,
            }:
                return sample.value
    return 0.0


async def test_commands_are_timed_by_service_command_and_collection(servers: Servers) -> None:
    client = make_mongo_client(InfraSettings(mongodb_url=servers.mongodb_url), "tester")
    database = client[f"papertrail_cmd_{uuid.uuid4().hex[:6]}"]
    try:
        await database["papers"].insert_many([{"_id": n} for n in range(300)])
        assert [doc["_id"] async for doc in database["papers"].find({}, batch_size=100)] == list(range(300))
        await client.admin.command("ping")
        assert _commands("tester", "insert", "papers") == 1
        assert _commands("tester", "find", "papers") == 1
        assert _commands("tester", "getMore", "papers") >= 1  # a cursor's later batches count for its collection
        assert _commands("tester", "ping", "") == 0  # health checks are not database work
    finally:
        await client.drop_database(database.name)
        await client.close()


async def test_insert_else_update_inserts_new_documents_and_updates_held_ones(servers: Servers) -> None:
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url)
    collection = client[f"papertrail_ieu_{uuid.uuid4().hex[:6]}"]["source_records"]
    try:
        await collection.insert_one({"_id": "held", "hashes": ["a"], "title": "old"})
        await insert_else_update(
            collection,
            [
                (
                    {"_id": key, "hashes": ["b"], "title": "new"},
                    {"$set": {"title": "new"}, "$addToSet": {"hashes": "b"}},
                )
                for key in ("held", "fresh")
            ],
        )
        assert await collection.find_one({"_id": "held"}) == {"_id": "held", "hashes": ["a", "b"], "title": "new"}
        assert await collection.find_one({"_id": "fresh"}) == {"_id": "fresh", "hashes": ["b"], "title": "new"}
    finally:
        await client.drop_database(collection.database.name)
        await client.close()
