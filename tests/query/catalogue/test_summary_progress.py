"""The status page's AI-summary part over a real MongoDB-protocol server, from what the summarizer's own store writes:
the papers waiting counted by rank in the sweep's order (one held before ranks existed counts as the last), why they
wait, the last day's summaries written and failed; then the page and the API showing it, in both languages. Papers
are the corpus's own (`tests/fake_openai.py`)."""

from datetime import UTC, datetime, timedelta

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.collections import SUMMARY_PENDING
from papertrail.text import paper_digest
from schemas.paper import CommunityPick
from schemas.summary import NO_MODEL_CONFIGURED, Summary
from services.query.catalogue.reads.overview import summary_progress
from services.query.catalogue.repositories import CatalogueRecords
from services.summarizer.policy import READERS, summary_priority
from services.summarizer.store import SummaryStore
from tests.fake_openai import corpus_event, corpus_lines
from tests.query.test_page_details import render, text

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
