"""Importing a reader's library file: the file read once, in a worker process beside the service (`LibraryReaders`),
into one stored document per entry; the entries resolved to papers over MongoDB a chunk at a time, each entry's
verdict written on its own document, and each resolved paper saved to the library.

The job document holds what the import is (file name, format, total), where it is (`cursor`, the next entry) and its
counts, never the entries or their verdicts: those are in `library_import_entries`, so a job of any size stays far
within MongoDB's 16 MiB document. An entry's verdict is written once (the first run to write it wins); the job moves
its cursor and counts in one update, and only from the cursor it read: a chunk is counted once, whoever ran it. Saving
a chunk's papers is an upsert per reader and paper, so running a chunk again (the service stopped between saving and
recording) stores nothing twice. At start the service takes up every job left running, so an import survives a
restart."""

import asyncio
import logging
import multiprocessing
import os
import uuid
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime
from functools import partial
from typing import Any

from bson.raw_bson import RawBSONDocument
from pymongo import DESCENDING, UpdateOne
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.collections import LIBRARY_IMPORT_ENTRIES, LIBRARY_IMPORTS, PAPERS
from papertrail.runtime.mongo import ensure_index
from services.query.catalogue.reads.paper_lookup import PaperKey
from services.query.readers.library.imports import (
    CANDIDATE_FIELDS,
    FileTooLarge,
    LibraryFormat,
    LookupKey,
    Resolution,
    TitleAuthorKey,
    resolve_entries,
    stored_entry,
)
from services.query.readers.library.reading import end_with_parent, entry_documents
from services.query.readers.library.store import LibraryStore

log = logging.getLogger("papertrail.query.imports")
# A library of 5,000 papers exported with abstracts is ~10 MiB.
MAX_FILE_BYTES = 24 * 1024 * 1024
# What the job's answer shows of each verdict (resolved, ambiguous, unresolved), in file order; the rest page by page.
VERDICTS_SHOWN = 1000
STATUSES = ("resolved", "ambiguous", "unresolved")
# What the answer shows of a job; the stored file of an earlier release's job stays out.
JOB_FIELDS = {"file": 0, "user_id": 0}
# Entries stored per insert: the service answers between two.
STORE_BATCH = 1000
# What a verdict shows beyond where the entry is and what it is called.
_VERDICT_FIELDS = ("paper_id", "by", "candidates")


class ImportBusy(Exception):
    """The reader has an import running already, or a file being read."""


