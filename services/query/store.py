"""The query service's MongoDB access: its own collections (users, follows, ...) and reads of the others.

Owned here (written only by this service): users, follows, source_runs, corrections (readers' error reports),
index_state (which topic catalogue tagged the search index).
Read only: papers and paper_versions (normalizer), summaries (summarizer), matches, webhook_deliveries,
digests (matcher).
"""

import hashlib
import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from bson import ObjectId
from pymongo import DESCENDING
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.collections import (
    CORRECTIONS,
    DIGESTS,
    FOLLOWS,
    INDEX_STATE,
    MATCHES,
    PAPER_VERSIONS,
    PAPERS,
    SOURCE_RUNS,
    USERS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_ENDPOINTS,
)
from papertrail.mongo import ensure_index
from schemas.events import Follow, HarvestStatus
from services.query.accounts.corrections import CorrectionReport
from services.query.reads.paper_lookup import PaperKey, holder

TOKEN_PREFIX = "pt_"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class QueryStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.db = db
        self.users = db[USERS.name]
        self.follows = db[FOLLOWS.name]
        self.source_runs = db[SOURCE_RUNS.name]
        self.corrections = db[CORRECTIONS.name]
        self.index_state = db[INDEX_STATE.name]

    async def ensure_indexes(self) -> None:
        await self.users.create_index("token_hash", unique=True)
        await self.users.create_index("name", unique=True)
        await self.follows.create_index([("user_id", 1), ("created_at", DESCENDING)])
        await self.source_runs.create_index([("source", 1), ("started_at", DESCENDING)])
        await ensure_index(self.corrections, [("paper_id", 1), ("status", 1)])  # the per-paper open-report cap
        await ensure_index(self.corrections, [("status", 1), ("created_at", DESCENDING)])  # operators' list

    # users -----------------------------------------------------------------------------------------------
    async def create_user(self, name: str) -> tuple[str, str]:
        """Create a user; return (user id, token). Only the token's hash is stored."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        user_id = uuid.uuid4().hex
        await self.users.insert_one(
            {"_id": user_id, "name": name, "token_hash": token_hash(token), "created_at": datetime.now(UTC)}
        )
        return user_id, token

    async def user_for_token(self, token: str) -> dict[str, Any] | None:
        return await self.users.find_one({"token_hash": token_hash(token)}, {"token_hash": 0, "webhook_secret": 0})

    async def retire_catalogue_follows(self) -> list[Follow]:
        """Delete the catalogue's topic follows that releases before topic tagging kept for their system user
        ("papertrail", never a real user's id: those are uuids); return them so their deletion can be announced."""
        retired = [self._follow(doc)[0] async for doc in self.follows.find({"user_id": "papertrail", "kind": "topic"})]
        if retired:
            await self.follows.delete_many({"_id": {"$in": [f.id for f in retired]}})
        return retired

    # the search index's topic tags -----------------------------------------------------------------------
    async def tagged_catalogue(self, index_name: str) -> str | None:
        """The digest of the topic catalogue the index's papers were last tagged with, if any."""
        doc = await self.index_state.find_one({"_id": index_name})
        return doc.get("topic_catalogue") if doc else None

    async def save_tagged_catalogue(self, index_name: str, digest: str) -> None:
        await self.index_state.update_one({"_id": index_name}, {"$set": {"topic_catalogue": digest}}, upsert=True)

    # follows ---------------------------------------------------------------------------------------------
    @staticmethod
    def _follow(doc: dict[str, Any]) -> tuple[Follow, str]:
        body = {k: v for k, v in doc.items() if k not in ("_id", "feed_key")}
        return Follow.model_validate({**body, "id": doc["_id"]}), doc.get("feed_key", "")

    async def save_follow(self, follow: Follow, *, feed_key: str) -> None:
        doc = {"_id": follow.id, **follow.model_dump(mode="python", exclude={"id"}), "feed_key": feed_key}
        await self.follows.replace_one({"_id": follow.id}, doc, upsert=True)

    async def list_follows(self, user_id: str) -> list[tuple[Follow, str]]:
        cursor = self.follows.find({"user_id": user_id}).sort("created_at", DESCENDING)
        return [self._follow(doc) async for doc in cursor]

    async def get_follow(self, user_id: str, follow_id: str) -> tuple[Follow, str] | None:
        """A follow of this user only: another user's follow id reads as missing."""
        doc = await self.follows.find_one({"_id": follow_id, "user_id": user_id})
        return self._follow(doc) if doc else None

    async def follow_by_feed_key(self, follow_id: str, feed_key: str) -> Follow | None:
        if not feed_key:
            return None
        doc = await self.follows.find_one({"_id": follow_id, "feed_key": feed_key})
        return self._follow(doc)[0] if doc else None

    async def delete_follow(self, user_id: str, follow_id: str) -> bool:
        result = await self.follows.delete_one({"_id": follow_id, "user_id": user_id})
        return result.deleted_count == 1

    # the user's webhook and e-mail (stored on the user; the matcher delivers, logs and may disable) -------
    async def set_webhook(self, user_id: str, url: str | None) -> str | None:
        """Set (or with None remove) the user's webhook; return the new signing secret."""
        secret = secrets.token_hex(32) if url else None
        await self.users.update_one({"_id": user_id}, {"$set": {"webhook_url": url, "webhook_secret": secret}})
        return secret

    async def set_email(self, user_id: str, email: str | None) -> None:
        await self.users.update_one({"_id": user_id}, {"$set": {"email": email}})

    async def webhook_endpoint(self, user_id: str, url: str) -> dict[str, Any] | None:
        return await self.db[WEBHOOK_ENDPOINTS.name].find_one({"user_id": user_id, "url": url}, {"_id": 0})

    async def deliveries(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        cursor = (
            self.db[WEBHOOK_DELIVERIES.name]
            .find({"user_id": user_id}, {"_id": 0})
            .sort("created_at", DESCENDING)
            .limit(limit)
        )
        return [doc async for doc in cursor]

    async def digests(self, user_id: str, limit: int) -> list[dict[str, Any]]:
        cursor = self.db[DIGESTS.name].find({"user_id": user_id}, {"_id": 0}).sort("day", DESCENDING).limit(limit)
        return [doc async for doc in cursor]

    # sources ---------------------------------------------------------------------------------------------
    async def record_run(self, status: HarvestStatus) -> None:
        """Keep the latest state of every harvest run, keyed by run id (a repeated event is harmless)."""
        await self.source_runs.update_one(
            {"_id": status.run_id}, {"$set": status.model_dump(mode="python")}, upsert=True
        )

    async def recent_runs(self, source: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        query = {"source": source} if source else {}
        cursor = self.source_runs.find(query).sort("started_at", DESCENDING).limit(limit)
        return [doc async for doc in cursor]

    async def sources(self) -> list[str]:
        return sorted(await self.source_runs.distinct("source"))

    async def last_run(self, source: str, **conditions: Any) -> dict[str, Any] | None:
        return await self.source_runs.find_one({"source": source, **conditions}, sort=[("started_at", DESCENDING)])

    # readers' error reports (no public listing: they carry contact addresses) ---------------------------
    async def add_correction(self, report: CorrectionReport) -> None:
        await self.corrections.insert_one({"_id": report.id, **report.model_dump(mode="python", exclude={"id"})})

    async def count_open_corrections(self, paper_id: str) -> int:
        return await self.corrections.count_documents({"paper_id": paper_id, "status": "open"})

    async def list_corrections(self, status: str | None = None, limit: int = 200) -> list[CorrectionReport]:
        """Reports, newest first; only those with this status when one is given."""
        cursor = self.corrections.find({"status": status} if status else {}).sort("created_at", DESCENDING)
        return [CorrectionReport.model_validate({**doc, "id": doc["_id"]}) async for doc in cursor.limit(limit)]

    async def close_correction(self, report_id: str, now: datetime) -> CorrectionReport | None:
        """Mark a report handled; None when there is no such report. Closing a closed report keeps its time."""
        await self.corrections.update_one(
            {"_id": report_id, "status": "open"}, {"$set": {"status": "closed", "closed_at": now}}
        )
        doc = await self.corrections.find_one({"_id": report_id})
        return CorrectionReport.model_validate({**doc, "id": doc["_id"]}) if doc else None

    # reads of other services' collections -----------------------------------------------------------------
    async def versions_of(self, paper_id: str) -> list[dict[str, Any]]:
        cursor = self.db[PAPER_VERSIONS.name].find({"paper_id": paper_id}, {"_id": 0}).sort("seq", 1)
        return [doc async for doc in cursor]

    async def paper(self, key: PaperKey) -> dict[str, Any] | None:
        """The paper holding this id, in one find on the normalizer's index of that `ids` field (unique for arXiv
        and ACL ids): a canonical id is looked up the same way, since a paper holds its canonical id in `ids`."""
        return holder(key, await self.db[PAPERS.name].find({key.field: key.value}).to_list(None))

    async def count_versions(self, kind: str, since: datetime, until: datetime) -> int:
        return await self.db[PAPER_VERSIONS.name].count_documents(
            {"kind": kind, "observed_at": {"$gte": since, "$lt": until}}
        )

    async def latest_version_time(self) -> datetime | None:
        doc = await self.db[PAPER_VERSIONS.name].find_one({}, sort=[("observed_at", DESCENDING)])
        return doc["observed_at"] if doc else None

    async def matches_page(
        self, user_id: str, follow_id: str | None, after: tuple[datetime, str] | None, limit: int
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of the user's matches, newest first (then by id), after (matched_at, id) when given; the total."""
        query: dict[str, Any] = {"user_id": user_id, **({"follow_id": follow_id} if follow_id else {})}
        total = await self.db[MATCHES.name].count_documents(query)
        if after is not None:
            at, match_id = after[0], ObjectId(after[1])
            later = [{"matched_at": {"$lt": at}}, {"matched_at": at, "_id": {"$lt": match_id}}]
            query = {"$and": [query, {"$or": later}]}
        cursor = self.db[MATCHES.name].find(query).sort([("matched_at", DESCENDING), ("_id", DESCENDING)]).limit(limit)
        return [doc async for doc in cursor], total

    async def matches_for(self, user_id: str, follow_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        query: dict[str, Any] = {"user_id": user_id}
        if follow_id:
            query["follow_id"] = follow_id
        cursor = self.db[MATCHES.name].find(query, {"_id": 0}).sort("matched_at", DESCENDING).limit(limit)
        return [doc async for doc in cursor]
