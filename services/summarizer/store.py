"""The summarizer's collections: `summaries` (the cache), `summary_pending` (papers waiting), `summary_budget`,
`papers_announced` (the public topic's papers), `title_translations` (the title path's Chinese titles), and the
vectors' `paper_vectors`, `search_vectors`, `embedding_pending`, `embedding_budget` and `embedding_model`.

No other file touches MongoDB for the summarizer.
"""

import contextlib
from datetime import UTC, datetime
from typing import Any

from pymongo import ASCENDING, DESCENDING, DeleteOne, ReplaceOne, UpdateOne
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import OperationFailure

from papertrail.embedding.paper_vectors import PAPER_VECTORS_PROJECTION, SEARCH_VECTORS_MODEL_ID, VECTORS_MODEL_ID
from papertrail.runtime.collections import (
    EMBEDDING_BUDGET,
    EMBEDDING_MODEL,
    EMBEDDING_PENDING,
    LIBRARY,
    MATCHES,
    PAPER_VECTORS,
    PAPERS,
    PAPERS_ANNOUNCED,
    READER_PICKS,
    SEARCH_VECTORS,
    SUMMARIES,
    SUMMARY_BUDGET,
    SUMMARY_PENDING,
    TITLE_TRANSLATIONS,
    Collection,
)
from papertrail.runtime.mongo import insert_else_update
from schemas.events import PaperEnriched, PaperNormalized
from schemas.paper import Paper, PaperVersion
from schemas.paper_vector import PaperVector
from schemas.summary import NO_MODEL_CONFIGURED, Summary
from services.summarizer.titles import KnownTitle

_SUMMARY_FIELDS = tuple(Summary.model_fields)


def _summary(doc: dict[str, Any] | None) -> Summary | None:
    if doc is None:
        return None
    return Summary.model_validate({k: doc[k] for k in _SUMMARY_FIELDS if k in doc})


async def _hold(pending: AsyncCollection, held: list[tuple[PaperNormalized | PaperEnriched, dict[str, Any]]]) -> None:
    """Papers waiting with their event and `fields`, keyed by paper: a newer event of a paper replaces the older one
    (what it waited for would be stale), its wait keeps its start. Most are new papers: inserted in one round trip."""
    if not held:
        return
    now = datetime.now(UTC)
    await insert_else_update(
        pending,
        [
            (
                {"_id": event.paper.id, **fields, "since": now, "attempts": 0},
                {"$set": fields, "$setOnInsert": {"since": now, "attempts": 0}},
            )
            for event, extra in held
            for fields in [{"event": event.model_dump(mode="json"), **extra}]
        ],
    )


class SummaryStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.summaries = db[SUMMARIES.name]
        self.pending = db[SUMMARY_PENDING.name]
        self.budget = db[SUMMARY_BUDGET.name]

    async def ensure_indexes(self) -> None:
        await self.summaries.create_index([("paper_ids", ASCENDING), ("generated_at", DESCENDING)])
        await self.pending.create_index([("priority", ASCENDING), ("newest", DESCENDING), ("since", ASCENDING)])
        await self.pending.create_index(
            [("titled", ASCENDING), ("priority", ASCENDING), ("newest", DESCENDING), ("since", ASCENDING)]
        )

    # the cache

    async def find(self, key: str) -> Summary | None:
        return _summary(await self.summaries.find_one({"_id": key}))

    async def latest_for_paper(self, paper_id: str) -> Summary | None:
        """The paper's newest summary of any content, model or prompt: what a metadata update keeps."""
        doc = await self.summaries.find_one({"paper_ids": paper_id}, sort=[("generated_at", DESCENDING)])
        return _summary(doc)

    async def save(self, key: str, digest: str, paper_id: str, summary: Summary) -> None:
        """Upsert by cache key: the same content summarized twice (a replay, a redelivery) is one entry."""
        await self.summaries.update_one(
            {"_id": key},
            {
                "$set": {"content_hash": digest, **summary.model_dump(mode="python")},
                "$addToSet": {"paper_ids": paper_id},
            },
            upsert=True,
        )

    async def remember_paper(self, key: str, paper_id: str) -> None:
        """A cache hit for another paper with the same text: it may keep the summary on later updates too."""
        await self.summaries.update_one({"_id": key}, {"$addToSet": {"paper_ids": paper_id}})

    # papers waiting for a summary: the whole event, so the sweep can emit it again without reading `papers`

    async def hold_many(
        self, held: list[tuple[PaperNormalized, str, str, int]], *, titled: frozenset[str] = frozenset()
    ) -> None:
        """(event, content hash, reason, priority) per paper, keyed by paper: a newer event of the same paper replaces
        the older one (its summary would be stale) and keeps the higher of the two ranks. Most are new papers, so they
        are inserted in one round trip. `titled`: papers whose event went out with a Chinese title already (the title
        path has nothing to do for them)."""
        now = datetime.now(UTC)
        await insert_else_update(
            self.pending,
            [
                (
                    {"_id": event.paper.id, **fields, "priority": priority, "since": now, "attempts": 0},
                    {"$set": fields, "$min": {"priority": priority}, "$setOnInsert": {"since": now, "attempts": 0}},
                )
                for event, digest, reason, priority in held
                for fields in [
                    {
                        "event": event.model_dump(mode="json"),
                        "content_hash": digest,
                        "reason": reason,
                        "newest": event.paper.published_at or event.paper.first_seen,
                        "titled": event.paper.id in titled,  # whether the title path is done with this event
                    }
                ]
            ],
        )

    async def waiting(self, limit: int) -> list[tuple[PaperNormalized, str]]:
        """The waiting papers in the sweep's order (policy.PRIORITIES, then the newest first), with the content hash
        they wait with."""
        order = [("priority", ASCENDING), ("newest", DESCENDING), ("since", ASCENDING)]
        cursor = self.pending.find({}, sort=order, limit=limit)
        return [(PaperNormalized.model_validate(d["event"]), d["content_hash"]) async for d in cursor]

    async def waiting_untitled(self, limit: int) -> list[tuple[PaperNormalized, str, str]]:
        """Waiting papers the title path has not looked at with their current event, in the summary sweep's order,
        with the content hash and the reason they wait with."""
        order = [("priority", ASCENDING), ("newest", DESCENDING), ("since", ASCENDING)]
        cursor = self.pending.find({"titled": {"$ne": True}}, sort=order, limit=limit)
        return [
            (PaperNormalized.model_validate(d["event"]), d["content_hash"], d.get("reason") or NO_MODEL_CONFIGURED)
            async for d in cursor
        ]

    async def mark_titled(self, paper_id: str, digest: str) -> None:
        """The title path is done with this event of the paper (a newer event, another hash, is looked at again)."""
        await self.pending.update_one({"_id": paper_id, "content_hash": digest}, {"$set": {"titled": True}})

    async def prioritize(self, paper_ids: set[str], priority: int) -> int:
        """Raise these waiting papers to `priority` (never lower one); how many were raised."""
        if not paper_ids:
            return 0
        raised = await self.pending.update_many(
            {"_id": {"$in": sorted(paper_ids)}, "priority": {"$gt": priority}}, {"$set": {"priority": priority}}
        )
        return raised.modified_count

    async def backlog_by_priority(self) -> dict[int, int]:
        counts = self.pending.aggregate([{"$group": {"_id": "$priority", "papers": {"$sum": 1}}}])
        return {doc["_id"]: doc["papers"] async for doc in await counts}

    async def still_waiting(self, paper_id: str, digest: str) -> bool:
        return await self.pending.find_one({"_id": paper_id, "content_hash": digest}, projection=["_id"]) is not None

    async def release(self, paper_id: str, digest: str) -> None:
        """Done waiting with this content; a newer event's entry (another content hash) stays."""
        await self.pending.delete_one({"_id": paper_id, "content_hash": digest})

    async def release_many(self, paper_ids: list[str]) -> None:
        if paper_ids:
            await self.pending.delete_many({"_id": {"$in": paper_ids}})

    async def note_attempt(self, paper_id: str, reason: str) -> None:
        await self.pending.update_one({"_id": paper_id}, {"$inc": {"attempts": 1}, "$set": {"reason": reason}})

    async def queue_papers_held_for_no_model(self) -> int:
        """Papers held because no model was configured wait for this one now: they lose that reason, so readers see
        their place in the queue (a sweep that stops at the endpoint's first refusal would never reach most)."""
        held = await self.pending.update_many({"reason": NO_MODEL_CONFIGURED}, {"$unset": {"reason": ""}})
        return held.modified_count

    async def backlog(self) -> int:
        # the collection's count, not a scan of it: the gauge is refreshed every sweep, however long the backlog
        return await self.pending.estimated_document_count()

    # the daily token budget, shared by every instance

    async def tokens_used(self, day: str) -> int:
        doc = await self.budget.find_one({"_id": day})
        return int(doc["tokens_in"] + doc["tokens_out"]) if doc else 0

    async def spend(self, day: str, tokens_in: int, tokens_out: int) -> None:
        await self.budget.update_one(
            {"_id": day}, {"$inc": {"tokens_in": tokens_in, "tokens_out": tokens_out, "calls": 1}}, upsert=True
        )


