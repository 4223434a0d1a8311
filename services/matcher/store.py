"""The matcher's collection `matches` (unique per user + follow + paper) and its view of `follows`."""

from datetime import UTC, datetime

from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import Follow, FollowMatched


class MatchStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.matches = db["matches"]
        self.follows = db["follows"]  # written by the query service; read here at start

    async def ensure_indexes(self) -> None:
        await self.matches.create_index([("user_id", 1), ("follow_id", 1), ("paper_id", 1)], unique=True)
        await self.matches.create_index([("follow_id", 1), ("matched_at", -1)])

    async def all_follows(self) -> list[Follow]:
        return [
            Follow.model_validate({**doc, "id": doc["_id"]})
            async for doc in self.follows.find({})
            if not doc.get("deleted")
        ]

    async def record(self, match: FollowMatched) -> bool:
        """Store the match; False when it was stored before (the same paper twice gives one match)."""
        result = await self.matches.update_one(
            {"user_id": match.user_id, "follow_id": match.follow_id, "paper_id": match.paper_id},
            {"$setOnInsert": {**match.model_dump(mode="python"), "stored_at": datetime.now(UTC)}},
            upsert=True,
        )
        return result.upserted_id is not None
