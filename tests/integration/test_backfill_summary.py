"""A new follow's backfill over the real stack (issue 38 §3): the matcher and the query service as processes over
real Kafka, MongoDB and Meilisearch. A follow that matches several papers already held sends its owner's webhook one
summary (how many, and a link to the follow's feed), not one POST per match; the feed lists a later live match as
new, above the backfilled papers, which are grouped (回溯) and counted."""

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from meilisearch_python_sdk import Client
from meilisearch_python_sdk.models.settings import MeilisearchSettings
from pymongo import MongoClient

from papertrail.domain.follows.rules import PaperText, compile_follow, match_one
from papertrail.domain.search_document import FILTERABLE, SEARCHABLE, SORTABLE, paper_document
from schemas.events import Follow
from services.matcher.delivery.webhooks import EVENT_HEADER, SIGNATURE_HEADER, verify_signature
from tests.support.events import enriched, publish
from tests.support.matching import PAPERS
from tests.support.receivers import Receiver
from tests.support.servers import Servers
from tests.support.services import create_user, running_services
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
RUN = uuid.uuid4().hex[:8]
QUERY = '"language model*"'
LIVE = "arxiv:2605.00631"  # published after the follow: a live match
HELD = [paper for paper_id, paper in PAPERS.items() if paper_id != LIVE]


def index_held(servers: Servers, index_name: str) -> None:
    """Papers the query service already holds: the backfill finds them through Meilisearch."""
    client = Client(servers.meili_url, servers.meili_master_key)
    settings = MeilisearchSettings(
        searchable_attributes=SEARCHABLE, filterable_attributes=FILTERABLE, sortable_attributes=SORTABLE
    )
    client.create_index(index_name, primary_key="id", settings=settings, timeout_in_ms=60_000)
    task = client.index(index_name).add_documents([paper_document(enriched(p), {}) for p in HELD], primary_key="id")
    client.wait_for_task(task.task_uid, timeout_in_ms=60_000)


def expected_backfill() -> set[str]:
    """The held papers the follow matches, by the matcher's own rules."""
    follow = Follow(id="x", user_id="u", kind="keyword", name="lm", query=QUERY, created_at=datetime.now(UTC))
    rule = compile_follow(follow, {})
    return {p.id for p in HELD if match_one(rule, PaperText.of(p))}


@pytest.fixture(scope="module")
def stack(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_backfill_{RUN}",
        "INDEX_NAME": f"papers_backfill_{RUN}",
        "TOPIC_PARTITIONS": "3",
        "DIGEST_ENABLED": "false",
        "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",  # the test's receiver is local: allowed, as an operator would
    }
    index_held(servers, env["INDEX_NAME"])
    logs: Path = tmp_path_factory.mktemp("backfill-summary")
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    with running_services(["matcher", "query"], env, logs) as ports:
        token = create_user(env, f"ana-{RUN}")
        yield {"query": f"http://127.0.0.1:{ports['query']}", "token": token, "db": client[env["MONGODB_DATABASE"]]}
    client.close()


async def test_a_backfill_sends_one_summary_and_is_grouped_below_new_papers(stack: dict, servers: Servers) -> None:
    expected = expected_backfill()
    assert len(expected) > 3, "the fixture should give the backfill several matches"
    api = httpx.AsyncClient(base_url=stack["query"], headers={"Authorization": f"Bearer {stack['token']}"}, timeout=30)
    db = stack["db"]
    async with api:
        with Receiver([200]) as receiver:
            hook = await api.put("/api/me/webhook", json={"url": receiver.url})
            assert hook.status_code == 200, hook.text
            secret = hook.json()["secret"]
            made = await api.post("/api/follows", json={"kind": "keyword", "name": "LM", "query": QUERY})
            assert made.status_code == 201, made.text
            follow_id = made.json()["id"]
            wait_until(
                lambda: db.follow_backfills.find_one({"_id": follow_id, "state": "done"}), 90, what="the backfill done"
            )
            wait_until(lambda: receiver.requests, 60, what="the summary POST")
            live = enriched(PAPERS[LIVE])
            await publish(servers, "papers.enriched.v1", live, LIVE)
            wait_until(lambda: len(receiver.requests) >= 2, 60, what="the live match's POST")
            wait_until(
                lambda: db.webhook_deliveries.count_documents({"follow_id": follow_id, "outcome": "pending"}) == 0,
                60,
                what="nothing left queued",
            )
            assert len(receiver.requests) == 2, "one summary for the backfill, one POST for the live match"
            (summary_headers, summary), (_, matched) = receiver.requests
            assert verify_signature(secret, summary, summary_headers[SIGNATURE_HEADER])
            assert summary_headers[EVENT_HEADER] == "follow.backfilled"
            told = json.loads(summary)["backfill"]
            assert told["papers"] == len(expected) and told["text"] == f"{len(expected)} earlier papers match"
            assert told["feed_url"].endswith(f"/me/feed?follow_id={follow_id}")
            assert json.loads(matched)["match"]["paper_id"] == LIVE

            feed = (await api.get("/api/feed", params={"follow_id": follow_id})).json()
            assert feed["items"][0]["paper_id"] == LIVE
            assert not feed["items"][0]["backfill"]
            assert {item["paper_id"] for item in feed["items"][1:]} == expected
            assert all(item["backfill"] for item in feed["items"][1:])
            assert (feed["total"], feed["backfilled"]) == (len(expected) + 1, len(expected))
