"""Time until every paper is searchable, on a local stack this script starts itself (every server and the five
services on free ports, so it runs beside other stacks):

- demo: what `make demo` does (papertrail_tools/demo.py): the replay server answers as arXiv OAI-PMH, the ACL
  Anthology and Hugging Face; the harvester reads it on its schedule; once every service is ready the recorded
  Hugging Face days are harvested and one day of the May 2026 corpus is imported. Timed from "all services ready".
- month: a month of real listings imported at once, as `papertrail import` does for a user: the in-repo May 2026
  corpus, its 31 daily files as one file (7,184 records: about the size of issue 22's June 2026 import of 8,497).
  Timed from the import's start.

All searchable: every consumer group caught up and the search index holds as many documents as the normalizer
stored papers, for 5 s on end (so a pause between two harvests is not taken for the end). Printed: papers, seconds
to the first and to all searchable, the machine and its load average (it is shared: say so beside the figures).
Then per stage (bench/pipeline_load.py's STAGES): the messages its consumer group committed and the seconds until it
had committed them all, counted from the start and only after the stage before it was done, as records/s beside the
MongoDB-protocol server's bare bulk-upsert rate (measured after the run, the services idle); and each service's
MongoDB commands: how many, the seconds it waited on them, and the three it waited on longest (where the time goes).

    uv run python bench/searchable.py demo|month [--within 1800]
"""

import argparse
import asyncio
import gzip
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from pymongo import MongoClient  # noqa: E402

from bench.normalize_throughput import bare_bulk_upsert  # noqa: E402
from bench.pipeline_load import STAGES, handled, mongo_waits  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from papertrail_tools.demo import FIXTURES, data_steps, demo_environment  # noqa: E402
from tests.support.drills import Pipeline, pipeline_env, settled  # noqa: E402
from tests.support.kafka import caught_up  # noqa: E402
from tests.support.replay import replay_server  # noqa: E402
from tests.support.servers import stack_on_free_ports  # noqa: E402

MONTH = sorted((FIXTURES / "corpus" / "arxiv-daily-2026-05").glob("*.jsonl.gz"))
STEADY_S = 5.0


