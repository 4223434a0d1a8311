"""The readers' record in MongoDB: one small repository per collection the query service owns for its readers, and
the reads of the matcher's collections about them.

Owned here (written only by this service): users, api_tokens, sessions, email_tokens, follows, corrections (readers'
error reports), rate_limits (the write limits' windows), site_keys (a local run's own site secret); the library's
collections are services/query/library.
Read only: matches, webhook_endpoints, webhook_deliveries, digests (matcher).
"""

import contextlib
import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from pymongo import DESCENDING, ReturnDocument
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.collation import Collation
from pymongo.errors import DuplicateKeyError

from papertrail.runtime.collections import (
    API_TOKENS,
    CORRECTIONS,
    DIGESTS,
    EMAIL_TOKENS,
    FOLLOWS,
    MATCHES,
    RATE_LIMITS,
    SESSIONS,
    SITE_KEYS,
    USER_DATA,
    USERS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_ENDPOINTS,
)
from papertrail.runtime.mongo import ensure_index
from papertrail.runtime.outbound import url_host
from papertrail.runtime.push.channels import GENERIC
from schemas.events import Follow
from services.query.accounts.corrections import CorrectionReport
from services.query.accounts.rates import GRACE, Rate, Window, over, window
from services.query.accounts.visits import feed_visit

TOKEN_PREFIX = "pt_"
LAST_USED_EVERY = timedelta(minutes=1)  # a token's last use is written at most this often
# what the matcher keeps to send a delivery, never shown in its log: the signed body and signature, a group bot's
# signed URL and headers
DELIVERY_HIDDEN = {"_id": 0, "body": 0, "signature": 0, "claimed_until": 0, "request_url": 0, "headers": 0}


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# a user as signed in reads it: no password hash, no webhook's or push channel's secret
SECRETS_LEFT_OUT = {"password_hash": 0, "webhook_secret": 0, "push_channels.secret": 0}


class Users:
    """The users (`users`): accounts, operators' token users, their digest address, webhook and push channels."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.users = db[USERS.name]

    async def ensure_indexes(self) -> None:
        await self.users.create_index("name", unique=True)
        await self.users.create_index(
            "account_email", unique=True, partialFilterExpression={"account_email": {"$type": "string"}}
        )

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

    async def feed_visited(self, user_id: str, now: datetime) -> datetime | None:
        """Record that the reader opened their feed now; the previous visit its entries are new since (None on the
        first), as `feed_visit` decides."""
        doc = await self.users.find_one({"_id": user_id}, {"feed_seen_at": 1, "feed_visit_before": 1})
        seen = feed_visit(doc.get("feed_seen_at") if doc else None, doc.get("feed_visit_before") if doc else None, now)
        await self.users.update_one({"_id": user_id}, {"$set": {"feed_seen_at": now, "feed_visit_before": seen.before}})
        return seen.before

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

    async def set_webhook(
        self,
        user_id: str,
        url: str | None,
        channel: str = GENERIC,
        bot_secret: str | None = None,
        language: str = "zh",
    ) -> str | None:
        """Set (or with None remove) the user's webhook; return the new signing secret of a generic one (a group
        bot's is the one the bot gave, `bot_secret`, never returned). The time it was set lets the matcher re-enable
        the user's webhooks on its host if they were disabled before."""
        made = secrets.token_hex(32) if url and channel == GENERIC else None
        changes = {
            "webhook_url": url,
            "webhook_secret": made or (bot_secret if url else None),
            "webhook_channel": channel if url else None,
            "webhook_language": language if url else None,
            "webhook_signed": bool(made or bot_secret) if url else None,  # shown; the secret itself never read back
            "webhook_set_at": datetime.now(UTC),
        }
        await self.users.update_one({"_id": user_id}, {"$set": changes})
        return made

    async def add_push_channel(self, user_id: str, channel: dict[str, Any], limit: int) -> bool:
        """Add a named push channel (`push_channels`, on the user: the matcher reads them with the user); False when
        the user has `limit` already. Its `set_at` lets the matcher re-enable the user's webhooks on its host."""
        channel = channel | {"set_at": datetime.now(UTC)}
        result = await self.users.update_one(
            {"_id": user_id, f"push_channels.{limit - 1}": {"$exists": False}}, {"$push": {"push_channels": channel}}
        )
        return result.modified_count == 1

    async def push_channels(self, user_id: str) -> tuple[list[dict[str, Any]], str | None]:
        """The user's push channels without their secrets, and the id of the default one (None: none)."""
        doc = await self.users.find_one({"_id": user_id}, {"push_channels": 1, "push_default": 1})
        channels = [{k: v for k, v in c.items() if k != "secret"} for c in (doc or {}).get("push_channels") or []]
        return channels, (doc or {}).get("push_default")

    async def remove_push_channel(self, user_id: str, channel_id: str) -> bool:
        """Remove one (and stop it being the default); False when the user has none of this id."""
        result = await self.users.update_one(
            {"_id": user_id, "push_channels.id": channel_id}, {"$pull": {"push_channels": {"id": channel_id}}}
        )
        await self.users.update_one({"_id": user_id, "push_default": channel_id}, {"$set": {"push_default": None}})
        return result.modified_count == 1

    async def set_push_default(self, user_id: str, channel_id: str | None) -> bool:
        """Send the matches of follows without a channel of their own to this one (None: to the user's webhook, if
        any); False when the user has no channel of this id."""
        held = {} if channel_id is None else {"push_channels.id": channel_id}
        result = await self.users.update_one({"_id": user_id, **held}, {"$set": {"push_default": channel_id}})
        return result.matched_count == 1

    async def set_email(self, user_id: str, email: str | None) -> None:
        await self.users.update_one({"_id": user_id}, {"$set": {"email": email}})


