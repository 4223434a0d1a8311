"""The query service's numbered migrations (papertrail/runtime/migrations.py): what releases before these left in its
collections. Run once by `papertrail migrate`, or at the service's start while pending."""

import uuid
from datetime import UTC, datetime

from pymongo.errors import DuplicateKeyError

from papertrail.runtime.collections import API_TOKENS, FOLLOWS, USERS
from papertrail.runtime.migrations import Migration, MigrationContext, Migrations
from schemas import topics
from schemas.events import FollowChanged

LEGACY_TOKEN_INDEX = "token_hash_1"  # releases before api_tokens kept one token on the user


async def move_legacy_tokens(context: MigrationContext) -> str:
    """Users made before api_tokens kept their token's hash on the user (under a unique index, which would
    refuse a second user without one): each becomes an API token of its user, and the index goes."""
    users, api_tokens = context.db[USERS.name], context.db[API_TOKENS.name]
    moved = 0
    async for user in users.find({"token_hash": {"$exists": True}}, {"token_hash": 1, "created_at": 1}):
        token = {"_id": uuid.uuid4().hex, "user_id": user["_id"], "token_hash": user["token_hash"],
                 "name": "papertrail users create", "created_at": user.get("created_at") or datetime.now(UTC),
                 "last_used_at": None}  # fmt: skip
        try:
            await api_tokens.update_one({"token_hash": user["token_hash"]}, {"$setOnInsert": token}, upsert=True)
        except DuplicateKeyError:  # moved by a run before this one, stopped before the user lost it
            pass
        await users.update_one({"_id": user["_id"]}, {"$unset": {"token_hash": ""}})
        moved += 1
    if LEGACY_TOKEN_INDEX in await users.index_information():
        await users.drop_index(LEGACY_TOKEN_INDEX)
    return f"{moved} tokens moved from users to api_tokens"


async def retire_catalogue_follows(context: MigrationContext) -> str:
    """Delete the catalogue's topic follows that releases before topic tagging kept for their system user
    ("papertrail", never a real user's id: those are uuids), each deletion announced on follows.changed.v1 first
    (so the matchers drop them too; a stop between the two announces it again on the next run)."""
    follows = context.db[FOLLOWS.name]
    retired = [doc["_id"] async for doc in follows.find({"user_id": "papertrail", "kind": "topic"}, {"_id": 1})]
    if retired:
        now = datetime.now(UTC)
        changes = [FollowChanged(action="deleted", follow_id=i, user_id="papertrail", changed_at=now) for i in retired]
        await context.publish(topics.FOLLOWS_CHANGED, [(change, change.user_id) for change in changes])
        await follows.delete_many({"_id": {"$in": retired}})
    return f"{len(retired)} catalogue follows retired"


MIGRATIONS = Migrations(
    [
        Migration(3, "move API tokens kept on users to api_tokens", "query", move_legacy_tokens),
        Migration(4, "retire the catalogue's topic follows", "query", retire_catalogue_follows),
    ]
)
