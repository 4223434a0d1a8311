"""Normalizer throughput on the local stack over the corpus (7,184 raw records of 4,717 papers).

In one run, against the same freshly started local Kafka and MongoDB-protocol servers:
1. the service: one normalizer process (consume → parse → merge → bulk write → emit), records/s from the
   first record published until the consumer group committed the last, and the process's peak RSS;
2. the store alone, in this process (parse → merge → bulk write, no Kafka), records/s;
3. the server's write floor: the documents the store wrote (papers, versions, source records) inserted again
   into fresh collections with the same indexes, records/s: what the server allows before any reading or
   merging;
4. the server's bare rate: bulk upserts of one small document per record, documents/s.
Target: >= 3,000 records/s; the last two show whether the service or the server is the limit.

With `--baseline REF` (a commit, say `main`), the store alone is also measured on that commit's code (a detached
worktree of it, removed after), each in a fresh process of its own against the same server, the two taking turns
(`--rounds` each): records/s and the process's CPU milliseconds per record, before and after side by side.

    uv run python bench/normalize_throughput.py [--records N] [--baseline REF [--rounds 2]]
"""

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pymongo import AsyncMongoClient, UpdateOne  # noqa: E402

from papertrail_tools import stack  # noqa: E402
from schemas import topics  # noqa: E402
from services.normalizer.normalize import apply_batch, settle  # noqa: E402
from services.normalizer.parsers.registry import parse_raw  # noqa: E402
from services.normalizer.records import Incoming  # noqa: E402
from services.normalizer.settings import DEFAULT_AI_CATEGORIES  # noqa: E402
from services.normalizer.store import PaperStore  # noqa: E402
from tests.support.kafka import caught_up, publish_raw, skip_to_end  # noqa: E402
from tests.support.servers import stack_on_free_ports  # noqa: E402
from tests.support.services import running_service  # noqa: E402
from tests.support.sources import corpus_records  # noqa: E402
from tests.support.waiting import wait_until_async  # noqa: E402

TARGET = 3_000
BATCH = 500


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def bare_bulk_upsert(url: str, n: int) -> float:
    client: AsyncMongoClient = AsyncMongoClient(url)
    collection = client["bench_bare"][f"upserts_{uuid.uuid4().hex[:6]}"]
    started = time.perf_counter()
    for start in range(0, n, BATCH):
        ops = [
            UpdateOne({"_id": f"k{i}"}, {"$set": {"title": f"paper {i}", "rev": 1}}, upsert=True)
            for i in range(start, min(n, start + BATCH))
        ]
        await collection.bulk_write(ops, ordered=False)
    elapsed = time.perf_counter() - started
    await client.close()
    return n / elapsed


async def _no_emit(events: list) -> None:
    pass


async def write_floor(url: str, database: str, n: int) -> float:
    """Records/s if the server did nothing but insert what the service stored for them (papers, versions,
    source records, into collections with the service's indexes): no reads, no merging, no Kafka."""
    client: AsyncMongoClient = AsyncMongoClient(url, tz_aware=True)
    stored = client[database]
    target = PaperStore(client[f"bench_floor_{uuid.uuid4().hex[:6]}"])
    await target.ensure_indexes()
    collections = ("papers", "paper_versions", "source_records")
    documents = {name: await stored[name].find({}).to_list(None) for name in collections}
    started = time.perf_counter()
    for name in collections:
        for start in range(0, len(documents[name]), BATCH):
            await target.db[name].insert_many(documents[name][start : start + BATCH], ordered=False)
    elapsed = time.perf_counter() - started
    await client.close()
    return n / elapsed


async def store_alone(url: str, records: list) -> tuple[float, str]:
    client: AsyncMongoClient = AsyncMongoClient(url, tz_aware=True)
    database = f"bench_store_{uuid.uuid4().hex[:6]}"
    store = PaperStore(client[database])
    await store.ensure_indexes()
    started = time.perf_counter()
    for start in range(0, len(records), BATCH):
        items = [Incoming(r, parse_raw(r)) for r in records[start : start + BATCH]]
        applied = await apply_batch(items, store, ai_categories=frozenset(DEFAULT_AI_CATEGORIES), attempts=4)
        await settle(applied, store, _no_emit)
    elapsed = time.perf_counter() - started
    await client.close()
    return len(records) / elapsed, database


