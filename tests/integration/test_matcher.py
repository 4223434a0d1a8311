"""The matcher as a real process over real Kafka, MongoDB and Meilisearch: follows in, matches out."""

import json
import re
from datetime import UTC, datetime

import httpx
import pytest
from pymongo import MongoClient

from schemas.events import FollowChanged, FollowMatched
from services.matcher.delivery.webhooks import SIGNATURE_HEADER, verify_signature
from tests.support.events import enriched, publish
from tests.support.kafka import caught_up
from tests.support.matching import PAPERS, RUN, USER, MatchedReader, follow
from tests.support.receivers import SECRET, Receiver
from tests.support.servers import Servers
from tests.support.waiting import wait_until, wait_until_async

pytestmark = pytest.mark.integration


def follows_gauge(port: int, kind: str) -> float | None:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    found = re.search(rf'^papertrail_matcher_follows{{kind="{kind}"}} ([0-9.e+]+)$', text, re.MULTILINE)
    return float(found.group(1)) if found else None


async def test_follow_created_backfills_then_matches_live_papers_once(
    matcher: dict, servers: Servers, mongo: MongoClient
) -> None:
    rag = follow(f"rag-{RUN}", 'retrieval AND ("language model" OR LLM) NOT survey')
    await publish(
        servers,
        "follows.changed.v1",
        FollowChanged(action="created", follow_id=rag.id, user_id=USER, follow=rag, changed_at=datetime.now(UTC)),
        USER,
    )
    reader = MatchedReader(servers)
    await reader.consumer.start()
    try:
        # the backfill finds the paper already held in Meilisearch
        await reader.until(lambda m: m.paper_id == "arxiv:2605.01386" and m.backfill, "the backfill match")
        live = enriched(PAPERS["arxiv:2605.00631"])
        for _ in range(2):  # the same paper twice gives one match
            await publish(servers, "papers.enriched.v1", live, live.paper.id)
        seen = await reader.until(lambda m: m.paper_id == live.paper.id, "the live match")
    finally:
        await reader.consumer.stop()
    match = next(m for m in seen if m.paper_id == live.paper.id)
    assert match.follow_id == rag.id and match.follow_kind == "keyword" and not match.backfill
    assert [(r.term, r.field) for r in match.reasons] == [
        ("language model", "abstract"),
        ("retrieval", "title"),
        ("retrieval", "abstract"),
    ]
    db = mongo[matcher["env"]["MONGODB_DATABASE"]]
    wait_until(
        lambda: db.matches.count_documents({"follow_id": rag.id, "announced": True}) == 2,
        timeout=60,
        what="two announced matches",
    )
    assert db.matches.count_documents({"follow_id": rag.id, "paper_id": live.paper.id}) == 1
    backfill = db.follow_backfills.find_one({"_id": rag.id})
    assert backfill is not None and backfill["state"] == "done" and backfill["matches"] == 1


async def test_unfollowing_stops_new_matches(matcher: dict, servers: Servers, mongo: MongoClient) -> None:
    port = matcher["port"]
    gone = follow(f"gone-{RUN}", "retrieval")
    kept = follow(f"kept-{RUN}", "medical AND retrieval")
    baseline = follows_gauge(port, "keyword") or 0
    for item in (gone, kept):
        await publish(
            servers,
            "follows.changed.v1",
            FollowChanged(action="updated", follow_id=item.id, user_id=USER, follow=item, changed_at=datetime.now(UTC)),
            USER,
        )
    wait_until(lambda: follows_gauge(port, "keyword") == baseline + 2, timeout=60, what="both follows counted")
    await publish(
        servers,
        "follows.changed.v1",
        FollowChanged(action="deleted", follow_id=gone.id, user_id=USER, changed_at=datetime.now(UTC)),
        USER,
    )
    wait_until(lambda: follows_gauge(port, "keyword") == baseline + 1, timeout=60, what="the unfollow applied")
    paper = enriched(PAPERS["arxiv:2604.27724"])  # medical retrieval: both follows would take it
    await publish(servers, "papers.enriched.v1", paper, paper.paper.id)
    reader = MatchedReader(servers)
    await reader.consumer.start()
    try:
        seen = await reader.until(lambda m: m.follow_id == kept.id, "the kept follow's match")
    finally:
        await reader.consumer.stop()
    db = mongo[matcher["env"]["MONGODB_DATABASE"]]
    assert not [m for m in seen if m.follow_id == gone.id]
    assert db.matches.count_documents({"follow_id": gone.id}) == 0


