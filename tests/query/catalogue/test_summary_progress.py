"""The status page's AI-summary part over a real MongoDB-protocol server, from what the summarizer's own store writes:
the papers waiting counted by rank in the sweep's order (one held before ranks existed counts as the last), why they
wait, the last day's summaries written and failed; then the page and the API showing it, in both languages. Papers
are the corpus's own (`tests/support/fake_openai.py`)."""

from datetime import UTC, datetime, timedelta

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.text import paper_digest
from papertrail.runtime.collections import SUMMARY_PENDING
from schemas.paper import CommunityPick
from schemas.summary import NO_MODEL_CONFIGURED, Summary
from services.query.catalogue.reads.overview import summary_progress
from services.query.catalogue.repositories import CatalogueRecords
from services.summarizer.policy import READERS, summary_priority
from services.summarizer.store import SummaryStore
from tests.support.fake_openai import corpus_event, corpus_lines
from tests.support.page_details import render, text

pytestmark = pytest.mark.integration

LINES = corpus_lines()
NOW = datetime(2026, 5, 6, 12, 0, tzinfo=UTC)


async def test_the_backlog_by_rank_and_reason_and_the_last_days_summaries(scratch_db: AsyncDatabase) -> None:
    store = SummaryStore(scratch_db)
    await store.ensure_indexes()
    plain = [corpus_event(line) for line in LINES[:3]]
    picked = corpus_event(LINES[3], community=CommunityPick(date="2026-05-05", upvotes=12))
    budget = corpus_event(LINES[4])
    await store.hold_many([(e, paper_digest(e.paper), NO_MODEL_CONFIGURED, summary_priority(e.paper)) for e in plain])
    await store.hold_many([(picked, paper_digest(picked.paper), NO_MODEL_CONFIGURED, summary_priority(picked.paper))])
    await store.hold_many([(budget, paper_digest(budget.paper), "daily token budget spent", READERS)])
    # a paper held before ranks existed: no `priority`
    await scratch_db[SUMMARY_PENDING.name].update_one({"_id": plain[0].paper.id}, {"$unset": {"priority": ""}})
    written = {"model": "qwen2.5", "prompt_version": "v1"}
    for key, status, at in [
        ("a", "ok", NOW - timedelta(hours=2)),
        ("b", "ok", NOW - timedelta(hours=30)),  # before the window
        ("c", "failed", NOW - timedelta(hours=1)),
    ]:
        await store.save(key, "digest-" + key, f"arxiv:{key}", Summary(status=status, generated_at=at, **written))

    progress = await summary_progress(CatalogueRecords.of(scratch_db), NOW)

    assert progress.waiting == 5
    assert [(r.priority, r.papers) for r in progress.by_priority] == [("readers", 1), ("community", 1), ("newest", 3)]
    assert [(r.reason, r.papers) for r in progress.by_reason] == [
        (NO_MODEL_CONFIGURED, 4),
        ("daily token budget spent", 1),
    ]
    assert progress.no_model
    assert (progress.written, progress.failed) == (1, 1)

    for lang, first_rank, no_model in [("zh", "读者关注", "make llm"), ("en", "Readers' papers", "make llm")]:
        section = render("sources.html", lang, "/sources", sources=[], summaries=progress).get_element_by_id(
            "summary-progress"
        )
        assert [text(dt) for dt in section.iter("dt")][1].startswith(first_rank)
        assert text(section.find_class("summary-rank-newest")[0]) == ("3 篇论文" if lang == "zh" else "3 papers")
        assert no_model in text(section.find_class("summary-no-model")[0])


async def test_an_empty_backlog_says_nothing_waits_and_no_model_note(scratch_db: AsyncDatabase) -> None:
    progress = await summary_progress(CatalogueRecords.of(scratch_db), NOW)
    assert progress.waiting == 0 and not progress.no_model
    assert [r.papers for r in progress.by_priority] == [0, 0, 0]
    section = render("sources.html", "zh", "/sources", sources=[], summaries=progress).get_element_by_id(
        "summary-progress"
    )
    assert not section.find_class("summary-no-model")


async def test_a_waiting_papers_place_is_its_place_in_the_sweeps_order(scratch_db: AsyncDatabase) -> None:
    """Readers' papers first, then the community's picks, then the rest, the newest first within a rank; no place
    while nothing is being written (no model) or once the paper no longer waits."""
    store = SummaryStore(scratch_db)
    await store.ensure_indexes()
    older, newer = (
        corpus_event(line, published_at=NOW - timedelta(days=days)) for line, days in ((LINES[0], 3), (LINES[1], 1))
    )
    asked = corpus_event(LINES[2], published_at=NOW - timedelta(days=9))
    picked = corpus_event(LINES[3], community=CommunityPick(date="2026-05-05", upvotes=3))
    idle = corpus_event(LINES[4])
    reason = "endpoint unavailable"
    await store.hold_many(
        [(e, paper_digest(e.paper), reason, summary_priority(e.paper)) for e in (older, newer, picked)]
    )
    await store.hold_many([(asked, paper_digest(asked.paper), reason, READERS)])
    await store.hold_many([(idle, paper_digest(idle.paper), NO_MODEL_CONFIGURED, summary_priority(idle.paper))])
    backlog = CatalogueRecords.of(scratch_db).summary_backlog

    # the sweep's own order (the summarizer's query): the idle paper is in it too, taken once a model is configured
    order = [event.paper.id for event, _ in await store.waiting(10)]
    assert order[:3] == [asked.paper.id, picked.paper.id, newer.paper.id] and order.index(older.paper.id) > 2
    for event in (asked, picked, newer, older):
        assert await backlog.place_of(event.paper.id) == order.index(event.paper.id) + 1
    assert await backlog.place_of(idle.paper.id) is None  # nothing is written while it waits for no model
    await store.release_many([asked.paper.id])
    assert await backlog.place_of(picked.paper.id) == 1 and await backlog.place_of(asked.paper.id) is None