def _cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time so far (/proc/<pid>/stat, fields 14 and 15, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def service(env: dict[str, str], records: list, logs: Path) -> tuple[float, float, float]:
    """Records/s, peak RSS (MB) and CPU ms a record of one normalizer process over the records."""
    bootstrap = env["KAFKA_BOOTSTRAP_SERVERS"]
    env = env | {"MONGODB_DATABASE": f"bench_service_{uuid.uuid4().hex[:6]}", "LOG_LEVEL": "WARNING"}
    await skip_to_end(bootstrap, topics.HARVEST_RAW, "papertrail-normalizer")
    with running_service("normalizer", env, logs) as port:
        pid = _service_pid(port)
        cpu = _cpu_seconds(pid)
        started = time.perf_counter()
        await publish_raw(bootstrap, topics.HARVEST_RAW, records)
        await wait_until_async(
            lambda: caught_up(bootstrap, topics.HARVEST_RAW, "papertrail-normalizer"), within=900, what="caught up"
        )
        elapsed = time.perf_counter() - started
        cpu = _cpu_seconds(pid) - cpu
        peak = _peak_rss_mb(pid)
    return len(records) / elapsed, peak, 1000 * cpu / len(records)


# Run in a fresh process whose working folder is the code measured: that code's own store_alone (the function above,
# as that commit has it) over its own copy of the corpus, and the process's CPU time around it.
_STORE_ALONE = """
import asyncio, json, resource, sys
sys.path.insert(0, ".")
from bench.normalize_throughput import store_alone
from tests.support.sources import corpus_records
url, n = sys.argv[1], int(sys.argv[2])
records = corpus_records()[:n] if n else corpus_records()
usage = resource.getrusage(resource.RUSAGE_SELF)
rate, _ = asyncio.run(store_alone(url, records))
after = resource.getrusage(resource.RUSAGE_SELF)
cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
print(json.dumps({"rate": rate, "cpu_ms": 1000 * cpu / len(records)}))
"""


def store_alone_of(code: Path, url: str, n: int | None) -> dict[str, float]:
    """The store alone of the code in `code`, in a process of its own: records/s and CPU ms per record."""
    done = subprocess.run(
        [sys.executable, "-c", _STORE_ALONE, url, str(n or 0)], cwd=code, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(url: str, baseline: Path, n: int | None, rounds: int) -> dict[str, list[dict[str, float]]]:
    """The store alone before (baseline) and after (this checkout), taking turns so that both see the same load."""
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for _ in range(rounds):
        runs["before"].append(store_alone_of(baseline, url, n))
        runs["after"].append(store_alone_of(ROOT, url, n))
    return runs


def _load(averages: tuple[float, float, float]) -> str:
    return "/".join(f"{a:.1f}" for a in averages)


def _service_pid(port: int) -> int:
    import subprocess

    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True).stdout
    return int(out.split("pid=")[1].split(",")[0])


async def measure(env: dict[str, str], records: list, logs: Path) -> dict[str, float]:
    rate, peak, cpu_ms = await service(env, records, logs)
    alone, database = await store_alone(env["MONGODB_URL"], records)
    return {
        "service": rate,
        "peak": peak,
        "cpu_ms": cpu_ms,
        "alone": alone,
        "floor": await write_floor(env["MONGODB_URL"], database, len(records)),
        "bare": await bare_bulk_upsert(env["MONGODB_URL"], len(records)),
    }


def main(n: int | None, baseline: str | None, rounds: int) -> None:
    records = corpus_records()[:n] if n else corpus_records()
    load_before = os.getloadavg()
    runs: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        settings = stack_on_free_ports(Path(folder))
        try:  # the stack is started and stopped outside the event loop: its readiness probe runs its own loop
            stack.up(settings, log=lambda line: None)
            figures = asyncio.run(measure(settings.environment(), records, Path(folder)))
            if baseline:
                tree = Path(folder) / "baseline"
                subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), baseline], check=True)
                try:
                    runs = compare(settings.environment()["MONGODB_URL"], tree, n, rounds)
                finally:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
        finally:
            stack.down(settings, log=lambda line: None)
    load_after = os.getloadavg()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}")
    print(f"load average (1/5/15 min): before {_load(load_before)}, after {_load(load_after)}")
    print(f"records: {len(records)} corpus_json raw records ({len({r.record_id for r in records})} papers)")
    print(
        f"service (one normalizer process, consume → parse → upsert → emit): {figures['service']:,.0f} records/s,",
        f"{figures['cpu_ms']:.2f} ms CPU a record, peak RSS {figures['peak']:.0f} MB",
    )
    print(f"store alone (parse → merge → bulk write, no Kafka, batches of {BATCH}): {figures['alone']:,.0f} records/s")
    print(
        "server write floor (only inserting what the store wrote: papers, versions, source records):",
        f"{figures['floor']:,.0f} records/s",
    )
    print(f"bare bulk upsert of small documents (batches of {BATCH}): {figures['bare']:,.0f} documents/s")
    print(f"target {TARGET:,} records/s: {'met' if figures['service'] >= TARGET else 'not met'}")
    if runs:
        print(f"store alone, each in a fresh process, taking turns ({rounds} rounds): before {baseline}, after this")
        for n_round, (before, after) in enumerate(zip(runs["before"], runs["after"], strict=True), 1):
            print(
                f"  round {n_round}: before {before['rate']:,.0f} records/s, {before['cpu_ms']:.2f} ms CPU a record;",
                f"after {after['rate']:,.0f} records/s, {after['cpu_ms']:.2f} ms CPU a record",
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None, help="only the first N corpus records")
    parser.add_argument("--baseline", default=None, help="a commit whose store alone to measure beside this one's")
    parser.add_argument("--rounds", type=int, default=2, help="turns of before and after (with --baseline)")
    arguments = parser.parse_args()
    main(arguments.records, arguments.baseline, arguments.rounds)