class TitleStore:
    """`title_translations`: one Chinese title per title text, model and prompt version (titles.title_key)."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.titles = db[TITLE_TRANSLATIONS.name]

    async def find(self, key: str) -> KnownTitle | None:
        doc = await self.titles.find_one({"_id": key})
        return KnownTitle(doc.get("title_zh"), doc["model"], doc.get("error")) if doc else None

    async def save(self, key: str, title: str, known: KnownTitle) -> None:
        await self.titles.update_one(
            {"_id": key},
            {
                "$set": {
                    "title": title,
                    "title_zh": known.title_zh,
                    "model": known.model,
                    "error": known.error,
                    "generated_at": datetime.now(UTC),
                }
            },
            upsert=True,
        )


class ReaderInterest:
    """The papers readers asked for, read (never written) from the services that own them: matched by a follow (the
    matcher's `matches`), saved (the query service's `library`), picked for a ranked feed (its `reader_picks`). Their
    summaries come first (policy.PRIORITIES)."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.matches = db[MATCHES.name]
        self.library = db[LIBRARY.name]
        self.reader_picks = db[READER_PICKS.name]

    async def asked_since(self, since: datetime) -> set[str]:
        """Papers matched or saved since `since` (the sweep reads on from where it was), and every reader's picks."""
        asked = {d["paper_id"] async for d in self.matches.find({"matched_at": {"$gte": since}}, {"paper_id": 1})}
        asked |= {d["paper_id"] async for d in self.library.find({"saved_at": {"$gte": since}}, {"paper_id": 1})}
        async for doc in self.reader_picks.find({}, {"picks.paper_id": 1}):
            asked |= {pick["paper_id"] for pick in doc.get("picks") or []}
        return asked


