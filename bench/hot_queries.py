"""Each hot query (papertrail_tools/hot_queries.py: what a stage runs per message, batch or poll) with 10,000 and
100,000 documents behind it: calls per second through the store method that runs it, with the services' indexes and
again without the index its plan used (the baseline), with the plan the server chose for each. First the server's
bare bulk insert rate, which sizes the fills: every collection is filled once per size, with the services' indexes
in place, as the services write it.

Starts its own MongoDB-protocol server (the local stand-in, secantusdb), or uses `--mongodb-url` (a real MongoDB);
drops its databases at the end.
    uv run python bench/hot_queries.py [--sizes 10000 100000] [--collections webhook_deliveries papers …|all]
"""

import argparse
import os
import platform
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any

from pymongo import AsyncMongoClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stand_in import run_on_mongodb  # noqa: E402
from papertrail_tools.hot_queries import (  # noqa: E402
    HOT_QUERIES,
    HotQuery,
    Recorded,
    ensure_indexes,
    fills,
    plan_of,
    selections,
)

# The collections behind the queries issue 42 measured (the delivery queue's claim, the query service's papers and
# paper_versions finds) and the sweeps' queues: filled at every size by default; `--collections all` fills every one.
DEFAULT_COLLECTIONS = ("webhook_deliveries", "papers", "paper_versions", "summary_pending", "embedding_pending")
CHUNK = 1000
MIN_S, MIN_CALLS, MAX_CALLS = 1.0, 3, 500


def chunks(documents: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    while chunk := list(islice(documents, CHUNK)):
        yield chunk


async def bulk_rate(client: AsyncMongoClient, count: int) -> float:
    """Documents per second of `insert_many` (chunks of CHUNK, unordered) into a collection with no other index."""
    collection = client["papertrail_bench_hot_bare"]["bare"]
    documents = ({"_id": n, "paper_id": f"pt-{n:08d}", "at": datetime.now(UTC), "n": n} for n in range(count))
    started = time.perf_counter()
    for chunk in chunks(documents):
        await collection.insert_many(chunk, ordered=False)
    took = time.perf_counter() - started
    await client.drop_database("papertrail_bench_hot_bare")
    return count / took


async def calls_per_second(query: HotQuery, db: Any) -> float:
    calls, started = 0, time.perf_counter()
    while calls < MAX_CALLS and (calls < MIN_CALLS or time.perf_counter() - started < MIN_S):
        await query.run(db, datetime.now(UTC))
        calls += 1
    return calls / (time.perf_counter() - started)


async def used_indexes(query: HotQuery, db: Any, recorded: Recorded) -> tuple[str, set[str]]:
    """The plan of each selection the query sends on its collection, and the indexes they read (but `_id`'s)."""
    with recorded.recording() as commands:
        await query.run(db, datetime.now(UTC))
    plans, used = [], set()
    for find in (f for c in commands for f in selections(c) if f["find"] == query.collection.name):
        stages = await plan_of(db, find)
        plans.append(" <- ".join(stages))
        used |= {stage.split(" ", 1)[1] for stage in stages if " " in stage and not stage.endswith(" _id_")}
    return " | ".join(dict.fromkeys(plans)), used


async def measure(query: HotQuery, db: Any, recorded: Recorded) -> str:
    """Calls per second with the services' indexes, then without the index the plan read: that one dropped, and any
    the server falls back to after it, until it reads no index but `_id`'s (then all put back)."""
    plan, used = await used_indexes(query, db, recorded)
    indexed = await calls_per_second(query, db)
    if not used:
        return f"{indexed:9.3g}/s  (no index of its own: {plan})"
    collection, dropped = db[query.collection.name], set[str]()
    try:
        while used - dropped:
            for name in used - dropped:
                await collection.drop_index(name)
            dropped |= used
            try:
                _, used = await used_indexes(query, db, recorded)
            except Exception:  # a query that names its index (a hint) fails without it
                break
        try:
            without = f"{await calls_per_second(query, db):9.3g}/s"
        except Exception as error:
            without = f"fails ({type(error).__name__})"
    finally:
        await ensure_indexes(db)
    return f"{indexed:9.3g}/s  without {', '.join(sorted(dropped))}: {without}  plan: {plan}"


async def run(url: str, args: argparse.Namespace) -> None:
    recorded = Recorded()
    client: AsyncMongoClient = AsyncMongoClient(url, tz_aware=True, event_listeners=[recorded])
    try:
        rate = await bulk_rate(client, args.bare)
        print(f"bare bulk insert: {rate:,.0f} documents/s ({args.bare:,} documents, chunks of {CHUNK})")
        wanted = {q.collection.name for q in HOT_QUERIES} if args.collections == ["all"] else set(args.collections)
        queries = [q for q in HOT_QUERIES if q.collection.name in wanted]
        for size in args.sizes:
            db = client[f"papertrail_bench_hot_{size}"]
            await client.drop_database(db.name)
            await ensure_indexes(db)
            started, filled = time.perf_counter(), 0
            for name in sorted(wanted):
                first = next(q for q in queries if q.collection.name == name)
                for chunk in chunks(fills(first, size)):
                    await db[name].insert_many(chunk, ordered=False)
                    filled += len(chunk)
            took = time.perf_counter() - started
            print(f"\n{size:,} documents in each of {len(wanted)} collections: filled at {filled / took:,.0f}/s")
            for query in queries:
                print(f"  {query.stage:10} {query.collection.name:22} {query.what}")
                print(f"  {'':10} {await measure(query, db, recorded)}")
            await client.drop_database(db.name)
    finally:
        for size in args.sizes:
            await client.drop_database(f"papertrail_bench_hot_{size}")
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--collections", nargs="+", default=list(DEFAULT_COLLECTIONS))
    parser.add_argument("--bare", type=int, default=20_000, help="documents of the bare bulk insert")
    parser.add_argument("--mongodb-url", help="a running MongoDB (default: start the local stand-in)")
    args = parser.parse_args()
    machine = f"{platform.node()} · {platform.machine()} · {os.cpu_count()} cores · python {platform.python_version()}"
    print(f"{machine} · {datetime.now(UTC):%F %R} UTC · load {os.getloadavg()[0]:.1f}")
    run_on_mongodb(args.mongodb_url, lambda url: run(url, args))
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
