"""The webhook queue's claim with 10,000 deliveries queued: claims per second through the matcher's store
(`MatcherRecords.claim_due_delivery`, one atomic find-and-modify on `webhook_deliveries`), before and after issue 38's
change of its query, and the plan MongoDB chose for each. The deliveries are queued as `on_follows_matched` queues
them (`queued_delivery`, over real corpus papers), to 50 users on 20 receiving hosts, two hosts and two users at their
bounds (the dispatcher's `busy` lists). Starts its own MongoDB-protocol server (the local stand-in, secantusdb), or
uses `--mongodb-url` (a real MongoDB, where one is at hand); drops its database at the end.
    uv run python bench/webhook_claims.py [--deliveries 10000] [--claims 300] [--mongodb-url URL]
"""

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pymongo import ASCENDING, AsyncMongoClient, ReturnDocument

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stand_in import run_on_mongodb  # noqa: E402
from papertrail.runtime.collections import WEBHOOK_DELIVERIES  # noqa: E402
from schemas.events import FollowMatched, MatchReason  # noqa: E402
from services.matcher.delivery.webhook_sender import WebhookTarget, queued_delivery  # noqa: E402
from services.matcher.store import PENDING_BY_DUE, MatcherRecords, claimable  # noqa: E402
from tests.support.corpus import corpus_papers  # noqa: E402

USERS, HOSTS, LEASE = 50, 20, timedelta(seconds=60)


def deliveries(count: int, now: datetime) -> list[dict[str, Any]]:
    papers = corpus_papers()
    queued = []
    for n in range(count):
        paper, user = papers[n % len(papers)], f"user-{n % USERS}"
        match = FollowMatched(
            user_id=user, follow_id=f"follow-{n}", follow_kind="keyword", paper_id=paper.id,
            reasons=[MatchReason(field="title", term="model")], matched_at=now, paper_title=paper.title,
        )  # fmt: skip
        target = WebhookTarget(f"https://hooks-{n % HOSTS}.example/papertrail/{user}", "secret")
        queued.append(queued_delivery(match, target, now - timedelta(seconds=count - n), "http://127.0.0.1:8000"))
    return queued


def previous_claim_filter(now: datetime, busy_hosts: list[str], busy_users: list[str]) -> dict[str, Any]:
    """The claim's filter before issue 38: an unclaimed delivery was one whose `claimed_until` was null or past."""
    return {
        "due_at": {"$lte": now},
        "outcome": "pending",
        "host": {"$nin": busy_hosts},
        "user_id": {"$nin": busy_users},
        "$or": [{"claimed_until": None}, {"claimed_until": {"$lt": now}}],
    }


async def claims_per_second(store: MatcherRecords, claims: int, previous: bool) -> tuple[float, int]:
    busy_hosts, busy_users = ["hooks-0.example", "hooks-1.example"], ["user-0", "user-1"]
    took, got = 0.0, 0
    for _ in range(claims):
        now = datetime.now(UTC)
        started = time.perf_counter()
        if previous:
            doc = await store.deliveries.deliveries.find_one_and_update(
                previous_claim_filter(now, busy_hosts, busy_users),
                {"$set": {"claimed_until": now + LEASE}},
                sort=[("due_at", ASCENDING)],
                return_document=ReturnDocument.AFTER,
            )
        else:
            doc = await store.deliveries.claim_due_delivery(now, LEASE, busy_hosts, busy_users)
        took += time.perf_counter() - started
        got += doc is not None
    return claims / took, got


async def plan(store: MatcherRecords, query: dict[str, Any], hint: str | None) -> str:
    """The winning plan's stages, as the server explains the claim's query (sorted by due_at)."""
    find = {"find": WEBHOOK_DELIVERIES.name, "filter": query, "sort": {"due_at": 1}, "limit": 1}
    try:
        explained = await store.deliveries.deliveries.database.command(
            {"explain": find | ({"hint": hint} if hint else {})}
        )
    except Exception as error:  # a server without explain says so in the report
        return f"(no explain: {type(error).__name__})"
    stages, node = [], explained.get("queryPlanner", {}).get("winningPlan", {})
    while node:
        stages.append(str(node.get("stage")) + (f" {node['indexName']}" if "indexName" in node else ""))
        node = node.get("inputStage") or {}
    return " <- ".join(stages) or str(explained)[:200]


async def run(url: str, args: argparse.Namespace) -> None:
    client: AsyncMongoClient = AsyncMongoClient(url, tz_aware=True)
    db = client["papertrail_bench_claims"]
    try:
        store = MatcherRecords.of(db)
        for previous in (True, False):
            await db.drop_collection(WEBHOOK_DELIVERIES.name)
            await store.ensure_indexes()
            if previous:  # the queue's index before issue 38
                await store.deliveries.deliveries.drop_index(PENDING_BY_DUE)
                pending = {"outcome": "pending"}
                old_key = [("outcome", 1), ("due_at", 1)]
                await store.deliveries.deliveries.create_index(
                    old_key, partialFilterExpression=pending, name="pending_by_due"
                )
            now = datetime.now(UTC)
            await store.deliveries.queue_deliveries(deliveries(args.deliveries, now))
            busy = (["hooks-0.example", "hooks-1.example"], ["user-0", "user-1"])
            query = previous_claim_filter(now, *busy) if previous else claimable(now, *busy)
            explained = await plan(store, query, None if previous else PENDING_BY_DUE)
            rate, got = await claims_per_second(store, args.claims, previous)
            label = "before (outcome+due_at index, claimed_until null or past)" if previous else "after  (due_at index)"
            print(f"{label}: {rate:8.1f} claims/s, {got}/{args.claims} claimed; plan: {explained}")
    finally:
        await client.drop_database("papertrail_bench_claims")
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deliveries", type=int, default=10_000)
    parser.add_argument("--claims", type=int, default=300)
    parser.add_argument("--mongodb-url", help="a running MongoDB (default: start the local stand-in)")
    args = parser.parse_args()
    machine = f"{platform.node()} · {platform.machine()} · python {platform.python_version()}"
    print(f"{machine} · {datetime.now(UTC):%F %R} UTC · load {os.getloadavg()[0]:.1f}")
    print(f"{args.deliveries} deliveries queued, {args.claims} claims each")
    run_on_mongodb(args.mongodb_url, lambda url: run(url, args))


if __name__ == "__main__":
    main()