class LibraryReaders:
    """Reads library files in worker processes beside the service, at most `processes` of them (each started at its
    first file), one file at a time each. Reading a large .bib is seconds of pure-Python work, which in the service's
    own process (a thread too, holding the GIL) would keep it from answering (docs/benchmarks.md), and which in a
    single shared process would make every other reader's import wait behind it.

    Fair shares: a reader whose file is being read (or waits for a process) has their next one refused (ImportBusy)
    rather than queued, so one reader holds at most one process; files wait for a free process first come, first
    served, only while every process reads another reader's file; and reading stops at the entry past `max_entries`,
    so no file holds a process for longer than one of the cap. Each process is an executor of its own: one killed
    (out of memory) fails its own file only."""

    def __init__(self, processes: int, max_entries: int, read: Callable[..., list[bytes]] = entry_documents) -> None:
        self.processes, self.max_entries, self._read = processes, max_entries, read
        self._workers: list[ProcessPoolExecutor | None] = [None] * processes
        self._free: asyncio.Queue[int] | None = None  # the workers' numbers, each there while it reads nothing
        self.reading: set[str] = set()  # the readers (user ids) whose file is being read or waits for a worker

    async def read(
        self, data: bytes, library_format: LibraryFormat | None, filename: str, job_id: str, user_id: str
    ) -> list[bytes]:
        """The file's entry documents (`entry_documents`), read in a worker process; ImportBusy while another file
        of the reader's is being read."""
        if user_id in self.reading:
            raise ImportBusy("a file of yours is being read: wait until its import has started")
        self.reading.add(user_id)
        try:
            number = await self._free_worker()  # first come, first served
        except BaseException:
            self.reading.discard(user_id)
            raise
        task = partial(self._read, data, library_format, filename, job_id, user_id, self.max_entries)
        worker = self._workers[number] or self._start(number)
        try:
            try:
                reading = worker.submit(task)
            except BrokenProcessPool:  # it died while it read nothing (killed): a new one reads the file
                worker.shutdown(wait=False)
                worker = self._start(number)
                reading = worker.submit(task)
        except BaseException:
            self._done(number, user_id, worker, None)
            raise
        loop = asyncio.get_running_loop()

        def done(_: Future[list[bytes]]) -> None:
            # when the process is done with the file, not when its request stops waiting (a client gone): a reader
            # who leaves and uploads again still holds one process at most
            try:
                loop.call_soon_threadsafe(self._done, number, user_id, worker, reading)
            except RuntimeError:  # the loop closed: the service stopped
                pass

        reading.add_done_callback(done)
        return await asyncio.wrap_future(reading)

    async def _free_worker(self) -> int:
        if self._free is None:
            self._free = asyncio.Queue()
            for number in range(self.processes):
                self._free.put_nowait(number)
        return await self._free.get()

    def _start(self, number: int) -> ProcessPoolExecutor:
        # spawned, not forked: the service's threads (MongoDB's, Kafka's) do not survive a fork
        worker = ProcessPoolExecutor(
            1, multiprocessing.get_context("spawn"), initializer=end_with_parent, initargs=(os.getpid(),)
        )
        self._workers[number] = worker
        return worker

    def _done(
        self, number: int, user_id: str, worker: ProcessPoolExecutor, reading: Future[list[bytes]] | None
    ) -> None:
        """The worker free again, and the reader with it; a worker that died (killed, out of memory) is replaced at
        its next file."""
        if reading is None or (not reading.cancelled() and isinstance(reading.exception(), BrokenProcessPool)):
            if self._workers[number] is worker:
                self._workers[number] = None
                worker.shutdown(wait=False, cancel_futures=True)
        self.reading.discard(user_id)
        if self._free is not None:
            self._free.put_nowait(number)

    def close(self) -> None:
        """Stop the workers, in the middle of a file too (the import it read for was not stored)."""
        for number, worker in enumerate(self._workers):
            if worker is None:
                continue
            for process in list(worker._processes.values()):
                process.terminate()
            worker.shutdown(wait=False, cancel_futures=True)
            self._workers[number] = None


class MongoFinder:
    """The papers holding each lookup key, from the normalizer's `papers` (read only): per batch of keys, one find
    per field, on the indexed `ids` fields and fingerprints."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.papers = db[PAPERS.name]

    async def holders(self, keys: Sequence[LookupKey]) -> Mapping[LookupKey, Sequence[dict[str, Any]]]:
        by_field: dict[str, set[str]] = {}
        for key in keys:
            field = key.field if isinstance(key, PaperKey) else "fingerprints"
            by_field.setdefault(field, set()).add(key.value if isinstance(key, PaperKey) else key.fingerprint)
        if not by_field:
            return {}
        projection = {**dict.fromkeys(CANDIDATE_FIELDS, 1), "ids": 1, "fingerprints": 1}
        # one find per field, each on its index: an $or of them made MongoDB-protocol servers without $or index
        # plans (the local stack's) compare every paper with every key
        papers: dict[str, dict[str, Any]] = {}
        for name, values in by_field.items():
            async for paper in self.papers.find({name: {"$in": sorted(values)}}, projection):
                papers[paper["_id"]] = paper
        found: dict[LookupKey, list[dict[str, Any]]] = {}
        wanted = set(keys)
        for paper in papers.values():
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
    """What an entry's document records of its verdict: the status, and the paper (resolved) or papers (ambiguous)."""
    if resolution.status == "resolved":
        return {"status": "resolved", "paper_id": resolution.paper_id, "by": resolution.by}
    if resolution.status == "ambiguous":
        return {"status": "ambiguous", "by": resolution.by, "candidates": list(resolution.candidates)}
    return {"status": "unresolved"}


def shown_verdict(document: Mapping[str, Any]) -> dict[str, Any]:
    """One entry's line in the answer: where it is in the file, what it is called, and what it resolved to."""
    shown = {"line": document["line"], "label": document["label"], "title": document["title"]}
    return shown | {name: document[name] for name in _VERDICT_FIELDS if name in document}