def papertrail(env: dict[str, str], *args: str) -> None:
    """A `papertrail` command as a user runs it, against this run's stack."""
    subprocess.run(
        [sys.executable, "-m", "papertrail", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )


def counter(env: dict[str, str]) -> Callable[[], tuple[int, int]]:
    """(documents in the search index, papers the normalizer stored)."""
    mongo: MongoClient = MongoClient(env["MONGODB_URL"])
    papers = mongo[env["MONGODB_DATABASE"]]["papers"]
    meili = httpx.Client(base_url=env["MEILI_URL"], headers={"Authorization": f"Bearer {env['MEILI_MASTER_KEY']}"})

    def counts() -> tuple[int, int]:
        answer = meili.get(f"/indexes/{env['INDEX_NAME']}/stats")
        indexed = int(answer.json()["numberOfDocuments"]) if answer.status_code == 200 else 0
        return indexed, papers.count_documents({})

    return counts


def time_to_searchable(
    pipeline: Pipeline, started: float, within: float, loading: threading.Thread
) -> tuple[int, float, float]:
    """(papers, seconds to the first searchable, seconds to all searchable) from `started`, all of them once
    `loading` (the harvests and imports) is done."""
    counts = counter(pipeline.env)
    first = 0.0
    streak_since: float | None = None
    deadline = started + within
    while time.perf_counter() < deadline:
        indexed, stored = counts()
        now = time.perf_counter()
        if indexed and not first:
            first = now - started
        done = not loading.is_alive() and stored > 0 and indexed == stored and asyncio.run(settled(pipeline.bootstrap))
        if not done:
            streak_since = None
        elif streak_since is None:
            streak_since = now
        elif now - streak_since >= STEADY_S:
            return stored, first, streak_since - started
        time.sleep(0.25)
    indexed, stored = counts()
    raise SystemExit(f"not all searchable within {within:.0f} s: {indexed:,} of {stored:,} papers in the index")


async def stage_times(
    bootstrap: str, started: float, within: float, loading: threading.Thread
) -> dict[str, tuple[float, int]]:
    """Per stage, (seconds from `started`, messages its group had committed) when it first caught up on its topic
    after the stage before it was done (the normalizer: after `loading` ended). Later events of a paper (a sweep's)
    are not waited for: this is each stage's pass over what the load brought."""
    done: dict[str, tuple[float, int]] = {}
    deadline = started + within
    while len(done) < len(STAGES) and time.perf_counter() < deadline:
        for name, topic, group, upstream in STAGES:
            ready = not loading.is_alive() if upstream is None else upstream in done
            if name not in done and ready and await caught_up(bootstrap, topic, group):
                done[name] = (time.perf_counter() - started, await handled(bootstrap, topic, group))
        await asyncio.sleep(0.25)
    return done


def run(mode: str, within: float) -> None:
    with tempfile.TemporaryDirectory() as folder, ExitStack() as replaying:
        settings = stack_on_free_ports(Path(folder))
        pipeline = None
        try:
            stack.up(settings, log=lambda line: None)
            extra = {"LOG_LEVEL": "WARNING"}
            if mode == "demo":  # as papertrail_tools/demo.py runs it
                extra |= demo_environment(replaying.enter_context(replay_server(FIXTURES)).url)
            env = pipeline_env(settings.environment(), **extra)
            pipeline = Pipeline(env, Path(folder))
            launched = time.perf_counter()
            pipeline.start()
            ready = time.perf_counter()
            print(f"all services ready in {ready - launched:.0f} s")
            if mode == "demo":
                commands = data_steps()
            else:  # one file, as a month's listings come: 31 commands would time the command's start 31 times
                month = Path(folder) / "2026-05_AI_enhanced_Chinese.jsonl.gz"
                month.write_bytes(b"".join(gzip.compress(gzip.decompress(p.read_bytes())) for p in MONTH))
                commands = [["import", str(month)]]
            loaded: list[float] = []
            started = time.perf_counter()

            def run_commands() -> None:
                for command in commands:
                    papertrail(env, *command)
                loaded.append(time.perf_counter() - started)

            loading = threading.Thread(target=run_commands, daemon=True)
            loading.start()
            bootstrap = pipeline.bootstrap
            stages: list[dict[str, tuple[float, int]]] = []
            timing = threading.Thread(
                target=lambda: stages.append(asyncio.run(stage_times(bootstrap, started, within, loading))),
                daemon=True,
            )
            timing.start()
            papers, first, everything = time_to_searchable(pipeline, started, within, loading)
            timing.join(timeout=within)
            waits = {name: mongo_waits(service.url("")) for name, service in pipeline.services.items()}
            bare = asyncio.run(bare_bulk_upsert(settings.environment()["MONGODB_URL"], 8_000))
        finally:
            if pipeline is not None:
                pipeline.stop()
            stack.down(settings, log=lambda line: None)
    load = os.getloadavg()
    what = "harvests and import" if mode == "demo" else f"import of {len(MONTH)} days in one file"
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} cores (shared)")
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"{mode}: {papers:,} papers; the {what} (`papertrail` commands) done after {loaded[0]:.1f} s")
    print(f"{mode}: first paper searchable after {first:.1f} s, all {papers:,} after {everything:.1f} s")
    print(f"bare bulk upsert on the same MongoDB-protocol server, after the run: {bare:,.0f} documents/s")
    done = stages[0] if stages else {}
    for name, *_ in STAGES:
        if name in done:
            seconds, messages = done[name]
            rate = messages / seconds
            shown = f"{messages:,} messages by {seconds:.1f} s: {rate:,.0f}/s, {rate / bare:.0%} of the bare rate"
        else:
            shown = "not caught up"
        print(f"  {name:<16} {shown}")
    print("MongoDB commands per service (commands sent, seconds waited, the three longest waits):")
    for name, rows in waits.items():
        rows.sort(key=lambda row: -row[3])
        top = ", ".join(f"{cmd} {coll} {n:,.0f}× {s:,.1f} s" for cmd, coll, n, s in rows[:3])
        print(f"  {name:<11} {sum(r[2] for r in rows):>8,.0f} {sum(r[3] for r in rows):>8,.1f} s  {top}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["demo", "month"])
    parser.add_argument("--within", type=float, default=1800, help="seconds to wait for every paper to be searchable")
    args = parser.parse_args()
    run(args.mode, args.within)
