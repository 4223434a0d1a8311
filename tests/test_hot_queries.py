"""No hot path scans (issue 42): every query a stage runs per message, per batch or per poll (HOT_QUERIES in
papertrail_tools/hot_queries.py, each run through the store method that runs it) is planned by the real
MongoDB-protocol server without reading the whole collection. The local stand-in (secantusdb) answers `explain`
as mongod does (a winning plan of stages, COLLSCAN for a scan, SORT for a sort in memory), so the plan is asked, not
inferred from the indexes."""

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

from papertrail_tools.hot_queries import HOT_QUERIES, HotQuery, Recorded, ensure_indexes, fills, plan_of, selections
from tests.support.servers import Servers

pytestmark = pytest.mark.integration
NOW = datetime(2026, 12, 7, 6, tzinfo=UTC)
DOCUMENTS = 300  # a few of each, so a plan is chosen among indexes over something


@pytest.fixture(scope="module")
def recorded() -> Recorded:
    return Recorded()


@pytest.fixture(scope="module")
async def database(servers: Servers, recorded: Recorded) -> AsyncIterator[AsyncDatabase]:
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True, event_listeners=[recorded])
    db = client[f"hot_queries_{uuid.uuid4().hex[:8]}"]
    await ensure_indexes(db)
    for name, queries in _by_collection().items():
        documents = {d["_id"]: d for q in queries for d in fills(q, DOCUMENTS, NOW)}  # the first fill's wins
        await db[name].insert_many(list(documents.values()), ordered=False)
    yield db
    await client.drop_database(db.name)
    await client.close()


def _by_collection() -> dict[str, list[HotQuery]]:
    grouped: dict[str, list[HotQuery]] = {}
    for query in HOT_QUERIES:
        grouped.setdefault(query.collection.name, []).append(query)
    return grouped


@pytest.mark.parametrize("query", HOT_QUERIES, ids=lambda q: f"{q.stage}: {q.what}")
async def test_the_hot_query_reads_an_index_not_the_collection(
    query: HotQuery, database: AsyncDatabase, recorded: Recorded
) -> None:
    with recorded.recording() as commands:
        await query.run(database, NOW)
    finds = [find for command in commands for find in selections(command)]
    assert any(find["find"] == query.collection.name for find in finds), f"no command on {query.collection.name}"
    for find in finds:
        if find["find"] in query.reads_whole and not find["filter"]:
            continue
        plan = await plan_of(database, find)
        assert not any(stage.startswith("COLLSCAN") for stage in plan), (find, plan)


def test_a_find_of_every_document_counts_as_a_scan() -> None:
    """The check itself: an aggregation without a leading `$match` selects every document."""
    (find,) = selections({"aggregate": "summary_pending", "pipeline": [{"$group": {"_id": "$priority"}}]})
    assert find == {"find": "summary_pending", "filter": {}}
    (update,) = selections({"update": "x", "updates": [{"q": {"a": 1}, "u": {"$set": {"b": 2}}}]})
    assert update == {"find": "x", "filter": {"a": 1}}