class ImportJobs:
    def __init__(
        self,
        db: AsyncDatabase,
        library: LibraryStore,
        chunk_size: int,
        readers: LibraryReaders,
        *,
        runs_jobs: bool = True,
    ) -> None:
        self.jobs = db[LIBRARY_IMPORTS.name]
        self.entries = db[LIBRARY_IMPORT_ENTRIES.name]
        self.finder = MongoFinder(db)
        self.library = library
        self.chunk_size = chunk_size
        self.reader = readers
        self.running: dict[str, asyncio.Task[None]] = {}
        self.runs_jobs = runs_jobs  # False in the api role: the worker role's process runs the jobs

    async def ensure_indexes(self) -> None:
        await ensure_index(self.jobs, [("user_id", 1), ("created_at", DESCENDING)])
        await ensure_index(self.jobs, [("state", 1)])
        await ensure_index(self.entries, [("job_id", 1), ("n", 1)])  # a chunk, and every verdict in file order
        await ensure_index(self.entries, [("job_id", 1), ("status", 1), ("n", 1)])  # one kind of verdict, a page
        await ensure_index(self.entries, [("user_id", 1)])  # `papertrail users delete`

    async def create(
        self, user_id: str, data: bytes, filename: str, library_format: LibraryFormat | None
    ) -> dict[str, Any]:
        """A job for the file, its entries read and stored first (MalformedLibrary names the line of what is wrong);
        ImportBusy while the reader's last import runs or another file of theirs is being read, TooManyEntries at the
        entry past the cap."""
        if len(data) > MAX_FILE_BYTES:
            raise FileTooLarge(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        await self._idle(user_id)
        job_id = uuid.uuid4().hex
        documents = await self.reader.read(data, library_format, filename, job_id, user_id)
        await self._idle(user_id)  # again: reading a large file takes a while
        await self._store(documents)
        job: dict[str, Any] = {
            "_id": job_id,
            "user_id": user_id,
            "filename": filename,
            "format": library_format,
            "created_at": datetime.now(UTC),
            "state": "running",
            "total": len(documents),
            "cursor": 0,
            "counts": {"resolved": 0, "ambiguous": 0, "unresolved": 0},
        }
        await self.jobs.insert_one(job)
        return job

    async def _idle(self, user_id: str) -> None:
        if await self.jobs.find_one({"user_id": user_id, "state": "running"}, {"_id": 1}):
            raise ImportBusy("an import of yours is running: wait until it is done")

    async def _store(self, documents: Sequence[bytes]) -> None:
        for start in range(0, len(documents), STORE_BATCH):
            batch = [RawBSONDocument(d) for d in documents[start : start + STORE_BATCH]]
            await self.entries.insert_many(batch, ordered=False)

    async def job(self, user_id: str, job_id: str) -> dict[str, Any] | None:
        """One of the reader's import jobs (another reader's id reads as missing), with how many papers it added
        (counted from the library, so a chunk run twice counts once) and the first VERDICTS_SHOWN verdicts of each
        kind, in file order."""
        job = await self.jobs.find_one({"_id": job_id, "user_id": user_id}, JOB_FIELDS)
        if job is None:
            return None
        job["counts"]["added"] = await self.library.count_imported(user_id, job_id)
        for status in STATUSES:
            earlier = job.get(status) or []  # an earlier release kept the verdicts in the job
            page, _ = await self._page({"job_id": job_id, "status": status}, None, VERDICTS_SHOWN)
            job[status] = [*earlier, *page][:VERDICTS_SHOWN]
        return job

    async def verdicts(
        self, user_id: str, job_id: str, status: str | None, after: int | None, limit: int
    ) -> tuple[list[dict[str, Any]], int, int | None] | None:
        """A page of one of the reader's imports' verdicts (of one kind, or all), in file order, after the entry
        `after`; their total and the next page's `after`. None when the job is not the reader's."""
        if await self.jobs.find_one({"_id": job_id, "user_id": user_id}, {"_id": 1}) is None:
            return None
        query: dict[str, Any] = {"job_id": job_id, "status": status or {"$in": list(STATUSES)}}
        total = await self.entries.count_documents(query)
        page, last = await self._page(query, after, limit)
        return page, total, last

    async def _page(
        self, query: dict[str, Any], after: int | None, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        found = self.entries.find(query | ({"n": {"$gt": after}} if after is not None else {}), {"entry": 0})
        documents = await found.sort("n", 1).limit(limit + 1).to_list(None)
        more = len(documents) > limit
        documents = documents[:limit]
        shown = [shown_verdict(d) | {"status": d["status"]} for d in documents]
        return shown, documents[-1]["n"] if more else None

    def start(self, job_id: str) -> asyncio.Task[None]:
        """Run the job in the background (once per process)."""
        task = self.running.get(job_id)
        if task is None or task.done():
            task = asyncio.create_task(self._run_logged(job_id), name=f"import-{job_id}")
            self.running[job_id] = task
        return task

    def begin(self, job: dict[str, Any]) -> asyncio.Task[None] | None:
        """Run a new job: in this process when it runs the jobs, or when the job is one chunk (its request waits for
        it, and is answered done); else the worker role's process takes it up (`keep_taking_up`)."""
        if self.runs_jobs or job["total"] <= self.chunk_size:
            return self.start(job["_id"])
        return None

    async def resume(self) -> int:
        """Take up every job left running that this process does not run (the service stopped during it, or an api
        process made it); how many."""
        ids = [doc["_id"] async for doc in self.jobs.find({"state": "running"}, {"_id": 1})]
        taken = [job_id for job_id in ids if job_id not in self.running]
        for job_id in taken:
            self.start(job_id)
        return len(taken)

    async def keep_taking_up(self, poll_s: float) -> None:
        """The worker's loop: take up the jobs left running every `poll_s` seconds."""
        while True:
            try:
                if taken := await self.resume():
                    log.info("took up %d library imports left running", taken)
            except Exception:
                log.exception("looking for library imports left running failed")
            await asyncio.sleep(poll_s)

    async def stop(self) -> None:
        for task in self.running.values():
            task.cancel()
        await asyncio.gather(*self.running.values(), return_exceptions=True)
        self.reader.close()

    async def _run_logged(self, job_id: str) -> None:
        try:
            await self.run(job_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("import %s failed; it resumes when the service starts again", job_id)
        finally:
            self.running.pop(job_id, None)

    async def chunk_entries(
        self, job_id: str, start: int, end: int, fields: dict[str, int] | None = None
    ) -> list[dict[str, Any]]:
        """The job's entries `start` to `end` (excluded), in file order."""
        chunk = {"job_id": job_id, "n": {"$gte": start, "$lt": end}}
        return await self.entries.find(chunk, fields).sort("n", 1).to_list(None)

    async def run(self, job_id: str) -> None:
        job = await self.jobs.find_one({"_id": job_id, "state": "running"})
        if job is None:
            return
        if "file" in job:  # an earlier release's job, left running: its entries are stored now
            data = zlib.decompress(job["file"])
            await self.entries.delete_many({"job_id": job_id})
            await self._store(await self.reader.read(data, job["format"], job["filename"], job_id, job["user_id"]))
            await self.jobs.update_one({"_id": job_id}, {"$unset": {"file": ""}})
        cursor, total = job["cursor"], job["total"]
        while cursor < total:
            end = min(cursor + self.chunk_size, total)
            documents = await self.chunk_entries(job_id, cursor, end)
            if len(documents) != end - cursor:
                raise RuntimeError(f"entries {cursor}-{end} of import {job_id} are missing: {len(documents)} stored")
            pending = [d for d in documents if "status" not in d]
            if pending:
                entries = [stored_entry(d["line"], d["label"], d["title"], d["entry"]) for d in pending]
                resolutions = await resolve_entries(entries, self.finder, batch=self.chunk_size)
                # the first run to write an entry's verdict wins, so the counts below are of the verdicts stored
                writes = [
                    UpdateOne({"_id": d["_id"], "status": {"$exists": False}}, {"$set": verdict(r)})
                    for d, r in zip(pending, resolutions, strict=True)
                ]
                await self.entries.bulk_write(writes, ordered=False)
                documents = await self.chunk_entries(job_id, cursor, end, {"status": 1, "paper_id": 1, "label": 1})
            resolved = [d["paper_id"] for d in documents if d["status"] == "resolved"]
            keys = {d["paper_id"]: d.get("label") or "" for d in documents if d["status"] == "resolved"}
            await self.library.add_imported(job["user_id"], resolved, job_id, datetime.now(UTC), keys)
            counts = Counter(d["status"] for d in documents)
            done = end == total
            recorded = await self.jobs.update_one(
                {"_id": job_id, "cursor": cursor},
                {
                    "$set": {
                        "cursor": end,
                        **({"state": "done", "finished_at": datetime.now(UTC)} if done else {}),
                    },
                    "$inc": {f"counts.{status}": counts[status] for status in STATUSES},
                },
            )
            if recorded.modified_count == 0:
                return  # another run recorded this chunk: it goes on from there
            cursor = end