async def test_a_match_reaches_its_owners_webhook_once(matcher: dict, servers: Servers, mongo: MongoClient) -> None:
    db = mongo[matcher["env"]["MONGODB_DATABASE"]]
    owner = f"hooked-{RUN}"
    with Receiver([200]) as receiver:
        # the user's own webhook (set through the query API, which writes `users`), not the follow's
        db.users.insert_one({"_id": owner, "name": "hooked", "webhook_url": receiver.url, "webhook_secret": SECRET})
        hooked = follow(f"hooked-{RUN}", "medical AND retrieval").model_copy(update={"user_id": owner})
        await publish(
            servers,
            "follows.changed.v1",
            FollowChanged(
                action="created", follow_id=hooked.id, user_id=owner, follow=hooked, changed_at=datetime.now(UTC)
            ),
            owner,
        )
        wait_until(
            lambda: db.follow_backfills.find_one({"_id": hooked.id, "state": "done"}), 60, what="the follow taken in"
        )
        paper = enriched(PAPERS["arxiv:2604.27724"])
        for _ in range(2):  # redelivered: still one POST
            await publish(servers, "papers.enriched.v1", paper, paper.paper.id)
        wait_until(lambda: len(receiver.requests) >= 1, 60, what="the webhook POST")
        wait_until(
            lambda: db.matches.count_documents({"follow_id": hooked.id, "announced": True}) == 1, 60, what="announced"
        )
        groups = [
            (servers.topic(topic), servers.group(group))
            for topic, group in (
                ("papers.enriched.v1", "papertrail-matcher"),
                ("follows.matched.v1", "papertrail-matcher-webhooks"),
            )
        ]

        async def settled() -> bool:  # both papers matched and every match handed to the webhook consumer
            return all([await caught_up(servers.kafka_bootstrap_servers, t, g) for t, g in groups])

        await wait_until_async(settled, 60, "the matcher's groups caught up")
        headers, body = receiver.requests[0]
    assert len(receiver.requests) == 1
    assert verify_signature(SECRET, body, headers[SIGNATURE_HEADER])
    assert json.loads(body)["match"]["paper_id"] == paper.paper.id


async def test_a_receiver_that_never_answers_holds_up_no_other_users_delivery(
    matcher: dict, servers: Servers, mongo: MongoClient
) -> None:
    """Two users' matches in one batch, the silent receiver's first: the other user's webhook gets its POST while
    the silent one still holds its request, the delivery still pending (before: one at a time, 45 s behind)."""
    db = mongo[matcher["env"]["MONGODB_DATABASE"]]
    with Receiver([200], silent=True) as silent, Receiver([200]) as answering:
        matches = []
        for owner, receiver in ((f"silent-{RUN}", silent), (f"answering-{RUN}", answering)):
            db.users.insert_one({"_id": owner, "name": owner, "webhook_url": receiver.url, "webhook_secret": SECRET})
            hooked = follow(f"{owner}-f", f"zq{RUN}").model_copy(update={"user_id": owner})  # matches no paper
            changed = FollowChanged(
                action="created", follow_id=hooked.id, user_id=owner, follow=hooked, changed_at=datetime.now(UTC)
            )
            await publish(servers, "follows.changed.v1", changed, owner)
            matches.append(
                FollowMatched(
                    user_id=owner,
                    follow_id=hooked.id,
                    follow_kind="keyword",
                    follow_name=hooked.name,
                    paper_id="arxiv:2604.27724",
                    paper_title="a paper",
                    reasons=[],
                    matched_at=datetime.now(UTC),
                )
            )

        def both_known() -> bool:
            ids = [match.follow_id for match in matches]
            return db.follow_backfills.count_documents({"_id": {"$in": ids}, "state": "done"}) == len(ids)

        wait_until(both_known, 60, what="both follows taken in")
        for match in matches:  # one partition (the same key), the silent receiver's match first
            await publish(servers, "follows.matched.v1", match, "arxiv:2604.27724")
        wait_until(lambda: answering.requests, 60, what="the answering receiver's POST")
        assert silent.requests  # taken, never answered
        silent_delivery = db.webhook_deliveries.find_one({"user_id": f"silent-{RUN}"})
        assert silent_delivery is not None and silent_delivery["outcome"] == "pending"
