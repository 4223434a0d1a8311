"""At start the matcher loads the follows the query service stored, whatever extra fields it keeps beside them."""

import uuid
from datetime import UTC, datetime

import pytest
from pymongo import AsyncMongoClient

from schemas.events import Follow
from services.matcher.store import MatcherRecords
from services.query.accounts.repositories import Follows
from tests.support.servers import Servers

pytestmark = pytest.mark.integration


async def test_follows_stored_by_the_query_service_load_at_start(servers: Servers) -> None:
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url)
    db = client[f"papertrail_follows_{uuid.uuid4().hex[:6]}"]
    try:
        follow = Follow(
            id=uuid.uuid4().hex,
            user_id="u1",
            kind="keyword",
            name="rag",
            query="retrieval",
            created_at=datetime.now(UTC),
        )
        await Follows(db).save_follow(follow, feed_key="secret-feed-key")
        loaded = await MatcherRecords.of(db).reads.all_follows()
        assert [f.id for f in loaded] == [follow.id]
        assert loaded[0].query == "retrieval"
    finally:
        await client.drop_database(db.name)
        await client.close()
