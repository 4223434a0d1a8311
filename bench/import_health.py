"""The query service's /healthz while a reader imports a 50,000-entry BibTeX file (issue 22: such a file left the
service unanswered for ~58 s), beside the same probe with no import running, in one run; then, in this process, how
much reading the file stalls an event loop when it is read in a worker thread against a worker process (the choice
`services/query/library/importing.py` made: the parsers are pure Python, and a thread holds the GIL).

The file: the three real .bib files of tests/fixtures/library (a hand-kept one, a Zotero export, the ACL Anthology's
export; 12 entries, 5.6 KB) one after another until it holds --entries entries (50,000: 4,167 copies, 23 MiB,
within the 24 MiB upload cap). The database holds the library tests' 1,130 real papers, so the Anthology's entry
resolves and the others do not.

Starts its own local stack (temporary folder, free ports) and a query service process; stops both at the end.
    uv run python bench/import_health.py [--entries 50000] [--baseline-s 20] [--lag-entries 10000]
"""

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from pymongo import MongoClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.search_latency import start_query_service  # noqa: E402
from papertrail.runtime.collections import PAPERS  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from services.normalizer.store import INDEXES as NORMALIZER_INDEXES  # noqa: E402
from services.query.library.imports import read_library  # noqa: E402
from tests.support.library_papers import acl_2024, arxiv_oai, red_fm  # noqa: E402
from tests.support.reader_site import stored_document  # noqa: E402
from tests.support.servers import stack_on_free_ports  # noqa: E402
from tests.support.services import create_user  # noqa: E402

LIBRARY = ROOT / "tests" / "fixtures" / "library"
REAL_BIB = ("mera_anthology.bib", "acl-style-files_custom.bib", "acl-style-files_zotero.bib")
PROBE_EVERY_S = 0.05
PROBE_TIMEOUT_S = 300.0  # a probe the service does not answer in this long counts as this long


def large_bib(entries: int) -> bytes:
    unit = b"\n".join((LIBRARY / name).read_bytes() for name in REAL_BIB)
    return b"\n".join([unit] * math.ceil(entries / 12))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def summary(latencies_s: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in latencies_s]
    return {"n": len(ms), "p50": percentile(ms, 50), "p99": percentile(ms, 99), "max": max(ms)}


async def probe(client: httpx.AsyncClient, until: asyncio.Event) -> list[float]:
    """/healthz one request after another (PROBE_EVERY_S apart) until `until` is set: each one's latency."""
    latencies = []
    while not until.is_set():
        started = time.perf_counter()
        try:
            (await client.get("/healthz", timeout=PROBE_TIMEOUT_S)).raise_for_status()
        except httpx.TimeoutException:
            pass  # counted as the whole timeout
        latencies.append(time.perf_counter() - started)
        await asyncio.sleep(PROBE_EVERY_S)
    return latencies


async def measure(base: str, token: str, data: bytes, baseline_s: float) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base) as client:
        quiet = asyncio.Event()
        baseline = asyncio.create_task(probe(client, quiet))
        await asyncio.sleep(baseline_s)
        quiet.set()
        result: dict[str, Any] = {"baseline": summary(await baseline)}

        done = asyncio.Event()
        during = asyncio.create_task(probe(client, done))
        started = time.perf_counter()
        auth = {"Authorization": f"Bearer {token}"}
        posted = await client.post(
            "/api/me/library/import", headers=auth, files={"file": ("large.bib", data)}, timeout=1800
        )
        posted.raise_for_status()
        result["answered_s"] = time.perf_counter() - started
        job_id = posted.json()["id"]
        while True:
            job = (await client.get(f"/api/me/library/imports/{job_id}", headers=auth, timeout=60)).json()
            if job["state"] == "done":
                break
            await asyncio.sleep(1)
        result["done_s"] = time.perf_counter() - started
        done.set()
        result["during"] = summary(await during)
        result["job"] = {"total": job["total"], "counts": job["counts"]}
        return result