class ApiTokens:
    """API tokens (`api_tokens`): only their hashes are stored; a token reads its user."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.api_tokens = db[API_TOKENS.name]
        self.users = db[USERS.name]

    async def ensure_indexes(self) -> None:
        await self.api_tokens.create_index("token_hash", unique=True)
        await self.api_tokens.create_index([("user_id", 1), ("created_at", DESCENDING)])

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

    async def revoke_tokens(self, user_id: str) -> int:
        """Revoke every token of the user (their password changed or was reset, or they signed out everywhere): a
        token never outlives the secrets of the account that made it. How many were revoked."""
        return (await self.api_tokens.delete_many({"user_id": user_id})).deleted_count

    async def user_for_token(self, token: str) -> dict[str, Any] | None:
        """The user of an API token, its last use noted (at most once a minute, so reads stay reads)."""
        found = await self.api_tokens.find_one({"token_hash": token_hash(token)})
        if found is None:
            return None
        now = datetime.now(UTC)
        if found["last_used_at"] is None or found["last_used_at"].replace(tzinfo=UTC) < now - LAST_USED_EVERY:
            await self.api_tokens.update_one({"_id": found["_id"]}, {"$set": {"last_used_at": now}})
        return await self.users.find_one({"_id": found["user_id"]}, SECRETS_LEFT_OUT)


class Sessions:
    """Web sessions (`sessions`): the cookie holds the id; only its hash is stored."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.sessions = db[SESSIONS.name]
        self.users = db[USERS.name]

    async def ensure_indexes(self) -> None:
        await ensure_index(self.sessions, [("expires_at", 1)], expireAfterSeconds=0)
        await self.sessions.create_index("user_id")

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
        return await self.users.find_one({"_id": found["user_id"]}, SECRETS_LEFT_OUT)

    async def drop_session(self, session: str) -> None:
        await self.sessions.delete_one({"_id": token_hash(session)})

    async def drop_sessions(self, user_id: str, keep: str | None = None) -> int:
        """Sign the user out everywhere (but in the session `keep`, if given); return how many sessions ended."""
        others = {"_id": {"$ne": token_hash(keep)}} if keep else {}
        return (await self.sessions.delete_many({"user_id": user_id, **others})).deleted_count

    async def count_sessions(self, user_id: str) -> int:
        return await self.sessions.count_documents({"user_id": user_id, "expires_at": {"$gt": datetime.now(UTC)}})