class AnnouncedPapers:
    """The papers published on papers.new.v1: a paper's first event delivered again (a batch whose offsets were not
    committed) is not announced twice to the systems outside."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.announced = db[PAPERS_ANNOUNCED.name]

    async def not_announced(self, paper_ids: list[str]) -> set[str]:
        seen = {doc["_id"] async for doc in self.announced.find({"_id": {"$in": paper_ids}}, {"_id": 1})}
        return set(paper_ids) - seen

    async def record(self, paper_ids: list[str], now: datetime | None = None) -> None:
        """Once the broker confirmed them; a paper recorded before keeps its first time."""
        if paper_ids:
            at = now or datetime.now(UTC)
            await self.announced.bulk_write(
                [UpdateOne({"_id": p}, {"$setOnInsert": {"at": at}}, upsert=True) for p in paper_ids], ordered=False
            )

    async def forget(self, paper_id: str) -> None:
        """A withdrawn paper (systems outside drop it too) is announced again if it ever comes back."""
        await self.announced.delete_one({"_id": paper_id})


class StoredVectors:
    """One collection of `PaperVector` documents, one per paper (the outcome of one model: a vector or a failure),
    found again by content and model (the cache), and the model it is made with, recorded in `embedding_model`:
    `paper_vectors` (the papers' vectors) and `search_vectors` (their second, multilingual vectors for search)."""

    def __init__(self, db: AsyncDatabase, collection: Collection, record_id: str) -> None:
        self.vectors = db[collection.name]
        self.record_id = record_id
        self.model = db[EMBEDDING_MODEL.name]
        self.papers = db[PAPERS.name]  # the normalizer's: read to queue papers that have no vector of this model

    async def ensure_indexes(self) -> None:
        # the model first: each query names one model, and an index led by the model serves a filter of it with
        # one more field (the cache's content hashes, the query service's count of settled states) on MongoDB and on
        # the local stand-in alike; the model alone is their prefix
        await self.vectors.create_index([("model", ASCENDING), ("content_hash", ASCENDING)])
        await self.vectors.create_index([("model", ASCENDING), ("state", ASCENDING)])
        for before in ("content_hash_1_model_1", "model_1"):  # what they replace (issue 42)
            with contextlib.suppress(OperationFailure):
                await self.vectors.drop_index(before)

    async def record_model(self, model_key: str) -> None:
        """The model the vectors are made with from now on (`none`: none are made): the matcher and the query
        service stop at start when theirs differs (papertrail/runtime/service.py)."""
        recorded = await self.model.find_one({"_id": self.record_id})
        if recorded is None or recorded.get("model") != model_key:
            document = {"_id": self.record_id, "model": model_key, "since": datetime.now(UTC)}
            await self.model.replace_one({"_id": self.record_id}, document, upsert=True)

    async def of_papers(self, paper_ids: list[str]) -> dict[str, PaperVector]:
        """The papers' stored vectors (or failures), by paper id."""
        cursor = self.vectors.find({"_id": {"$in": paper_ids}}, projection=PAPER_VECTORS_PROJECTION)
        return {doc["_id"]: PaperVector.model_validate(doc) async for doc in cursor}

    async def of_contents(self, digests: list[str], model: str) -> dict[str, PaperVector]:
        """One final outcome (vector or failure) per content hash of this model, from any paper with that text."""
        cursor = self.vectors.find(
            {"content_hash": {"$in": digests}, "model": model}, projection=PAPER_VECTORS_PROJECTION
        )
        return {doc["content_hash"]: PaperVector.model_validate(doc) async for doc in cursor}

    async def save(self, vectors: list[PaperVector]) -> None:
        """Write each paper's document whole: its vector or failure replaces what it had."""
        if vectors:
            await self.vectors.bulk_write([ReplaceOne({"_id": v.paper_id}, v.document(), upsert=True) for v in vectors])

    async def delete(self, paper_ids: list[str]) -> None:
        if paper_ids:
            await self.vectors.delete_many({"_id": {"$in": paper_ids}})

    async def papers_without_vectors(
        self, model: str, limit: int, waiting: AsyncCollection
    ) -> list[tuple[Paper, PaperVersion]]:
        """Stored papers with no vector or failure of this model yet (papers older than embeddings, or a new model):
        each with its latest version, at most `limit`, skipping those already `waiting`."""
        found: list[tuple[Paper, PaperVersion]] = []
        async for doc in await self.papers.aggregate(
            [
                {"$lookup": {"from": self.vectors.name, "localField": "_id", "foreignField": "_id", "as": "v"}},
                {"$match": {"v": {"$not": {"$elemMatch": {"model": model}}}}},
                {"$lookup": {"from": waiting.name, "localField": "_id", "foreignField": "_id", "as": "w"}},
                {"$match": {"w": {"$size": 0}}},
                {"$limit": limit},
                {"$project": {"v": 0, "w": 0}},
            ]
        ):
            if not doc.get("last_versions"):
                continue
            fields = {k: doc[k] for k in Paper.model_fields if k in doc and k != "id"}
            found.append(
                (
                    Paper.model_validate({"id": doc["_id"], **fields}),
                    PaperVersion.model_validate(doc["last_versions"][-1]),
                )
            )
        return found


def search_vectors(db: AsyncDatabase) -> StoredVectors:
    """`search_vectors`: each paper's second vector, of the search model (SEARCH_EMBEDDING_MODEL)."""
    return StoredVectors(db, SEARCH_VECTORS, SEARCH_VECTORS_MODEL_ID)


class VectorStore(StoredVectors):
    """`paper_vectors` (one vector or failure per paper, found again by content and model: the cache),
    `embedding_pending` (papers waiting for the sweep, with the event to emit again: for their vector, their search
    vector or both) and `embedding_budget`."""

    def __init__(self, db: AsyncDatabase) -> None:
        super().__init__(db, PAPER_VECTORS, VECTORS_MODEL_ID)
        self.pending = db[EMBEDDING_PENDING.name]
        self.budget = db[EMBEDDING_BUDGET.name]

    async def ensure_indexes(self) -> None:
        await super().ensure_indexes()
        await self.pending.create_index([("priority", ASCENDING), ("newest", DESCENDING), ("since", ASCENDING)])
        await self.pending.create_index([("since", ASCENDING)])  # the sweep's order: the longest waiting first

    async def hold_many(self, held: list[tuple[PaperEnriched, str]]) -> None:
        """(event as emitted, content hash) per paper waiting for its vector; a newer event replaces an older one."""
        await _hold(self.pending, [(event, {"content_hash": digest}) for event, digest in held])

    async def waiting(self, limit: int) -> list[tuple[PaperEnriched, str]]:
        """The oldest waiting papers first, each with the event it was emitted with and its content hash."""
        cursor = self.pending.find({}, sort=[("since", ASCENDING)], limit=limit)
        return [(PaperEnriched.model_validate(d["event"]), d["content_hash"]) async for d in cursor]

    async def still_waiting(self, paper_ids: list[str]) -> set[str]:
        """Those of the papers still waiting (a withdrawn one stopped waiting while the sweep embedded it)."""
        return {d["_id"] async for d in self.pending.find({"_id": {"$in": paper_ids}}, {"_id": 1})}

    async def release(self, done: list[tuple[str, str]]) -> None:
        """(paper id, content hash): done waiting with this content; a newer event's entry (another hash) stays."""
        if done:
            await self.pending.bulk_write([DeleteOne({"_id": p, "content_hash": d}) for p, d in done])

    async def release_papers(self, paper_ids: list[str]) -> None:
        if paper_ids:
            await self.pending.delete_many({"_id": {"$in": paper_ids}})
            await self.delete(paper_ids)

    async def note_attempt(self, paper_ids: list[str], reason: str) -> None:
        await self.pending.update_many(
            {"_id": {"$in": paper_ids}}, {"$inc": {"attempts": 1}, "$set": {"reason": reason}}
        )

    async def backlog(self) -> int:
        return await self.pending.estimated_document_count()


async def convert_vectors_to_float32(db: AsyncDatabase, batch: int = 500) -> int:
    """Rewrite the vectors `paper_vectors` holds as arrays of doubles (before PaperVector) as BSON binary float32, the
    values unchanged (float32 is what the models make); returns how many. Idempotent: a second run finds none. A
    vector the summarizer rewrote meanwhile (another `updated_at`) is left as it wrote it."""
    vectors = db[PAPER_VECTORS.name]
    converted = 0
    updates: list[UpdateOne] = []
    async for doc in vectors.find({"vector": {"$type": "array"}}, PAPER_VECTORS_PROJECTION):
        stored = PaperVector.model_validate(doc).document()
        filter_ = {"_id": doc["_id"], "updated_at": doc["updated_at"]}
        updates.append(UpdateOne(filter_, {"$set": {"vector": stored["vector"]}}))
        if len(updates) == batch:
            converted += (await vectors.bulk_write(updates, ordered=False)).modified_count
            updates = []
    if updates:
        converted += (await vectors.bulk_write(updates, ordered=False)).modified_count
    return converted


class MongoTokenBudget:
    """The embedding endpoint's daily token budget, shared by every instance of the summarizer."""

    def __init__(self, store: VectorStore) -> None:
        self.budget = store.budget

    async def used(self, day: str) -> int:
        doc = await self.budget.find_one({"_id": day})
        return int(doc["tokens"]) if doc else 0

    async def spend(self, day: str, tokens: int) -> None:
        await self.budget.update_one({"_id": day}, {"$inc": {"tokens": tokens, "calls": 1}}, upsert=True)
