"""An upgrade over a database written by a release that kept one API token on the user: the token moves to
api_tokens and keeps working, the unique index on users.token_hash goes (it would refuse a second user without a
token), and a second start changes nothing more. Over a real MongoDB."""

from datetime import UTC, datetime

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from services.query.readers.repositories import ReaderRecords, token_hash

pytestmark = pytest.mark.integration


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
    await readers.ensure_indexes()  # a second start (or replica) finds nothing left to move

    user = await readers.tokens.user_for_token(old_token)
    assert user is not None and user["_id"] == "u1" and "token_hash" not in user
    tokens = await readers.tokens.list_tokens("u1")
    assert [(t["name"], t["created_at"]) for t in tokens] == [("papertrail users create", created)]
    assert "token_hash_1" not in await scratch_db.users.index_information()
    # two users without a token on the user: refused by the old index, fine now
    assert await readers.users.create_account("bo@example.org", "hash") is not None
    assert await readers.users.create_account("cy@example.org", "hash") is not None
    assert await readers.users.create_account("bo@example.org", "hash") is None  # one account per address
