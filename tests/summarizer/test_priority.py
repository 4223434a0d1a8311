"""The summary sweep's order over a real MongoDB-protocol server: papers readers asked for first (matched by a follow,
saved, picked for a ranked feed: read from the matcher's and the query service's collections), then Hugging Face
picks, then the rest, newest first within a rank; a paper held again keeps its rank, and the backlog is counted by
rank. Papers are the corpus's own (`tests/support/fake_openai.py`)."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.text import paper_digest
from papertrail.runtime.collections import LIBRARY, MATCHES, READER_PICKS, SUMMARY_PENDING
from schemas.events import PaperNormalized
from schemas.paper import CommunityPick
from schemas.summary import NO_MODEL_CONFIGURED
from services.summarizer.metrics import BACKLOG
from services.summarizer.policy import COMMUNITY, NEWEST, READERS, summary_priority
from services.summarizer.store import ReaderInterest, SummaryStore
from services.summarizer.summarizing import Summarizer
from tests.support.fake_openai import corpus_event, corpus_lines

pytestmark = pytest.mark.integration

LINES = corpus_lines()
DAY = datetime(2026, 5, 1, tzinfo=UTC)


def _event(i: int, days: int, **changes: Any) -> PaperNormalized:
    return corpus_event(LINES[i], published_at=DAY + timedelta(days=days), **changes)


async def test_readers_asks_then_community_picks_then_the_newest(scratch_db: AsyncDatabase) -> None:
    older, newer = _event(0, 1), _event(1, 3)
    picked = _event(2, 0, community=CommunityPick(date="2026-05-01", upvotes=40))
    matched, saved, ranked = _event(3, -3), _event(4, -2), _event(5, -1)
    assert [summary_priority(e.paper) for e in (older, picked)] == [NEWEST, COMMUNITY]
    store = SummaryStore(scratch_db)
    await store.ensure_indexes()
    events = [older, newer, picked, matched, saved, ranked]
    await store.hold_many([(e, paper_digest(e.paper), "pending", summary_priority(e.paper)) for e in events])
    now = datetime.now(UTC)
    await scratch_db[MATCHES.name].insert_one({"user_id": "u1", "paper_id": matched.paper.id, "matched_at": now})
    await scratch_db[LIBRARY.name].insert_one({"user_id": "u2", "paper_id": saved.paper.id, "saved_at": now})
    await scratch_db[READER_PICKS.name].insert_one({"_id": "u3", "picks": [{"paper_id": ranked.paper.id}]})
    summarizer = Summarizer(store, None, daily_token_budget=0, interest=ReaderInterest(scratch_db))

    assert await summarizer.raise_what_readers_asked_for() == 3
    order = [event.paper.id for event, _ in await store.waiting(10)]
    expected = [ranked, saved, matched, picked, newer, older]
    assert order == [e.paper.id for e in expected]

    # a newer event of an asked-for paper (a revision) replaces what it waits with, not its rank
    revised = corpus_event(LINES[3], "revised", published_at=DAY - timedelta(days=3), comments="v2")
    await store.hold_many([(revised, paper_digest(revised.paper), "pending", summary_priority(revised.paper))])
    assert [event.paper.id for event, _ in await store.waiting(4)][2] == matched.paper.id
    assert await store.backlog_by_priority() == {READERS: 3, COMMUNITY: 1, NEWEST: 2}
    await summarizer.count_backlog()
    assert BACKLOG.labels("readers")._value.get() == 3 and BACKLOG.labels("newest")._value.get() == 2

    # a paper raised stays raised; a save after the last sweep raises its paper at the next one
    assert await summarizer.raise_what_readers_asked_for() == 0
    await scratch_db[LIBRARY.name].insert_one(
        {"user_id": "u2", "paper_id": older.paper.id, "saved_at": datetime.now(UTC)}
    )
    assert await summarizer.raise_what_readers_asked_for() == 1
    assert [event.paper.id for event, _ in await store.waiting(10)][-1] == newer.paper.id


async def test_papers_held_for_no_model_join_the_queue_once_a_model_is_configured(scratch_db: AsyncDatabase) -> None:
    """A summarizer started with a model queues the papers held while none was configured (readers then see their
    place), and leaves the other reasons as they are."""
    store = SummaryStore(scratch_db)
    await store.ensure_indexes()
    unmodelled, down = [_event(0, 1), _event(1, 2)], _event(2, 3)
    await store.hold_many([(e, paper_digest(e.paper), NO_MODEL_CONFIGURED, NEWEST) for e in unmodelled])
    await store.hold_many([(down, paper_digest(down.paper), "pending", NEWEST)])
    await store.note_attempt(down.paper.id, "endpoint down")

    assert await store.queue_papers_held_for_no_model() == 2
    reasons = {doc["_id"]: doc.get("reason") async for doc in scratch_db[SUMMARY_PENDING.name].find({}, ["reason"])}
    assert reasons == {unmodelled[0].paper.id: None, unmodelled[1].paper.id: None, down.paper.id: "endpoint down"}
    assert await store.queue_papers_held_for_no_model() == 0