class EmailTokens:
    """Links mailed to confirm an address or reset a password (`email_tokens`): single use, hashed, expiring."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.email_tokens = db[EMAIL_TOKENS.name]

    async def ensure_indexes(self) -> None:
        await ensure_index(self.email_tokens, [("expires_at", 1)], expireAfterSeconds=0)
        await self.email_tokens.create_index("user_id")

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


class Follows:
    """The readers' follows (`follows`), each with the key of its Atom feed."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.follows = db[FOLLOWS.name]

    async def ensure_indexes(self) -> None:
        await self.follows.create_index([("user_id", 1), ("created_at", DESCENDING)])

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

    async def set_push_channel(self, user_id: str, follow_id: str, channel_id: str | None) -> tuple[Follow, str] | None:
        """Send a follow's matches to this push channel of its owner's (None: to the owner's default); the follow
        as it is now, or None when the user has no follow of this id."""
        change = {"$set": {"push_channel_id": channel_id}} if channel_id else {"$unset": {"push_channel_id": ""}}
        doc = await self.follows.find_one_and_update(
            {"_id": follow_id, "user_id": user_id}, change, return_document=ReturnDocument.AFTER
        )
        return self._follow(doc) if doc else None

    async def delete_follow(self, user_id: str, follow_id: str) -> bool:
        result = await self.follows.delete_one({"_id": follow_id, "user_id": user_id})
        return result.deleted_count == 1


class Corrections:
    """Readers' error reports (`corrections`); no public listing: they carry contact addresses."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.corrections = db[CORRECTIONS.name]

    async def ensure_indexes(self) -> None:
        await ensure_index(self.corrections, [("paper_id", 1), ("status", 1)])  # the per-paper open-report cap
        await ensure_index(self.corrections, [("status", 1), ("created_at", DESCENDING)])  # operators' list
        await self.corrections.create_index("user_id", sparse=True)  # a deleted user's reports lose their contact

    async def add_correction(self, report: CorrectionReport, reporter: str) -> None:
        """Keep a report with its reporter's key (a user's id, or a keyed hash of an anonymous client's address:
        never the address itself), by which their open reports on a paper are counted."""
        doc = {"_id": report.id, **report.model_dump(mode="python", exclude={"id"}), "reporter": reporter}
        await self.corrections.insert_one(doc)

    async def count_open_corrections(self, paper_id: str, reporter: str | None = None) -> int:
        """The paper's open reports; only this reporter's when one is given."""
        query = {"paper_id": paper_id, "status": "open", **({"reporter": reporter} if reporter else {})}
        return await self.corrections.count_documents(query)

    async def list_corrections(self, status: str | None = None, limit: int = 200) -> list[CorrectionReport]:
        """Reports, newest first; only those with this status when one is given."""
        cursor = self.corrections.find({"status": status} if status else {}).sort("created_at", DESCENDING)
        return [CorrectionReport.model_validate({**doc, "id": doc["_id"]}) async for doc in cursor.limit(limit)]

    async def close_correction(self, report_id: str, now: datetime) -> CorrectionReport | None:
        """Mark a report handled; None when there is no such report. Closing a closed report keeps its time."""
        await self.corrections.update_one(
            {"_id": report_id, "status": "open"}, {"$set": {"status": "closed", "closed_at": now}}
        )
        return await self.get_correction(report_id)

    async def get_correction(self, report_id: str) -> CorrectionReport | None:
        doc = await self.corrections.find_one({"_id": report_id})
        return CorrectionReport.model_validate({**doc, "id": doc["_id"]}) if doc else None

    async def mark_applied(self, report_id: str, now: datetime, applied: str) -> CorrectionReport | None:
        """Mark an open report applied, saying what was applied; None when there is no such report."""
        await self.corrections.update_one(
            {"_id": report_id, "status": "open"},
            {"$set": {"status": "applied", "closed_at": now, "applied": applied}},
        )
        return await self.get_correction(report_id)


class WriteCounts:
    """Write limits' windows (`rate_limits`), shared by every replica."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.rate_limits = db[RATE_LIMITS.name]

    async def ensure_indexes(self) -> None:
        await ensure_index(self.rate_limits, [("expires_at", 1)], expireAfterSeconds=0)  # a window ends, it goes

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

    async def past_rate(self, limit: str, rate: Rate, subject: str, now: datetime) -> Window | None:
        """Count one write of `subject` in its window of `limit`: that window if the write is past the rate (to
        refuse, or to leave undone), else None."""
        current = window(limit, rate, subject, now)
        return current if over(await self.count_write(current.key, current.ends_at + GRACE), rate) else None

    async def write_count(self, window_key: str) -> int:
        """How many writes its window has counted so far (0 for a window nothing was counted in)."""
        doc = await self.rate_limits.find_one({"_id": window_key}, {"count": 1})
        return int(doc["count"]) if doc else 0


