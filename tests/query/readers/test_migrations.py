"""The query service's numbered migrations (services/query/migrations.py) over a real MongoDB: tokens an older
release kept on the user move to api_tokens and keep working, and the catalogue's old topic follows go, each
deletion announced; each applied once and recorded, and changing nothing more when run again by hand."""

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from pydantic import BaseModel
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.migrations import MigrationContext, MigrationRecord
from schemas import topics
from schemas.events import FollowChanged
from services.query.migrations import MIGRATIONS
from services.query.readers.repositories import ReaderRecords, token_hash

pytestmark = pytest.mark.integration


class Published:
    def __init__(self) -> None:
        self.events: list[tuple[str, BaseModel, str]] = []

    async def __call__(self, topic: str, events: Sequence[tuple[BaseModel, str]]) -> None:
        self.events += [(topic, event, key) for event, key in events]


async def test_tokens_kept_on_users_move_to_api_tokens_and_keep_working(scratch_db: AsyncDatabase) -> None:
    old_token = "pt_made-by-an-older-release"
    await scratch_db.users.create_index("token_hash", unique=True)  # as the older release made it
    await scratch_db.users.create_index("name", unique=True)
    created = datetime(2026, 6, 1, tzinfo=UTC)
    await scratch_db.users.insert_one(
        {"_id": "u1", "name": "ana", "token_hash": token_hash(old_token), "created_at": created}
    )
    readers = ReaderRecords.of(scratch_db)
    await readers.ensure_indexes()
    context, record = MigrationContext(scratch_db, Published()), MigrationRecord(scratch_db)
    migration = MIGRATIONS.numbered(3)
    assert migration is not None
    assert await record.run(migration, context) == "1 tokens moved from users to api_tokens"
    assert await record.run(migration, context) is None  # a second start (or replica): recorded, not run
    assert await record.run(migration, context, again=True) == "0 tokens moved from users to api_tokens"

    user = await readers.tokens.user_for_token(old_token)
    assert user is not None and user["_id"] == "u1" and "token_hash" not in user
    tokens = await readers.tokens.list_tokens("u1")
    assert [(t["name"], t["created_at"]) for t in tokens] == [("papertrail users create", created)]
    assert "token_hash_1" not in await scratch_db.users.index_information()
    # two users without a token on the user: refused by the old index, fine now
    assert await readers.users.create_account("bo@example.org", "hash") is not None
    assert await readers.users.create_account("cy@example.org", "hash") is not None
    assert await readers.users.create_account("bo@example.org", "hash") is None  # one account per address


async def test_the_catalogues_topic_follows_are_retired_and_announced(scratch_db: AsyncDatabase) -> None:
    now = datetime.now(UTC)
    await scratch_db.follows.insert_many(
        [
            {"_id": "topic:llm-reasoning", "user_id": "papertrail", "kind": "topic", "name": "LLM reasoning",
             "topic_id": "llm-reasoning", "created_at": now, "feed_key": ""},
            {"_id": "f-ana", "user_id": "u1", "kind": "topic", "name": "mine", "topic_id": "llm-reasoning",
             "created_at": now, "feed_key": "k"},
        ]
    )  # fmt: skip
    published = Published()
    context, record = MigrationContext(scratch_db, published), MigrationRecord(scratch_db)
    ran = await record.run_pending(MIGRATIONS, context)
    assert [(m.number, outcome) for m, outcome in ran] == [
        (3, "0 tokens moved from users to api_tokens"),
        (4, "1 catalogue follows retired"),
    ]
    assert [d["_id"] async for d in scratch_db.follows.find({})] == ["f-ana"]  # a reader's follow stays
    [(topic, change, key)] = published.events
    assert topic == topics.FOLLOWS_CHANGED and key == "papertrail"
    assert isinstance(change, FollowChanged) and (change.action, change.follow_id) == ("deleted", "topic:llm-reasoning")
    assert await record.run_pending(MIGRATIONS, context) == []
    migration = MIGRATIONS.numbered(4)
    assert migration is not None
    assert await record.run(migration, context, again=True) == "0 catalogue follows retired"
    assert len(published.events) == 1
