"""The query service's MongoDB access: its own collections (users, follows, ...) and reads of the others.

Owned here (written only by this service): users, follows, source_runs, corrections (readers' error reports),
index_state (which topic catalogue tagged the search index).
Read only: papers and paper_versions (normalizer), summaries and paper_vectors (summarizer), matches,
webhook_deliveries, digests (matcher).
"""

import contextlib
import hashlib
import secrets
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import numpy as np
from bson import ObjectId
from pymongo import DESCENDING, ReturnDocument
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.collation import Collation
from pymongo.errors import DuplicateKeyError

from papertrail.collections import (
    API_TOKENS,
    CORRECTIONS,
    DIGESTS,
    EMAIL_TOKENS,
    FOLLOWS,
    INDEX_STATE,
    MATCHES,
    PAPER_VECTORS,
    PAPER_VERSIONS,
    PAPERS,
    RATE_LIMITS,
    SESSIONS,
    SOURCE_RUNS,
    USER_DATA,
    USERS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_ENDPOINTS,
)
from papertrail.mongo import ensure_index
from papertrail.outbound import url_host
from papertrail.paper_vectors import PAPER_VECTORS_PROJECTION, vector_of
from schemas.events import Follow, HarvestStatus
from services.query.accounts.corrections import CorrectionReport
from services.query.reads.paper_lookup import PaperKey, holder

TOKEN_PREFIX = "pt_"
LAST_USED_EVERY = timedelta(minutes=1)  # a token's last use is written at most this often


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


async def paper_vectors_of(
    paper_vectors: AsyncCollection[dict[str, Any]], paper_ids: Sequence[str], model_key: str
) -> dict[str, np.ndarray]:
    """Of these papers, the vectors the summarizer stored for this model (`paper_vectors`, read only here): one
    read for the indexer, the retag and the reader models alike."""
    if not paper_ids:
        return {}
    found = paper_vectors.find({"_id": {"$in": list(dict.fromkeys(paper_ids))}}, PAPER_VECTORS_PROJECTION)
    vectors = {doc["_id"]: vector_of(doc, model_key) async for doc in found}
    return {paper_id: vector for paper_id, vector in vectors.items() if vector is not None}


class QueryStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.db = db
        self.users = db[USERS.name]
        self.follows = db[FOLLOWS.name]
        self.source_runs = db[SOURCE_RUNS.name]
        self.corrections = db[CORRECTIONS.name]
        self.index_state = db[INDEX_STATE.name]
        self.rate_limits = db[RATE_LIMITS.name]
        self.sessions = db[SESSIONS.name]
        self.api_tokens = db[API_TOKENS.name]
        self.email_tokens = db[EMAIL_TOKENS.name]
        self.paper_vectors = db[PAPER_VECTORS.name]

    async def ensure_indexes(self) -> None:
        await self.users.create_index("name", unique=True)
        await self.users.create_index(
            "account_email", unique=True, partialFilterExpression={"account_email": {"$type": "string"}}
        )
        await self.api_tokens.create_index("token_hash", unique=True)
        await self.api_tokens.create_index([("user_id", 1), ("created_at", DESCENDING)])
        await ensure_index(self.sessions, [("expires_at", 1)], expireAfterSeconds=0)
        await self.sessions.create_index("user_id")
        await ensure_index(self.email_tokens, [("expires_at", 1)], expireAfterSeconds=0)
        await self.email_tokens.create_index("user_id")
        await self.follows.create_index([("user_id", 1), ("created_at", DESCENDING)])
        await self.source_runs.create_index([("source", 1), ("started_at", DESCENDING)])
        await ensure_index(self.corrections, [("paper_id", 1), ("status", 1)])  # the per-paper open-report cap
        await ensure_index(self.corrections, [("status", 1), ("created_at", DESCENDING)])  # operators' list
        await self.corrections.create_index("user_id", sparse=True)  # a deleted user's reports lose their contact
        await ensure_index(self.rate_limits, [("expires_at", 1)], expireAfterSeconds=0)  # a window ends, it goes

    # users -----------------------------------------------------------------------------------------------
    async def create_user(self, name: str) -> tuple[str, str]:
        """Create a user with an API token (operators' `papertrail users create`); return (user id, token)."""
        user_id = uuid.uuid4().hex
        await self.users.insert_one({"_id": user_id, "name": name, "created_at": datetime.now(UTC)})
        return user_id, await self.create_token(user_id, "papertrail users create")

    async def create_account(self, email: str, password_hash: str) -> str | None:
        """A user who signed up with this (normalised) address; None when the address has an account already."""
        user_id = uuid.uuid4().hex
        doc = {"_id": user_id, "name": email, "account_email": email, "password_hash": password_hash,
               "email_confirmed_at": None, "created_at": datetime.now(UTC)}  # fmt: skip
        try:
            await self.users.insert_one(doc)
        except DuplicateKeyError:  # the address (or, as a name, an operator's user) is taken
            return None
        return user_id

    async def user_by_email(self, email: str) -> dict[str, Any] | None:
        return await self.users.find_one({"account_email": email})

    async def token_user_by_digest_email(self, email: str) -> dict[str, Any] | None:
        """An operator's token user (no account address) whose digest address is this one, in any case: such a user
        sets a password through a reset mailed there."""
        found: dict[str, Any] | None = await self.users.find_one(
            {"account_email": None, "email": email}, collation=Collation(locale="en", strength=2)
        )
        return found

    async def claim_account_email(self, user_id: str, email: str) -> None:
        """Make the address the account's, if the user has none yet (a token user's first reset)."""
        with contextlib.suppress(DuplicateKeyError):  # another account took it meanwhile: the user keeps none
            await self.users.update_one({"_id": user_id, "account_email": None}, {"$set": {"account_email": email}})

    async def user_by_id(self, user_id: str) -> dict[str, Any] | None:
        return await self.users.find_one({"_id": user_id})

    async def find_user(self, name_or_email: str) -> dict[str, Any] | None:
        """The user of this name or account address (operators' commands)."""
        return await self.users.find_one({"$or": [{"name": name_or_email}, {"account_email": name_or_email}]})

    async def set_password(self, user_id: str, password_hash: str) -> None:
        await self.users.update_one({"_id": user_id}, {"$set": {"password_hash": password_hash}})

    async def set_account_email(self, user_id: str, email: str) -> bool:
        """Give a user (an operator's token user) an account address; False when another account has it."""
        try:
            await self.users.update_one(
                {"_id": user_id}, {"$set": {"account_email": email, "email_confirmed_at": None}}
            )
        except DuplicateKeyError:
            return False
        return True

    async def confirm_email(self, user_id: str, email: str, now: datetime) -> bool:
        """Mark the account's address confirmed (if it is still the address the link was mailed to); it becomes
        the digest address too when none is set."""
        result = await self.users.update_one(
            {"_id": user_id, "account_email": email}, {"$set": {"email_confirmed_at": now}}
        )
        await self.users.update_one({"_id": user_id, "email": {"$in": [None, ""]}}, {"$set": {"email": email}})
        return result.matched_count == 1

    # API tokens (only their hashes are stored) ------------------------------------------------------------
    @staticmethod
    def _token_doc(user_id: str, hashed: str, name: str, created_at: datetime) -> dict[str, Any]:
        return {"_id": uuid.uuid4().hex, "user_id": user_id, "token_hash": hashed, "name": name,
                "created_at": created_at, "last_used_at": None}  # fmt: skip

    async def create_token(self, user_id: str, name: str) -> str:
        """A new API token of the user; the token itself is returned once, only its hash is kept."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        await self.api_tokens.insert_one(self._token_doc(user_id, token_hash(token), name, datetime.now(UTC)))
        return token

    async def list_tokens(self, user_id: str) -> list[dict[str, Any]]:
        cursor = self.api_tokens.find({"user_id": user_id}, {"token_hash": 0}).sort("created_at", DESCENDING)
        return [doc async for doc in cursor]

    async def revoke_token(self, user_id: str, token_id: str) -> bool:
        """Revoke one of this user's tokens (another user's token id reads as missing)."""
        return (await self.api_tokens.delete_one({"_id": token_id, "user_id": user_id})).deleted_count == 1

    async def user_for_token(self, token: str) -> dict[str, Any] | None:
        """The user of an API token, its last use noted (at most once a minute, so reads stay reads)."""
        found = await self.api_tokens.find_one({"token_hash": token_hash(token)})
        if found is None:
            return None
        now = datetime.now(UTC)
        if found["last_used_at"] is None or found["last_used_at"].replace(tzinfo=UTC) < now - LAST_USED_EVERY:
            await self.api_tokens.update_one({"_id": found["_id"]}, {"$set": {"last_used_at": now}})
        return await self.users.find_one({"_id": found["user_id"]}, {"password_hash": 0, "webhook_secret": 0})

    # web sessions (the cookie holds the id; only its hash is stored) --------------------------------------
    async def create_session(self, user_id: str, expires_at: datetime) -> str:
        session = secrets.token_urlsafe(32)
        doc = {
            "_id": token_hash(session),
            "user_id": user_id,
            "created_at": datetime.now(UTC),
            "expires_at": expires_at,
        }
        await self.sessions.insert_one(doc)
        return session

    async def session_user(self, session: str) -> dict[str, Any] | None:
        found = await self.sessions.find_one({"_id": token_hash(session), "expires_at": {"$gt": datetime.now(UTC)}})
        if found is None:
            return None
        return await self.users.find_one({"_id": found["user_id"]}, {"password_hash": 0, "webhook_secret": 0})

    async def drop_session(self, session: str) -> None:
        await self.sessions.delete_one({"_id": token_hash(session)})

    async def drop_sessions(self, user_id: str, keep: str | None = None) -> int:
        """Sign the user out everywhere (but in the session `keep`, if given); return how many sessions ended."""
        others = {"_id": {"$ne": token_hash(keep)}} if keep else {}
        return (await self.sessions.delete_many({"user_id": user_id, **others})).deleted_count

    async def count_sessions(self, user_id: str) -> int:
        return await self.sessions.count_documents({"user_id": user_id, "expires_at": {"$gt": datetime.now(UTC)}})

    # links mailed to confirm an address or reset a password: single use, hashed, expiring ---------------
    async def issue_email_token(self, user_id: str, purpose: str, email: str, expires_at: datetime) -> str:
        token = secrets.token_urlsafe(32)
        doc = {"_id": token_hash(token), "user_id": user_id, "purpose": purpose, "email": email,
               "expires_at": expires_at}  # fmt: skip
        await self.email_tokens.insert_one(doc)
        return token

    async def use_email_token(self, token: str, purpose: str) -> dict[str, Any] | None:
        """Take (and so spend) a mailed token of this purpose that has not expired; None otherwise."""
        return await self.email_tokens.find_one_and_delete(
            {"_id": token_hash(token), "purpose": purpose, "expires_at": {"$gt": datetime.now(UTC)}}
        )

    async def delete_user(self, user_id: str) -> dict[str, int]:
        """Delete the user and every document of theirs this service keeps (collections.USER_DATA); their error
        reports stay for the operators, without contact or user. Return the counts removed, by collection."""
        removed = {c.name: (await self.db[c.name].delete_many({"user_id": user_id})).deleted_count for c in USER_DATA}
        reports = await self.corrections.update_many({"user_id": user_id}, {"$set": {"contact": None, "user_id": None}})
        removed[CORRECTIONS.name] = reports.modified_count
        removed[USERS.name] = (await self.users.delete_one({"_id": user_id})).deleted_count
        return removed

    # the search index's topic tags -----------------------------------------------------------------------
    async def tagged_catalogue(self, index_name: str) -> str | None:
        """The digest of the topic catalogue the index's papers were last tagged with, if any."""
        doc = await self.index_state.find_one({"_id": index_name})
        return doc.get("topic_catalogue") if doc else None

    async def save_tagged_catalogue(self, index_name: str, digest: str) -> None:
        await self.index_state.update_one({"_id": index_name}, {"$set": {"topic_catalogue": digest}}, upsert=True)

    async def vectors_model(self, index_name: str) -> str | None:
        """The model whose vectors the index's documents hold, if any were attached to all of them."""
        doc = await self.index_state.find_one({"_id": index_name})
        return doc.get("vectors_model") if doc else None

    async def save_vectors_model(self, index_name: str, model_key: str) -> None:
        await self.index_state.update_one({"_id": index_name}, {"$set": {"vectors_model": model_key}}, upsert=True)

    # paper vectors (the summarizer's) ---------------------------------------------------------------------
    async def vectors_of(self, paper_ids: Sequence[str], model_key: str) -> dict[str, np.ndarray]:
        """The papers' vectors of this model, by paper id; papers without one are left out."""
        return await paper_vectors_of(self.paper_vectors, paper_ids, model_key)

    async def vector_state(self, paper_id: str, model_key: str) -> str:
        """embedded or failed when the summarizer settled the paper's vector for this model; else pending."""
        doc = await self.paper_vectors.find_one({"_id": paper_id}, {"model": 1, "state": 1})
        return str(doc["state"]) if doc and doc.get("model") == model_key else "pending"

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

    async def papers_with_vectors(self, paper_ids: list[str]) -> set[str]:
        """Of these papers, those the summarizer has embedded (by whatever model it runs now or ran before: the
        matcher reads the vectors of its own model, and a new model re-embeds every paper in the background)."""
        if not paper_ids:
            return set()
        found = self.paper_vectors.find({"_id": {"$in": paper_ids}, "state": "embedded"}, {"_id": 1})
        return {doc["_id"] async for doc in found}

    async def delete_follow(self, user_id: str, follow_id: str) -> bool:
        result = await self.follows.delete_one({"_id": follow_id, "user_id": user_id})
        return result.deleted_count == 1

    # the user's webhook and e-mail (stored on the user; the matcher delivers, logs and may disable) -------
    async def set_webhook(self, user_id: str, url: str | None) -> str | None:
        """Set (or with None remove) the user's webhook; return the new signing secret. The time it was set lets the
        matcher re-enable the user's webhooks on its host if they were disabled before."""
        secret = secrets.token_hex(32) if url else None
        changes = {"webhook_url": url, "webhook_secret": secret, "webhook_set_at": datetime.now(UTC)}
        await self.users.update_one({"_id": user_id}, {"$set": changes})
        return secret

    async def set_email(self, user_id: str, email: str | None) -> None:
        await self.users.update_one({"_id": user_id}, {"$set": {"email": email}})

    async def webhook_endpoint(self, user_id: str, url: str) -> dict[str, Any] | None:
        """The matcher's state of the user's webhooks on the URL's host (failures are counted per host)."""
        return await self.db[WEBHOOK_ENDPOINTS.name].find_one({"user_id": user_id, "host": url_host(url)}, {"_id": 0})

    async def deliveries(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        """The user's latest deliveries (queued ones too), without the signed body the matcher keeps to send."""
        cursor = (
            self.db[WEBHOOK_DELIVERIES.name]
            .find({"user_id": user_id}, {"_id": 0, "body": 0, "signature": 0, "claimed_until": 0})
            .sort("created_at", DESCENDING)
            .limit(limit)
        )
        return [doc async for doc in cursor]

    async def digests(self, user_id: str, limit: int) -> list[dict[str, Any]]:
        cursor = self.db[DIGESTS.name].find({"user_id": user_id}, {"_id": 0}).sort("day", DESCENDING).limit(limit)
        return [doc async for doc in cursor]

    # write limits ---------------------------------------------------------------------------------------
    async def count_write(self, window_key: str, expires_at: datetime) -> int:
        """Count one write in its window (one atomic upsert, shared by every replica); return the window's count."""
        update = {"$inc": {"count": 1}, "$setOnInsert": {"expires_at": expires_at}}
        count_it = partial(
            self.rate_limits.find_one_and_update,
            {"_id": window_key}, update, upsert=True, return_document=ReturnDocument.AFTER,
        )  # fmt: skip
        try:
            doc = await count_it()
        except DuplicateKeyError:  # two first writes of a window upserted at once: the other one inserted it
            doc = await count_it()
        return int(doc["count"]) if doc else 1

    async def write_count(self, window_key: str) -> int:
        """How many writes its window has counted so far (0 for a window nothing was counted in)."""
        doc = await self.rate_limits.find_one({"_id": window_key}, {"count": 1})
        return int(doc["count"]) if doc else 0

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
