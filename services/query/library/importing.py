"""Importing a reader's library file: a job stored with the file, its entries resolved to papers over MongoDB a chunk
at a time, and each resolved paper saved to the library.

The job keeps where it is (`cursor`, the next entry) and moves it in the same single-document update that records the
chunk's verdicts, and only from the cursor it read: a chunk is recorded once, whoever ran it. Saving a chunk's papers
is an upsert per reader and paper, so running a chunk again (the service stopped between saving and recording) stores
nothing twice. At start the service takes up every job left running, so an import survives a restart.
"""

import asyncio
import logging
import uuid
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bson import Binary
from pymongo import DESCENDING
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.collections import LIBRARY_IMPORTS, PAPERS
from papertrail.mongo import ensure_index
from services.query.library.imports import (
    CANDIDATE_FIELDS,
    LibraryFormat,
    LookupKey,
    Resolution,
    TitleAuthorKey,
    read_library,
    resolve_entries,
)
from services.query.library.store import LibraryStore
from services.query.reads.paper_lookup import PaperKey

log = logging.getLogger("papertrail.query.imports")
# A library of 5,000 papers exported with abstracts is ~10 MiB; the job keeps it compressed (~1/4) beside its
# verdicts, within MongoDB's 16 MiB document.
MAX_FILE_BYTES = 24 * 1024 * 1024
MAX_STORED_BYTES = 12 * 1024 * 1024
# What the answer shows of a job; the stored file stays out.
JOB_FIELDS = {"file": 0, "user_id": 0}


class ImportBusy(Exception):
    """The reader has an import running already."""


class FileTooLarge(Exception):
    """A file larger than an import takes."""


