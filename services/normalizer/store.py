"""The normalizer's collections: `papers`, `paper_versions` and `source_records` (which source said what).

Every read and write is batched: the local MongoDB-protocol server handles a bulk write of many documents
far faster than as many single writes.

Concurrency: a paper document carries `rev`; a write succeeds only against the revision it was computed
from (and a new paper only if no paper holds its unique arXiv/ACL id), so two instances merging records of
one work retry instead of overwriting each other — unique indexes and conditional writes, no locks. The
version records of a write go inside the paper document first (`last_versions`), so they are never lost
between the two writes, then are inserted into `paper_versions`, unique by (paper_id, seq).
"""

import asyncio
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from pymongo import ASCENDING, InsertOne, UpdateOne
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import BulkWriteError

from papertrail.domain.paper_ids import FINGERPRINT_SCHEME, fingerprint
from papertrail.runtime.collections import PAPER_VERSIONS, PAPERS, SOURCE_RECORDS
from papertrail.runtime.mongo import DUPLICATE_KEY, ensure_index, insert_else_update
from schemas.paper import Paper, PaperIds, PaperVersion
from services.normalizer.identity import id_keys, record_fingerprint
from services.normalizer.parsers.acl import ANTHOLOGY_CATEGORY, FRONT_MATTER_ID
from services.normalizer.parsers.registry import READING
from services.normalizer.plan import Draft
from services.normalizer.records import Incoming, ParsedRecord, StoredPaper

# For each of a paper's links, whether it may be no web link: all but an http(s) URL whose host begins with an ASCII
# letter, digit or "[" (each of which papertrail.domain.web_links.is_web_link takes), so none it refuses is left out.
_OTHER_LINKS = {
    "$map": {
        "input": {"$objectToArray": {"$ifNull": ["$links", {}]}},
        "in": {"$not": [{"$regexMatch": {"input": "$$this.v", "regex": r"^https?://[a-z0-9\[]", "options": "i"}}]},
    }
}
_INTERNAL = ("_id", "rev", "fingerprints", "fingerprint_scheme", "version_count", "last_versions", "write_id")

# (collection, keys, unique): unique where an id names one work; DOIs are not (a DOI may be listed by a
# preprint and its published version before they are known to be one work).
INDEXES: list[tuple[str, str, bool]] = [
    ("papers", "ids.arxiv", True),
    ("papers", "ids.acl", True),
    ("papers", "ids.openreview", True),
    ("papers", "ids.semantic_scholar", True),
    ("papers", "ids.dblp", True),
    ("papers", "ids.pmlr", True),
    ("papers", "ids.dois", False),
    ("papers", "fingerprints", False),
    ("papers", "fingerprint_scheme", False),
    ("papers", "updated_at", False),
    ("paper_versions", "observed_at", False),
    ("source_records", "paper_id", False),
]


def _to_stored(doc: dict[str, Any]) -> StoredPaper:
    body = {k: v for k, v in doc.items() if k not in _INTERNAL}
    return StoredPaper(
        paper=Paper.model_validate({"id": doc["_id"], **body}),
        rev=doc.get("rev", 0),
        version_count=doc.get("version_count", 0),
        fingerprints=list(doc.get("fingerprints", [])),
        last_versions=[PaperVersion.model_validate(v) for v in doc.get("last_versions", [])],
    )


def _id_lookups(records: Iterable[ParsedRecord]) -> list[dict[str, Any]]:
    """One `{field: {"$in": values}}` filter per id field the records carry (sent as separate finds)."""
    values: dict[str, set[str]] = {}
    for record in records:
        for key in id_keys(record.ids):
            kind, _, value = key.partition(":")
            values.setdefault("ids.dois" if kind == "doi" else f"ids.{kind}", set()).add(value)
    return [{field: {"$in": sorted(held)}} for field, held in values.items()]


def _id_keys(ids: PaperIds) -> set[str]:
    """The ids a record joins a paper by (as the planner matches them)."""
    return set(id_keys(ids))


class PaperStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.db = db
        self.papers = db[PAPERS.name]
        self.versions = db[PAPER_VERSIONS.name]
        self.source_records = db[SOURCE_RECORDS.name]

    async def ensure_indexes(self) -> None:
        for collection, key, unique in INDEXES:
            options: dict[str, Any] = {"unique": True, "sparse": True} if unique else {}
            await ensure_index(self.db[collection], [(key, ASCENDING)], **options)
        await ensure_index(self.versions, [("paper_id", ASCENDING), ("seq", ASCENDING)], unique=True)
        await ensure_index(self.versions, [("kind", ASCENDING), ("observed_at", ASCENDING)])  # the query's overview

    async def unseen(self, items: list[Incoming]) -> list[Incoming]:
        """The items whose exact content (source record + sha256) was not fully handled before, by this READING."""
        keys = list({item.source_key for item in items})
        seen: set[tuple[str, str]] = set()
        async for doc in self.source_records.find({"_id": {"$in": keys}}, {"hashes": 1, "reading": 1}):
            if doc.get("reading", 1) >= READING:  # read by an older reading: read again
                seen.update((doc["_id"], h) for h in doc.get("hashes", []))
        return [item for item in items if (item.source_key, item.raw.sha256) not in seen]

    async def candidates(self, records: list[ParsedRecord]) -> list[StoredPaper]:
        """Every held paper any of the records may belong to: by a shared id, else by a fingerprint.

        One find per id field, not one `$or` of them: the local MongoDB-protocol server scans the whole
        collection for an `$or` (4.7 s per batch at 2,000 papers) but uses the index for each `$in` (10 ms).
        Fingerprints are looked up only for records no held paper shares an id with (the planner joins the
        others by id), so a paper seen again is read once, not twice.
        """
        found = await self._find_papers(_id_lookups(records))
        held = set().union(*(_id_keys(s.paper.ids) for s in found.values()))
        fingerprints = sorted({record_fingerprint(r) for r in records if not _id_keys(r.ids) & held})
        if fingerprints:
            for paper_id, stored in (await self._find_papers([{"fingerprints": {"$in": fingerprints}}])).items():
                found.setdefault(paper_id, stored)
        return list(found.values())

    async def held_paper(self, paper_id: str) -> StoredPaper | None:
        """The paper of this canonical id as stored, or None."""
        return (await self._find_papers([{"_id": paper_id}])).get(paper_id)

    async def _find_papers(self, lookups: list[dict[str, Any]]) -> dict[str, StoredPaper]:
        found: dict[str, StoredPaper] = {}
        for docs in await asyncio.gather(*(self.papers.find(f).to_list(None) for f in lookups)):
            for doc in docs:
                if doc["_id"] not in found:
                    found[doc["_id"]] = _to_stored(doc)
        return found

    async def save(self, drafts: list[Draft]) -> set[str]:
        """Write every changed draft against the revision it was computed from; the ids that lost a race."""
        write_id = uuid.uuid4().hex
        changed = [d for d in drafts if d.changed and d.paper is not None]
        ops: list[InsertOne | UpdateOne] = []
        for draft in changed:
            assert draft.paper is not None
            body = draft.paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)
            body |= {
                "fingerprints": draft.fingerprints,
                "version_count": draft.version_count,
                "last_versions": [v.model_dump(mode="python") for v in draft.versions],
                "write_id": write_id,
            }
            if draft.stored is None:  # every fingerprint of a new paper is of the current scheme
                ops.append(
                    InsertOne({"_id": draft.paper.id, "rev": 1, "fingerprint_scheme": FINGERPRINT_SCHEME, **body})
                )
            else:
                unset = {f: "" for f in Paper.model_fields if f not in body and f != "id"}
                update: dict[str, Any] = {"$set": {**body, "rev": draft.stored.rev + 1}}
                if unset:
                    update["$unset"] = unset
                ops.append(UpdateOne({"_id": draft.paper.id, "rev": draft.stored.rev}, update))
        if not ops:
            return set()
        lost: set[str] = set()
        try:
            result = await self.papers.bulk_write(ops, ordered=False)
            matched = result.matched_count
        except BulkWriteError as error:
            for problem in error.details.get("writeErrors", []):
                if problem.get("code") != DUPLICATE_KEY:
                    raise
                lost.add(str(changed[problem["index"]].paper.id))  # type: ignore[union-attr]
            matched = error.details.get("nMatched", 0)
        updates = [str(d.paper.id) for d in changed if d.stored is not None]  # type: ignore[union-attr]
        if matched < len(updates):  # some revisions moved on: find which by who wrote them
            async for doc in self.papers.find({"_id": {"$in": updates}}, {"write_id": 1}):
                if doc.get("write_id") != write_id:
                    lost.add(doc["_id"])
        return lost

    async def refresh_fingerprints(self, batch_size: int = 500) -> int:
        """Give every paper stored under an older fingerprint scheme the current scheme's fingerprints.

        Migration 1 (services/normalizer/migrations.py), before records are consumed: otherwise a record would no
        longer find by title a paper stored before fingerprint() changed, and would make a second paper. The paper's
        title and the titles its source records carried, each with the paper's first author, are fingerprinted
        again; the ones it lacks are added (the old ones stay, unused), conditional on the paper's revision like a
        merge's write: a paper a merge changed meanwhile is left to the next pass. Most papers already hold theirs
        (a plain title, a one-word family name) and are only marked, many in one write. Returns how many papers got
        new ones."""
        refreshed = 0
        stale = self.papers.find(
            {"fingerprint_scheme": {"$ne": FINGERPRINT_SCHEME}}, {"title": 1, "authors": 1, "rev": 1, "fingerprints": 1}
        )
        while docs := await stale.to_list(batch_size):
            titles: dict[str, set[str]] = {doc["_id"]: {doc.get("title", "")} for doc in docs}
            async for record in self.source_records.find(
                {"paper_id": {"$in": list(titles)}}, {"paper_id": 1, "title": 1}
            ):
                titles[record["paper_id"]].add(record.get("title") or "")
            held, ops = [], []
            for doc in docs:
                first_author = (doc.get("authors") or [{}])[0].get("key")
                wanted = {fingerprint(title, first_author) for title in titles[doc["_id"]] if title}
                if wanted <= set(doc.get("fingerprints", [])):
                    held.append(doc["_id"])
                    continue
                rev = doc.get("rev", 0)
                ops.append(
                    UpdateOne(
                        {"_id": doc["_id"], "rev": rev},
                        {
                            "$addToSet": {"fingerprints": {"$each": sorted(wanted)}},
                            "$set": {"fingerprint_scheme": FINGERPRINT_SCHEME, "rev": rev + 1},
                        },
                    )
                )
            if held:
                await self.papers.update_many(
                    {"_id": {"$in": held}}, {"$set": {"fingerprint_scheme": FINGERPRINT_SCHEME}}
                )
            if ops:
                refreshed += (await self.papers.bulk_write(ops, ordered=False)).modified_count
        return refreshed

    async def count_stale_fingerprints(self) -> int:
        """Papers still fingerprinted under an older scheme than the current one."""
        return await self.papers.count_documents({"fingerprint_scheme": {"$ne": FINGERPRINT_SCHEME}})

    async def undated_papers(self, after: str | None, batch_size: int) -> list[StoredPaper]:
        """Papers without a first-published date, in id order from after `after` (migration 6)."""
        query: dict[str, Any] = {"published_at": None}
        if after is not None:
            query["_id"] = {"$gt": after}
        return [_to_stored(doc) for doc in await self.papers.find(query).sort("_id", ASCENDING).to_list(batch_size)]

    async def unclaimed_papers(self, after: str | None, batch_size: int) -> list[StoredPaper]:
        """Papers holding no venue claim (no `venue_claims` field: stored before claims existed, or claiming nothing,
        which a merge leaves out too), in id order from after `after` (migration 7)."""
        query: dict[str, Any] = {"venue_claims": {"$exists": False}}
        if after is not None:
            query["_id"] = {"$gt": after}
        return [_to_stored(doc) for doc in await self.papers.find(query).sort("_id", ASCENDING).to_list(batch_size)]

    async def uncategorized_anthology_papers(self, after: str | None, batch_size: int) -> list[StoredPaper]:
        """ACL Anthology papers without the Anthology's category (stored before ACL records gave one), in id order
        from after `after` (migration 8)."""
        query: dict[str, Any] = {"sources": "acl", "categories": {"$ne": ANTHOLOGY_CATEGORY}}
        if after is not None:
            query["_id"] = {"$gt": after}
        return [_to_stored(doc) for doc in await self.papers.find(query).sort("_id", ASCENDING).to_list(batch_size)]

    async def papers_with_other_links(self, after: str | None, batch_size: int) -> list[StoredPaper]:
        """Papers holding a link that may be no http(s) URL (stored before the normalizer kept only those), in id
        order from after `after` (migration 9); is_web_link decides (identity.linked_as_stored)."""
        query: dict[str, Any] = {"$expr": {"$anyElementTrue": [_OTHER_LINKS]}}
        if after is not None:
            query["_id"] = {"$gt": after}
        return [_to_stored(doc) for doc in await self.papers.find(query).sort("_id", ASCENDING).to_list(batch_size)]

    async def unrecorded_versions(self, source_record_id: str) -> list[tuple[Paper, PaperVersion]]:
        """The version records by `source_record_id` that papers hold from their last write but paper_versions
        lacks (a write whose settling stopped), each with its paper as written."""
        held: list[tuple[Paper, PaperVersion]] = []
        async for doc in self.papers.find({"last_versions.source_record_id": source_record_id}):
            stored = _to_stored(doc)
            held += [(stored.paper, v) for v in stored.last_versions if v.source_record_id == source_record_id]
        if not held:
            return []
        recorded = {
            (v["paper_id"], v["seq"])
            async for v in self.versions.find(
                {"paper_id": {"$in": sorted({p.id for p, _ in held})}}, {"paper_id": 1, "seq": 1}
            )
        }
        return [(paper, version) for paper, version in held if (paper.id, version.seq) not in recorded]

    async def record_versions(self, versions: list[PaperVersion]) -> None:
        """Insert version records; one already there (same paper_id and seq) stays as it is."""
        if not versions:
            return
        try:
            await self.versions.insert_many([v.model_dump(mode="python") for v in versions], ordered=False)
        except BulkWriteError as error:
            if any(p.get("code") != DUPLICATE_KEY for p in error.details.get("writeErrors", [])):
                raise

    async def front_matter_papers(self) -> list[Paper]:
        """Papers made of an ACL volume's front matter (paper 0), as earlier releases stored them."""
        found = self.papers.find({"ids.acl": {"$regex": FRONT_MATTER_ID.pattern}}, {f: 0 for f in _INTERNAL[1:]})
        return [Paper.model_validate({"id": doc.pop("_id"), **doc}) async for doc in found]

    async def remove_papers(self, paper_ids: list[str]) -> None:
        """Delete papers with their version records and source records. The papers go last: a stop in between
        leaves them to be found, announced and removed again."""
        if paper_ids:
            await self.versions.delete_many({"paper_id": {"$in": paper_ids}})
            await self.source_records.delete_many({"paper_id": {"$in": paper_ids}})
            await self.papers.delete_many({"_id": {"$in": paper_ids}})

    async def mark_seen(self, placed: list[tuple[Incoming, str]]) -> None:
        """Remember which source record (and which content of it) went into which paper.

        Most source records are new, so they are inserted; those already held (a new version, a redelivery,
        another instance) are updated instead.
        """
        if not placed:
            return
        now = datetime.now(UTC)
        latest: dict[str, tuple[Incoming, str]] = {}
        hashes: dict[str, list[str]] = {}
        for item, paper_id in placed:  # one document per source record, however often the batch holds it
            latest[item.source_key] = (item, paper_id)
            if item.raw.sha256 not in hashes.setdefault(item.source_key, []):
                hashes[item.source_key].append(item.raw.sha256)
        fields = {key: _source_fields(item, paper_id, now) for key, (item, paper_id) in latest.items()}
        await insert_else_update(
            self.source_records,
            [
                (
                    {"_id": key, **body, "hashes": hashes[key]},
                    {"$set": body, "$addToSet": {"hashes": {"$each": hashes[key]}}},
                )
                for key, body in fields.items()
            ],
        )


def _source_fields(item: Incoming, paper_id: str, now: datetime) -> dict[str, Any]:
    return {
        "sha256": item.raw.sha256,
        "paper_id": paper_id,
        "source": item.raw.source,
        "format": item.raw.format,
        "title": item.record.title,
        "ids": item.record.ids.model_dump(),
        "status": item.record.status,
        "venue": item.record.venue,
        "seen_at": now,
        "reading": READING,
    }
