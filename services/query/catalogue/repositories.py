"""The catalogue's MongoDB access: its own collections and the reads of the other services' papers and vectors.

Owned here (written only by this service): source_runs (harvest runs, from harvest.status.v1), index_state (what the
search index's documents were made with).
Read only: papers and paper_versions (normalizer), paper_vectors, search_vectors, summaries and summary_pending
(summarizer), venue_catalogue (harvester).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from pymongo import DESCENDING
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.embedding.paper_vectors import PAPER_VECTORS_PROJECTION, vector_of
from papertrail.runtime.collections import (
    INDEX_STATE,
    PAPER_VECTORS,
    PAPER_VERSIONS,
    PAPERS,
    SEARCH_VECTORS,
    SOURCE_RUNS,
    SUMMARIES,
    SUMMARY_PENDING,
)
from papertrail.runtime.venue_catalogue import VenueCatalogue
from schemas.events import HarvestStatus
from schemas.summary import NO_MODEL_CONFIGURED, SUMMARY_PRIORITIES
from services.query.catalogue.reads.paper_lookup import PaperKey, anthology_key, holder


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


class Papers:
    """The normalizer's papers and their versions (`papers`, `paper_versions`, read only here)."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.papers = db[PAPERS.name]
        self.versions = db[PAPER_VERSIONS.name]

    async def paper(self, key: PaperKey) -> dict[str, Any] | None:
        """The paper holding this id, in one find on the normalizer's index of that `ids` field (unique for arXiv
        and ACL ids): a canonical id is looked up the same way, since a paper holds its canonical id in `ids`."""
        found = holder(key, await self.papers.find({key.field: key.value}).to_list(None))
        if found is None and (acl := anthology_key(key)) is not None:  # an Anthology DOI names its Anthology id
            found = holder(acl, await self.papers.find({acl.field: acl.value}).to_list(None))
        return found

    async def versions_of(self, paper_id: str) -> list[dict[str, Any]]:
        cursor = self.versions.find({"paper_id": paper_id}, {"_id": 0}).sort("seq", 1)
        return [doc async for doc in cursor]

    async def count_versions(self, kind: str, since: datetime, until: datetime) -> int:
        return await self.versions.count_documents({"kind": kind, "observed_at": {"$gte": since, "$lt": until}})

    async def latest_version_time(self) -> datetime | None:
        doc = await self.versions.find_one({}, sort=[("observed_at", DESCENDING)])
        return doc["observed_at"] if doc else None


class PaperVectors:
    """The summarizer's paper vectors (`paper_vectors`) and search vectors (`search_vectors`), read only here."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.paper_vectors = db[PAPER_VECTORS.name]
        self.search_vectors = db[SEARCH_VECTORS.name]

    async def search_vectors_of(self, paper_ids: Sequence[str], search_model_key: str) -> dict[str, np.ndarray]:
        """The papers' search vectors of this model (SEARCH_EMBEDDING_MODEL's), by paper id; papers without one are
        left out."""
        return await paper_vectors_of(self.search_vectors, paper_ids, search_model_key)

    async def vectors_of(self, paper_ids: Sequence[str], model_key: str) -> dict[str, np.ndarray]:
        """The papers' vectors of this model, by paper id; papers without one are left out."""
        return await paper_vectors_of(self.paper_vectors, paper_ids, model_key)

    async def settled_count(self, model_key: str, *, search: bool) -> int:
        """How many papers the summarizer has settled for this model (embedded, or failed: a text it cannot embed is
        not waiting): search vectors (`search`) or the papers' own."""
        vectors = self.search_vectors if search else self.paper_vectors
        return await vectors.count_documents({"state": {"$in": ["embedded", "failed"]}, "model": model_key})

    async def vector_state(self, paper_id: str, model_key: str) -> str:
        """embedded or failed when the summarizer settled the paper's vector for this model; else pending."""
        doc = await self.paper_vectors.find_one({"_id": paper_id}, {"model": 1, "state": 1})
        return str(doc["state"]) if doc and doc.get("model") == model_key else "pending"

    async def papers_with_vectors(self, paper_ids: list[str]) -> set[str]:
        """Of these papers, those the summarizer has embedded (by whatever model it runs now or ran before: the
        matcher reads the vectors of its own model, and a new model re-embeds every paper in the background)."""
        if not paper_ids:
            return set()
        found = self.paper_vectors.find({"_id": {"$in": paper_ids}, "state": "embedded"}, {"_id": 1})
        return {doc["_id"] async for doc in found}