def service_run(entries: int, baseline_s: float) -> dict[str, Any]:
    data = large_bib(entries)
    papers = [*acl_2024(), *arxiv_oai(), red_fm()]
    with tempfile.TemporaryDirectory() as folder:
        settings = stack_on_free_ports(Path(folder), install_dir=ROOT / ".stack" / "npm", start_timeout_s=180)
        stack.up(settings, log=lambda _: None)
        env = settings.environment() | {
            "INDEX_NAME": "papers_bench",
            "MONGODB_DATABASE": "papertrail_bench",
            "LIBRARY_IMPORT_MAX_ENTRIES": str(max(entries, 50_000) + 12),
        }
        try:
            mongo: MongoClient[dict[str, Any]]
            with MongoClient(env["MONGODB_URL"]) as mongo:
                db: Any = mongo[env["MONGODB_DATABASE"]]
                for collection, key, unique in NORMALIZER_INDEXES:
                    db[collection].create_index(key, unique=unique, sparse=unique)
                db[PAPERS.name].insert_many([stored_document(p) for p in papers])
            service, port = start_query_service(env)
            try:
                token = create_user(env, "bench")
                result = asyncio.run(measure(f"http://127.0.0.1:{port}", token, data, baseline_s))
            finally:
                service.terminate()
                service.wait(timeout=60)
        finally:
            stack.down(settings, log=lambda _: None)
    return result | {"bytes": len(data)}


async def loop_lag(read: Any) -> tuple[list[float], float]:
    """How late a 10 ms timer fires on this event loop while `read()` runs: each lateness, and how long it ran."""
    lags: list[float] = []
    finished = asyncio.Event()

    async def tick() -> None:
        while not finished.is_set():
            planned = time.perf_counter() + 0.01
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - planned)

    ticker = asyncio.create_task(tick())
    started = time.perf_counter()
    await read()
    took = time.perf_counter() - started
    finished.set()
    await ticker
    return lags, took


def lag_run(entries: int) -> dict[str, Any]:
    data = large_bib(entries)
    result: dict[str, Any] = {}

    async def in_thread() -> None:
        await asyncio.to_thread(read_library, data, "bibtex")

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(len, b"").result()  # the worker started and waiting, as in the service after its first import

        async def in_process() -> None:
            await asyncio.get_running_loop().run_in_executor(pool, read_library, data, "bibtex")

        for name, read in (("thread", in_thread), ("process", in_process)):
            lags, took = asyncio.run(loop_lag(read))
            result[name] = summary(lags) | {"took_s": took}
    return result | {"entries": 12 * math.ceil(entries / 12)}


def report(service: dict[str, Any], lag: dict[str, Any], load: tuple[float, float, float]) -> str:
    b, d = service["baseline"], service["during"]
    lines = [
        f"file: {service['job']['total']:,} entries, {service['bytes'] / 1e6:.1f} MB; "
        f"POST answered (read + stored) in {service['answered_s']:.1f} s, job done in {service['done_s']:.1f} s; "
        f"counts {service['job']['counts']}",
        "",
        "| /healthz | probes | p50 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|",
        f"| baseline, no import | {b['n']} | {b['p50']:.1f} | {b['p99']:.1f} | {b['max']:.1f} |",
        f"| during the import | {d['n']} | {d['p50']:.1f} | {d['p99']:.1f} | {d['max']:.1f} |",
        "",
        f"event-loop lag (10 ms timer) while reading {lag['entries']:,} entries:",
        "",
        "| read in | ticks | p50 ms | p99 ms | max ms | reading took s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in ("thread", "process"):
        r = lag[name]
        lines.append(
            f"| a worker {name} | {r['n']} | {r['p50']:.1f} | {r['p99']:.1f} | {r['max']:.1f} | {r['took_s']:.1f} |"
        )
    lines += ["", f"load average (1, 5, 15 min) at the end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=50_000, help="entries of the imported file")
    parser.add_argument("--baseline-s", type=float, default=20, help="how long /healthz is probed before the import")
    parser.add_argument("--lag-entries", type=int, default=10_000, help="entries read for the thread/process lag")
    args = parser.parse_args()
    service = service_run(args.entries, args.baseline_s)
    print(json.dumps(service), flush=True)  # kept if the lag run below fails
    lag = lag_run(args.lag_entries)
    print(report(service, lag, os.getloadavg()))


if __name__ == "__main__":
    main()
