"""The normalizer's collections: `papers`, `paper_versions` and `source_records` (which source said what).

Concurrency: a paper document carries `rev`; a write succeeds only against the revision it was computed
from, so two instances merging records of one work retry instead of overwriting each other. The version
record is written inside the paper document first (`last_version`), so it is never lost between the two
writes, then upserted into `paper_versions` keyed by (paper_id, seq).
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pymongo import ASCENDING
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import DuplicateKeyError

from schemas.events import RawRecord
from schemas.paper import Paper, PaperVersion
from services.normalizer.identity import Change, record_fingerprint
from services.normalizer.records import ParsedRecord

_INTERNAL = ("_id", "rev", "fingerprint", "version_count", "last_version")


@dataclass(slots=True)
class StoredPaper:
    paper: Paper
    rev: int
    version_count: int
    last_version: PaperVersion | None


def _to_paper(doc: dict[str, Any]) -> StoredPaper:
    last = doc.get("last_version")
    body = {k: v for k, v in doc.items() if k not in _INTERNAL}
    return StoredPaper(
        Paper.model_validate({"id": doc["_id"], **body}),
        doc.get("rev", 0),
        doc.get("version_count", 0),
        PaperVersion.model_validate(last) if last else None,
    )


class PaperStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.papers = db["papers"]
        self.versions = db["paper_versions"]
        self.source_records = db["source_records"]

    async def ensure_indexes(self) -> None:
        await self.papers.create_index([("ids.arxiv", ASCENDING)], unique=True, sparse=True)
        await self.papers.create_index([("ids.acl", ASCENDING)], unique=True, sparse=True)
        await self.papers.create_index([("ids.dois", ASCENDING)])
        await self.papers.create_index([("ids.openreview", ASCENDING)], sparse=True)
        await self.papers.create_index([("ids.semantic_scholar", ASCENDING)], sparse=True)
        await self.papers.create_index([("fingerprint", ASCENDING)])
        await self.papers.create_index([("updated_at", ASCENDING)])
        await self.versions.create_index([("paper_id", ASCENDING), ("seq", ASCENDING)], unique=True)
        await self.versions.create_index([("observed_at", ASCENDING)])

    async def already_seen(self, raw: RawRecord) -> bool:
        """The same source record with the same content was fully handled before."""
        doc = await self.source_records.find_one(
            {"_id": f"{raw.source}:{raw.record_id}", "sha256": raw.sha256}, {"_id": 1}
        )
        return doc is not None

    async def find_for(self, record: ParsedRecord) -> StoredPaper | None:
        """The paper a record belongs to: by any shared id, else by title + first-author fingerprint."""
        clauses: list[dict[str, Any]] = []
        if record.ids.arxiv:
            clauses.append({"ids.arxiv": record.ids.arxiv})
        if record.ids.acl:
            clauses.append({"ids.acl": record.ids.acl})
        if record.ids.dois:
            clauses.append({"ids.dois": {"$in": record.ids.dois}})
        for query in [*clauses, {"fingerprint": record_fingerprint(record)}]:
            doc = await self.papers.find_one(query)
            if doc is not None:
                return _to_paper(doc)
        return None

    async def save(self, change: Change, previous: StoredPaper | None, fingerprint: str) -> bool:
        """Write the changed paper if nobody else changed it meanwhile; False means merge again."""
        body = change.paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)
        body |= {
            "fingerprint": fingerprint,
            "version_count": change.version.seq,
            "last_version": change.version.model_dump(mode="python"),
        }
        try:
            if previous is None:
                await self.papers.insert_one({"_id": change.paper.id, "rev": 1, **body})
            else:
                unset = {f: "" for f in Paper.model_fields if f not in body and f != "id"}
                update: dict[str, Any] = {"$set": {**body, "rev": previous.rev + 1}}
                if unset:
                    update["$unset"] = unset
                result = await self.papers.update_one({"_id": previous.paper.id, "rev": previous.rev}, update)
                if result.matched_count == 0:
                    return False
        except DuplicateKeyError:
            return False  # another instance created this work first
        await self.record_version(change.version)
        return True

    async def record_version(self, version: PaperVersion) -> None:
        await self.versions.update_one(
            {"paper_id": version.paper_id, "seq": version.seq},
            {"$setOnInsert": version.model_dump(mode="python")},
            upsert=True,
        )

    async def mark_seen(self, raw: RawRecord, paper_id: str, record: ParsedRecord) -> None:
        await self.source_records.update_one(
            {"_id": f"{raw.source}:{raw.record_id}"},
            {
                "$set": {
                    "sha256": raw.sha256,
                    "paper_id": paper_id,
                    "source": raw.source,
                    "format": raw.format,
                    "title": record.title,
                    "ids": record.ids.model_dump(),
                    "status": record.status,
                    "venue": record.venue,
                    "seen_at": datetime.now(UTC),
                }
            },
            upsert=True,
        )