class SourceRuns:
    """The latest state of every harvest run (`source_runs`, from harvest.status.v1)."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.source_runs = db[SOURCE_RUNS.name]

    async def ensure_indexes(self) -> None:
        await self.source_runs.create_index([("source", 1), ("started_at", DESCENDING)])

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


class IndexState:
    """What the search index's documents were last made with (`index_state`): topic catalogue, vectors' model, search
    vectors' model, author name keys."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.index_state = db[INDEX_STATE.name]

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

    async def search_vectors_model(self, index_name: str) -> str | None:
        """The model whose search vectors the index's documents hold, if any were attached to all of them."""
        doc = await self.index_state.find_one({"_id": index_name})
        return doc.get("search_vectors_model") if doc else None

    async def save_search_vectors_model(self, index_name: str, model_key: str) -> None:
        update = {"$set": {"search_vectors_model": model_key}}
        await self.index_state.update_one({"_id": index_name}, update, upsert=True)

    async def author_names_scheme(self, index_name: str) -> str | None:
        """The scheme of the documents' full-name author keys (`author_names`), once every document has them."""
        doc = await self.index_state.find_one({"_id": index_name})
        return doc.get("author_names") if doc else None

    async def save_author_names_scheme(self, index_name: str, scheme: str) -> None:
        await self.index_state.update_one({"_id": index_name}, {"$set": {"author_names": scheme}}, upsert=True)


class SummaryBacklog:
    """The summarizer's progress as its collections hold it (read only): the papers waiting for a summary, by rank
    and by why they wait, and the summaries written or failed lately."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.pending = db[SUMMARY_PENDING.name]
        self.summaries = db[SUMMARIES.name]

    async def waiting_by_priority(self) -> dict[int, int]:
        """Waiting papers per rank (schemas.summary.SUMMARY_PRIORITIES); one held before ranks existed is the last."""
        last = len(SUMMARY_PRIORITIES) - 1
        groups = self.pending.aggregate([{"$group": {"_id": {"$ifNull": ["$priority", last]}, "papers": {"$sum": 1}}}])
        return {doc["_id"]: doc["papers"] async for doc in await groups}

    async def place_of(self, paper_id: str) -> int | None:
        """The paper's place in the summary sweep's queue (1: next), in the sweep's order (rank, the newest first,
        the longest waiting first); None when it does not wait, or waits only because no model is configured
        (then nothing is being written)."""
        held = await self.pending.find_one({"_id": paper_id}, projection=["priority", "newest", "since", "reason"])
        if held is None or held.get("reason") == NO_MODEL_CONFIGURED:
            return None
        rank, newest, since = held.get("priority", len(SUMMARY_PRIORITIES) - 1), held.get("newest"), held.get("since")
        # three counts, each a range of the sweep's index, rather than one `$or` of them: MongoDB-protocol servers
        # without plans for `$or` (the local stack's) count it by reading every waiting paper
        ahead = (
            {"priority": {"$lt": rank}},
            {"priority": rank, "newest": {"$gt": newest}},
            {"priority": rank, "newest": newest, "since": {"$lt": since}},
        )
        return sum([await self.pending.count_documents(part) for part in ahead]) + 1

    async def waiting_by_reason(self, limit: int) -> list[tuple[str, int]]:
        """Why papers wait (no model, the day's budget spent, the endpoint down …), the commonest first."""
        groups = self.pending.aggregate(
            [
                {"$group": {"_id": {"$ifNull": ["$reason", "pending"]}, "papers": {"$sum": 1}}},
                {"$sort": {"papers": -1, "_id": 1}},
                {"$limit": limit},
            ]
        )
        return [(doc["_id"], doc["papers"]) async for doc in await groups]

    async def written_since(self, since: datetime) -> dict[str, int]:
        """Summaries written from `since`, by status (ok, failed)."""
        groups = self.summaries.aggregate(
            [
                {"$match": {"generated_at": {"$gte": since}}},
                {"$group": {"_id": "$status", "summaries": {"$sum": 1}}},
            ]
        )
        return {doc["_id"]: doc["summaries"] async for doc in await groups}


@dataclass(frozen=True, slots=True)
class CatalogueRecords:
    """The catalogue's repositories over one database."""

    papers: Papers
    vectors: PaperVectors
    source_runs: SourceRuns
    index_state: IndexState
    summary_backlog: SummaryBacklog
    venues: VenueCatalogue

    @classmethod
    def of(cls, db: AsyncDatabase) -> "CatalogueRecords":
        return cls(Papers(db), PaperVectors(db), SourceRuns(db), IndexState(db), SummaryBacklog(db), VenueCatalogue(db))

    async def ensure_indexes(self) -> None:
        await self.source_runs.ensure_indexes()
