"""How fast a library import resolves its entries against the held papers, with the papers looked up by one `$or`
find of every key field per chunk (the baseline) and by one find per field (MongoFinder), side by side in one run,
and where the time goes by command and collection.

The file: the library tests' 113 real papers exported as RIS, repeated --copies times (5: 5,650 entries, as
tests/query/library/test_library_import_restart.py imports); the database holds those papers, so every entry
resolves. Each run imports the file into a fresh database through `ImportJobs` (the worker's code), chunks of
--chunk entries. Starts its own local stack (temporary folder, free ports; its MongoDB is the Python stand-in) and
stops it at the end.
    uv run python bench/import_resolve.py [--copies 5] [--chunk 100]
"""

import argparse
import asyncio
import collections
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pymongo import AsyncMongoClient, MongoClient, monitoring

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papertrail.runtime.collections import PAPERS  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from services.normalizer.store import INDEXES as NORMALIZER_INDEXES  # noqa: E402
from services.query.library.citations import export  # noqa: E402
from services.query.library.importing import (  # noqa: E402
    CANDIDATE_FIELDS,
    ImportJobs,
    LibraryReaders,
    MongoFinder,
)
from services.query.library.imports import LookupKey, PaperKey, TitleAuthorKey  # noqa: E402
from services.query.library.store import LibraryStore  # noqa: E402
from tests.support.library_papers import acl_2024, arxiv_oai, red_fm  # noqa: E402
from tests.support.reader_site import stored_document  # noqa: E402
from tests.support.servers import stack_on_free_ports  # noqa: E402


class OrFinder(MongoFinder):
    """The baseline: every key field in one `$or` find per chunk."""

    async def holders(self, keys: Sequence[LookupKey]) -> Mapping[LookupKey, Sequence[dict[str, Any]]]:
        by_field: dict[str, set[str]] = {}
        for key in keys:
            field = key.field if isinstance(key, PaperKey) else "fingerprints"
            by_field.setdefault(field, set()).add(key.value if isinstance(key, PaperKey) else key.fingerprint)
        clauses = [{field: {"$in": sorted(values)}} for field, values in by_field.items()]
        projection = {**dict.fromkeys(CANDIDATE_FIELDS, 1), "ids": 1, "fingerprints": 1}
        found: dict[LookupKey, list[dict[str, Any]]] = {}
        wanted = set(keys)
        async for paper in self.papers.find({"$or": clauses}, projection):
            ids = paper.get("ids") or {}
            held: list[LookupKey] = [PaperKey("ids.dois", doi) for doi in ids.get("dois") or []]
            held += [PaperKey(f"ids.{name}", ids[name]) for name in ("arxiv", "acl") if ids.get(name)]  # type: ignore[arg-type]
            held += [TitleAuthorKey(f) for f in paper.get("fingerprints") or []]
            for key in held:
                if key in wanted:
                    found.setdefault(key, []).append({name: paper.get(name) for name in CANDIDATE_FIELDS})
        return found


class CommandTimes(monitoring.CommandListener):
    """Seconds and count of each command, by command name and collection."""

    def __init__(self) -> None:
        self.started_as: dict[int, tuple[str, str]] = {}
        self.times: dict[tuple[str, str], list[float]] = collections.defaultdict(lambda: [0, 0.0])

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        target = event.command.get(event.command_name)
        self.started_as[event.request_id] = (event.command_name, target if isinstance(target, str) else "")

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        if (name := self.started_as.pop(event.request_id, None)) is not None:
            self.times[name][0] += 1
            self.times[name][1] += event.duration_micros / 1e6

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        self.started_as.pop(event.request_id, None)


async def one_import(url: str, database: str, data: bytes, chunk: int, finder: type[MongoFinder]) -> dict[str, Any]:
    times = CommandTimes()
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(url, event_listeners=[times])
    db = client[database]
    library = LibraryStore(db)
    jobs = ImportJobs(db, library, chunk, LibraryReaders(1, 100_000))
    jobs.finder = finder(db)
    await library.ensure_indexes()
    await jobs.ensure_indexes()
    try:
        job = await jobs.create("bench", data, "library.ris", "ris")
        times.times.clear()  # the resolution only: reading and storing the entries is the same for both
        started = time.perf_counter()
        await jobs.run(job["_id"])
        seconds = time.perf_counter() - started
        done = await jobs.jobs.find_one({"_id": job["_id"]})
    finally:
        await jobs.stop()
        await client.close()
    assert done is not None and done["state"] == "done", done
    return {"entries": job["total"], "seconds": seconds, "counts": done["counts"], "times": dict(times.times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=100)
    args = parser.parse_args()
    papers = [*acl_2024(), *arxiv_oai(), red_fm()]
    data = export(papers, "ris").encode() * args.copies
    runs = {"one $or find (baseline)": OrFinder, "one find per field": MongoFinder}
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as folder:
        settings = stack_on_free_ports(Path(folder), install_dir=ROOT / ".stack" / "npm", start_timeout_s=180)
        stack.up(settings, log=lambda _: None)
        url = settings.environment()["MONGODB_URL"]
        try:
            for n, (name, finder) in enumerate(runs.items()):
                database = f"bench_import_{n}"
                mongo: MongoClient[dict[str, Any]]
                with MongoClient(url) as mongo:
                    db: Any = mongo[database]
                    for collection, key, unique in NORMALIZER_INDEXES:
                        db[collection].create_index(key, unique=unique, sparse=unique)
                    db[PAPERS.name].insert_many([stored_document(p) for p in papers])
                results[name] = asyncio.run(one_import(url, database, data, args.chunk, finder))
        finally:
            stack.down(settings, log=lambda _: None)
    print(f"{len(papers)} papers held; {args.copies} copies of their RIS export; chunks of {args.chunk}\n")
    print("| papers looked up by | entries | resolved | seconds | entries/s | papers finds s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, result in results.items():
        finds = result["times"].get(("find", PAPERS.name), [0, 0.0])
        print(
            f"| {name} | {result['entries']:,} | {result['counts']['resolved']:,} | {result['seconds']:.1f} "
            f"| {result['entries'] / result['seconds']:.0f} | {finds[1]:.1f} ({finds[0]}) |"
        )
    for name, result in results.items():
        print(f"\n{name}: seconds by command (count)")
        for (command, collection), (count, seconds) in sorted(result["times"].items(), key=lambda kv: -kv[1][1])[:6]:
            print(f"  {command} {collection}: {seconds:.2f} s ({count})")


if __name__ == "__main__":
    main()
