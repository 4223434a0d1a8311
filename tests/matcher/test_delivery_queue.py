"""The webhook queue's claim on a real MongoDB-protocol server (issue 38): one range of the queue's index read in its
order (no collection scan, no sort of every pending delivery), and a claimed delivery is due again only when its
claim runs out; one given back untried is due as it was."""

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pymongo import AsyncMongoClient

from papertrail.runtime.collections import WEBHOOK_DELIVERIES
from schemas.events import FollowMatched, MatchReason
from services.matcher.delivery.webhook_sender import WebhookTarget, queued_delivery
from services.matcher.store import PENDING_BY_DUE, MatcherRecords, claimable
from tests.support.corpus import sample_papers
from tests.support.servers import Servers

pytestmark = pytest.mark.integration
NOW = datetime(2026, 5, 5, 9, tzinfo=UTC)
LEASE = timedelta(minutes=1)


@pytest.fixture
async def store(servers: Servers) -> AsyncIterator[MatcherRecords]:
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    name = f"matcher_queue_{uuid.uuid4().hex[:8]}"
    store = MatcherRecords.of(client[name])
    await store.ensure_indexes()
    papers = list(sample_papers().values())
    queued = []
    for n, paper in enumerate(papers):
        match = FollowMatched(
            user_id=f"user-{n % 3}", follow_id="f1", follow_kind="keyword", paper_id=paper.id,
            reasons=[MatchReason(field="title", term="model")], matched_at=NOW, paper_title=paper.title,
        )  # fmt: skip
        target = WebhookTarget(f"https://hooks-{n % 2}.example/in", "secret")
        queued.append(queued_delivery(match, target, NOW - timedelta(seconds=len(papers) - n), "http://127.0.0.1:8000"))
    await store.deliveries.queue_deliveries(queued)
    yield store
    await client.drop_database(name)
    await client.close()


def stages(explained: dict[str, Any]) -> list[str]:
    node, found = explained["queryPlanner"]["winningPlan"], []
    while node:
        found.append(node.get("stage"))
        node = node.get("inputStage") or {}
    return found


async def test_the_claim_reads_the_queue_index_in_its_order(store: MatcherRecords) -> None:
    query = claimable(NOW, ["hooks-0.example"], ["user-1"])
    find = {"find": WEBHOOK_DELIVERIES.name, "filter": query, "sort": {"due_at": 1}, "limit": 1, "hint": PENDING_BY_DUE}
    plan = stages(await store.deliveries.deliveries.database.command({"explain": find}))
    assert "IXSCAN" in plan and "COLLSCAN" not in plan and "SORT" not in plan, plan


async def test_a_claimed_delivery_is_due_again_only_when_its_claim_runs_out(store: MatcherRecords) -> None:
    first = await store.deliveries.claim_due_delivery(NOW, LEASE, [], [])
    second = await store.deliveries.claim_due_delivery(NOW, LEASE, [], [])
    assert first is not None and second is not None
    assert first["due_at"] < second["due_at"] < NOW and first["claimed_until"] == NOW + LEASE  # handed back as due
    stored = await store.deliveries.deliveries.find_one({"_id": first["_id"]})
    assert stored is not None and stored["due_at"] == NOW + LEASE  # a crashed replica's claim runs out by itself
    await store.deliveries.delivery_released(second["_id"], second["due_at"])
    again = await store.deliveries.claim_due_delivery(NOW, LEASE, [], [])
    assert again is not None and again["_id"] == second["_id"]  # given back untried: due as it was, first in line
    other = await store.deliveries.claim_due_delivery(NOW, LEASE, [again["host"]], [])
    assert other is not None and other["host"] != again["host"]