class SiteKeys:
    """The site secret a local run makes for itself when SITE_SECRET is unset (`site_keys`): the first replica to
    start inserts one, every replica reads that one, so all sign and check alike (and go on doing so after a
    restart). Production requires SITE_SECRET and never reads this."""

    SITE_SECRET = "site_secret"

    def __init__(self, db: AsyncDatabase) -> None:
        self.site_keys = db[SITE_KEYS.name]

    async def kept_secret(self) -> bytes:
        made = {"_id": self.SITE_SECRET, "secret": secrets.token_urlsafe(48), "created_at": datetime.now(UTC)}
        with contextlib.suppress(DuplicateKeyError):  # another replica made it first: theirs is the one
            await self.site_keys.insert_one(made)
        kept = await self.site_keys.find_one({"_id": self.SITE_SECRET})
        assert kept is not None
        return str(kept["secret"]).encode()


class SiteSecret:
    """The key of what the site signs: SITE_SECRET when it is set (known at once), else the one a local run keeps in
    MongoDB (`SiteKeys`), read by `load` before the first request. A worker, which signs nothing, has none."""

    def __init__(self, configured: bytes | None, kept: SiteKeys | None) -> None:
        self._value, self._kept = configured, kept

    async def load(self) -> None:
        if self._value is None and self._kept is not None:
            self._value = await self._kept.kept_secret()

    @property
    def value(self) -> bytes:
        if self._value is not None:
            return self._value
        if self._kept is None:
            return b""
        raise RuntimeError("the site secret was read before the query service's resources were prepared")