class MongoFinder:
    """The papers holding each lookup key, from the normalizer's `papers` (read only): one find per batch of keys,
    on the indexed `ids` fields and fingerprints."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.papers = db[PAPERS.name]

    async def holders(self, keys: Sequence[LookupKey]) -> Mapping[LookupKey, Sequence[dict[str, Any]]]:
        by_field: dict[str, set[str]] = {}
        for key in keys:
            field = key.field if isinstance(key, PaperKey) else "fingerprints"
            by_field.setdefault(field, set()).add(key.value if isinstance(key, PaperKey) else key.fingerprint)
        if not by_field:
            return {}
        clauses = [{field: {"$in": sorted(values)}} for field, values in by_field.items()]
        projection = {**dict.fromkeys(CANDIDATE_FIELDS, 1), "ids": 1, "fingerprints": 1}
        found: dict[LookupKey, list[dict[str, Any]]] = {}
        wanted = set(keys)
        async for paper in self.papers.find({"$or": clauses}, projection):
            ids = paper.get("ids") or {}
            held: list[LookupKey] = [PaperKey("ids.dois", doi) for doi in ids.get("dois") or []]
            held += [PaperKey(f"ids.{name}", ids[name]) for name in ("arxiv", "acl") if ids.get(name)]  # type: ignore[arg-type]
            held += [TitleAuthorKey(f) for f in paper.get("fingerprints") or []]
            candidate = {name: paper.get(name) for name in CANDIDATE_FIELDS}
            for key in held:
                if key in wanted:
                    found.setdefault(key, []).append(candidate)
        return found


def verdict(resolution: Resolution) -> dict[str, Any]:
    """One entry's line in the job's answer: where it is in the file, what it is called, and what it resolved to."""
    entry = resolution.entry
    shown: dict[str, Any] = {"line": entry.line, "label": entry.label, "title": entry.title}
    if resolution.status == "resolved":
        return {**shown, "paper_id": resolution.paper_id, "by": resolution.by}
    if resolution.status == "ambiguous":
        return {**shown, "by": resolution.by, "candidates": list(resolution.candidates)}
    return shown


class ImportJobs:
    def __init__(self, db: AsyncDatabase, library: LibraryStore, chunk_size: int) -> None:
        self.jobs = db[LIBRARY_IMPORTS.name]
        self.finder = MongoFinder(db)
        self.library = library
        self.chunk_size = chunk_size
        self.running: dict[str, asyncio.Task[None]] = {}

    async def ensure_indexes(self) -> None:
        await ensure_index(self.jobs, [("user_id", 1), ("created_at", DESCENDING)])
        await ensure_index(self.jobs, [("state", 1)])

    async def create(
        self, user_id: str, data: bytes, filename: str, library_format: LibraryFormat | None
    ) -> dict[str, Any]:
        """A job for the file, its entries read first (MalformedLibrary names the line of what is wrong); ImportBusy
        while the reader's last import runs."""
        if len(data) > MAX_FILE_BYTES:
            raise FileTooLarge(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        stored = zlib.compress(data)
        if len(stored) > MAX_STORED_BYTES:
            raise FileTooLarge("the file holds too much to import at once: split it")
        entries = read_library(data, library_format, filename)
        if await self.jobs.find_one({"user_id": user_id, "state": "running"}, {"_id": 1}):
            raise ImportBusy("an import of yours is running: wait until it is done")
        job: dict[str, Any] = {
            "_id": uuid.uuid4().hex,
            "user_id": user_id,
            "filename": filename,
            "format": library_format,
            "created_at": datetime.now(UTC),
            "state": "running",
            "total": len(entries),
            "cursor": 0,
            "counts": {"resolved": 0, "ambiguous": 0, "unresolved": 0},
            "resolved": [],
            "ambiguous": [],
            "unresolved": [],
            "file": Binary(stored),
        }
        await self.jobs.insert_one(job)
        return job

    async def job(self, user_id: str, job_id: str) -> dict[str, Any] | None:
        """One of the reader's import jobs (another reader's id reads as missing), with how many papers it added:
        counted from the library, so a chunk run twice (a restart between saving and recording) counts once."""
        job = await self.jobs.find_one({"_id": job_id, "user_id": user_id}, JOB_FIELDS)
        if job is not None:
            job["counts"]["added"] = await self.library.count_imported(user_id, job_id)
        return job

    def start(self, job_id: str) -> asyncio.Task[None]:
        """Run the job in the background (once per process)."""
        task = self.running.get(job_id)
        if task is None or task.done():
            task = asyncio.create_task(self._run_logged(job_id), name=f"import-{job_id}")
            self.running[job_id] = task
        return task

    async def resume(self) -> int:
        """Take up every job left running (the service stopped during it); how many."""
        ids = [doc["_id"] async for doc in self.jobs.find({"state": "running"}, {"_id": 1})]
        for job_id in ids:
            self.start(job_id)
        return len(ids)

    async def stop(self) -> None:
        for task in self.running.values():
            task.cancel()
        await asyncio.gather(*self.running.values(), return_exceptions=True)

    async def _run_logged(self, job_id: str) -> None:
        try:
            await self.run(job_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("import %s failed; it resumes when the service starts again", job_id)
        finally:
            self.running.pop(job_id, None)

    async def run(self, job_id: str) -> None:
        job = await self.jobs.find_one({"_id": job_id, "state": "running"})
        if job is None:
            return
        entries = read_library(zlib.decompress(job["file"]), job["format"], job["filename"])
        cursor = job["cursor"]
        while cursor < len(entries):
            end = min(cursor + self.chunk_size, len(entries))
            resolutions = await resolve_entries(entries[cursor:end], self.finder, batch=self.chunk_size)
            resolved = [r.paper_id for r in resolutions if r.status == "resolved" and r.paper_id]
            await self.library.add_imported(job["user_id"], resolved, job_id, datetime.now(UTC))
            counts = Counter(r.status for r in resolutions)
            done = end == len(entries)
            recorded = await self.jobs.update_one(
                {"_id": job_id, "cursor": cursor},
                {
                    "$set": {
                        "cursor": end,
                        **({"state": "done", "finished_at": datetime.now(UTC)} if done else {}),
                    },
                    "$inc": {
                        "counts.resolved": counts["resolved"],
                        "counts.ambiguous": counts["ambiguous"],
                        "counts.unresolved": counts["unresolved"],
                    },
                    "$push": {
                        status: {"$each": [verdict(r) for r in resolutions if r.status == status]}
                        for status in ("resolved", "ambiguous", "unresolved")
                    },
                },
            )
            if recorded.modified_count == 0:
                return  # another run recorded this chunk: it goes on from there
            cursor = end