class Matches:
    """The matcher's matches of the readers' follows (`matches`, read only here)."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.matches = db[MATCHES.name]

    async def papers_page(
        self,
        user_id: str,
        follow_id: str | None,
        after: tuple[bool, datetime, str] | None,
        limit: int,
        skip: int = 0,
    ) -> list[dict[str, Any]]:
        """One page of the papers the user's matches (of one follow, or of all) name, once each: `_id` the paper,
        `at` its newest match, `backfill` True when every match of it came from a backfill. New ones first, newest
        match first (then by paper id); after (backfill, at, paper id) when given, less the first `skip`."""
        pipeline: list[dict[str, Any]] = [
            {"$match": {"user_id": user_id, **({"follow_id": follow_id} if follow_id else {})}},
            {"$group": {"_id": "$paper_id", "at": {"$max": "$matched_at"}, "backfill": {"$min": "$backfill"}}},
        ]
        if after is not None:
            backfill, at, paper_id = after
            later: list[dict[str, Any]] = [
                {"backfill": backfill, "at": {"$lt": at}},
                {"backfill": backfill, "at": at, "_id": {"$lt": paper_id}},
            ]
            if not backfill:
                later.append({"backfill": True})
            pipeline.append({"$match": {"$or": later}})
        pipeline.append({"$sort": {"backfill": 1, "at": -1, "_id": -1}})
        pipeline += [{"$skip": skip}] if skip else []
        pipeline.append({"$limit": limit})
        return [doc async for doc in await self.matches.aggregate(pipeline)]

    async def paper_counts(self, user_id: str, follow_id: str | None, since: datetime | None) -> dict[str, int]:
        """How many papers the user's matches (of one follow, or of all) name: `total`, `backfilled` (every match of
        it from a backfill) and `new` (not backfilled, matched after `since`)."""
        grouped = {"_id": "$paper_id", "at": {"$max": "$matched_at"}, "backfill": {"$min": "$backfill"}}
        pipeline: list[dict[str, Any]] = [
            {"$match": {"user_id": user_id, **({"follow_id": follow_id} if follow_id else {})}},
            {"$group": grouped},
        ]
        counts = {"total": 0, "backfilled": 0, "new": 0}
        async for doc in await self.matches.aggregate(pipeline):
            counts["total"] += 1
            if doc.get("backfill"):
                counts["backfilled"] += 1
            elif since is not None and doc["at"] > since:
                counts["new"] += 1
        return counts

    async def of_papers(self, user_id: str, paper_ids: list[str]) -> list[dict[str, Any]]:
        """Every match of the user's follows with these papers, newest first."""
        query = {"user_id": user_id, "paper_id": {"$in": paper_ids}}
        cursor = self.matches.find(query, {"_id": 0, "user_id": 0}).sort("matched_at", DESCENDING)
        return [doc async for doc in cursor]

    async def follow_counts(self, user_id: str) -> dict[str, int]:
        """How many papers each of the user's follows has matched."""
        pipeline: list[dict[str, Any]] = [
            {"$match": {"user_id": user_id}},
            {"$group": {"_id": "$follow_id", "n": {"$sum": 1}}},
        ]
        return {doc["_id"]: doc["n"] async for doc in await self.matches.aggregate(pipeline)}

    async def matches_for(self, user_id: str, follow_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        query: dict[str, Any] = {"user_id": user_id}
        if follow_id:
            query["follow_id"] = follow_id
        cursor = self.matches.find(query, {"_id": 0}).sort("matched_at", DESCENDING).limit(limit)
        return [doc async for doc in cursor]


class Deliveries:
    """The matcher's webhook state (`webhook_endpoints`, `webhook_deliveries`) and digests (`digests`): read only."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.webhook_endpoints = db[WEBHOOK_ENDPOINTS.name]
        self.webhook_deliveries = db[WEBHOOK_DELIVERIES.name]
        self.sent_digests = db[DIGESTS.name]

    async def webhook_endpoint(self, user_id: str, url: str) -> dict[str, Any] | None:
        """The matcher's state of the user's webhooks on the URL's host (failures are counted per host)."""
        return await self.webhook_endpoints.find_one({"user_id": user_id, "host": url_host(url)}, {"_id": 0})

    async def deliveries(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        """The user's latest deliveries (queued ones too), without the signed body the matcher keeps to send."""
        cursor = (
            self.webhook_deliveries.find({"user_id": user_id}, DELIVERY_HIDDEN)
            .sort("created_at", DESCENDING)
            .limit(limit)
        )
        return [doc async for doc in cursor]

    async def digests(self, user_id: str, limit: int) -> list[dict[str, Any]]:
        cursor = self.sent_digests.find({"user_id": user_id}, {"_id": 0}).sort("day", DESCENDING).limit(limit)
        return [doc async for doc in cursor]


@dataclass(frozen=True, slots=True)
class ReaderRecords:
    """The readers' repositories over one database, and what spans several of them (a user made with a token, a
    user deleted with everything of theirs)."""

    db: AsyncDatabase
    users: Users
    tokens: ApiTokens
    sessions: Sessions
    email_tokens: EmailTokens
    follows: Follows
    corrections: Corrections
    write_counts: WriteCounts
    matches: Matches
    deliveries: Deliveries

    @classmethod
    def of(cls, db: AsyncDatabase) -> "ReaderRecords":
        return cls(db, Users(db), ApiTokens(db), Sessions(db), EmailTokens(db), Follows(db), Corrections(db),
                   WriteCounts(db), Matches(db), Deliveries(db))  # fmt: skip

    async def ensure_indexes(self) -> None:
        for owned in (self.users, self.tokens, self.sessions, self.email_tokens, self.follows, self.corrections,
                      self.write_counts):  # fmt: skip
            await owned.ensure_indexes()

    async def create_user(self, name: str) -> tuple[str, str]:
        """Create a user with an API token (operators' `papertrail users create`); return (user id, token)."""
        user_id = uuid.uuid4().hex
        await self.users.users.insert_one({"_id": user_id, "name": name, "created_at": datetime.now(UTC)})
        return user_id, await self.tokens.create_token(user_id, "papertrail users create")

    async def delete_user(self, user_id: str) -> dict[str, int]:
        """Delete the user and every document of theirs this service keeps (collections.USER_DATA); their error
        reports stay for the operators, without contact or user. Return the counts removed, by collection."""
        removed = {c.name: (await self.db[c.name].delete_many({"user_id": user_id})).deleted_count for c in USER_DATA}
        reports = await self.corrections.corrections.update_many(
            {"user_id": user_id}, {"$set": {"contact": None, "user_id": None}}
        )
        removed[CORRECTIONS.name] = reports.modified_count
        removed[USERS.name] = (await self.users.users.delete_one({"_id": user_id})).deleted_count
        return removed
