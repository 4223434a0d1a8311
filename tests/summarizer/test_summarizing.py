"""Summarizing against a local OpenAI-compatible server and a real MongoDB-protocol server: answers, cache,
faults (429 + Retry-After, 500, timeout, invalid JSON, schema, refusal, endpoint down), budget and the sweep."""

import asyncio
import json
from typing import Any

import pytest
from prometheus_client import REGISTRY
from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import PaperNormalized
from schemas.summary import Summary
from services.normalizer.parsers.daily_arxiv import community_summary
from services.summarizer.policy import enriched_event
from services.summarizer.prompt import PROMPT_VERSION
from services.summarizer.settings import SummarizerSettings
from tests.support.fake_openai import FakeOpenAI, corpus_event, corpus_lines
from tests.support.paths import FIXTURES
from tests.support.servers import free_port
from tests.support.summarizing import Harness

pytestmark = pytest.mark.integration

LINES = corpus_lines()
BY_ID = {line["id"]: line for line in LINES}
CADFIT, LLM_MEDICINE, GAME_THEORY = BY_ID["2605.01171"], BY_ID["2605.01011"], BY_ID["2605.00921"]
CHECKS_CORPUS = FIXTURES / "summarizer" / "checks-corpus.jsonl"


def settings_for(base_url: str | None, **overrides: Any) -> SummarizerSettings:
    values: dict[str, Any] = {
        "openai_base_url": base_url,
        "openai_model": "fake-deepseek" if base_url else None,
        "openai_api_key": "test-key",
        "openai_timeout_s": 1.0,
        "openai_attempts": 3,
        "openai_retry_initial_s": 0.05,
        "openai_retry_max_s": 2.0,
    }
    return SummarizerSettings(**(values | overrides))


async def harness(db: AsyncDatabase, base_url: str | None, **overrides: Any) -> Harness:
    h = Harness(db, settings_for(base_url, **overrides))
    await h.store.ensure_indexes()
    return h


async def test_a_new_paper_gets_the_corpus_summary_in_json_schema_mode(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1])
    summary = await h.handle(corpus_event(CADFIT))
    assert summary.status == "ok", summary.error
    assert summary.tldr_zh == CADFIT["AI"]["tldr"] and summary.method_zh == CADFIT["AI"]["method"]
    assert summary.title_zh and summary.tldr_en and summary.ai_related is True
    assert [(i.name, i.name_zh) for i in summary.institutions] == [
        ("Massachusetts Institute of Technology", "麻省理工学院")
    ]
    assert summary.model == "fake-deepseek" and summary.prompt_version == PROMPT_VERSION
    (request,) = openai_fake.requests
    assert request.body["response_format"]["type"] == "json_schema"
    assert request.body["model"] == "fake-deepseek"
    assert await h.store.tokens_used(summary.generated_at.strftime("%Y-%m-%d")) > 0  # type: ignore[union-attr]
    assert await h.store.backlog() == 0


async def test_json_mode_validates_the_answer_itself(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1], openai_output="json_object")
    summary = await h.handle(corpus_event(LLM_MEDICINE))
    assert summary.status == "ok" and summary.conclusion_zh == LLM_MEDICINE["AI"]["conclusion"]
    assert len(summary.keywords) == 8  # the fake answers 10 in JSON mode; validation keeps 8
    assert openai_fake.requests[0].body["response_format"] == {"type": "json_object"}


async def test_replaying_the_same_papers_makes_zero_calls(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    first = await harness(db, fake[1])
    written = [await first.handle(corpus_event(line)) for line in LINES]
    assert [s.status for s in written] == ["ok"] * len(LINES)
    assert len(openai_fake.requests) == len(LINES)

    replay = await harness(db, fake[1])  # a fresh process over the same database
    replayed = [await replay.handle(corpus_event(line)) for line in LINES]
    assert replayed == written
    assert len(openai_fake.requests) == len(LINES)  # not one more call


async def test_other_kinds_keep_their_summary_and_text_revisions_get_a_new_one(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1])
    original = await h.handle(corpus_event(GAME_THEORY))
    kept = [
        await h.handle(corpus_event(GAME_THEORY, "revised", comments="v2: typos fixed")),
        await h.handle(corpus_event(GAME_THEORY, "published", venue="EC 2026", status="published")),
        # a metadata correction of the title keeps the summary it has (the text is re-summarized on revision)
        await h.handle(corpus_event(GAME_THEORY, "updated", title=GAME_THEORY["title"] + ".")),
    ]
    assert kept == [original] * 3 and len(openai_fake.requests) == 1
    # a revision with another abstract is summarized again (the fake knows it by its title)
    revised = await h.handle(corpus_event(GAME_THEORY, "revised", abstract=GAME_THEORY["summary"] + " Erratum."))
    assert revised.status == "ok" and len(openai_fake.requests) == 2


async def test_a_summary_records_the_paper_version_it_was_written_from(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1])
    first = await h.handle(corpus_event(GAME_THEORY, current_version="v1"))
    assert (first.model, first.prompt_version, first.paper_version) == ("fake-deepseek", PROMPT_VERSION, "v1")
    assert first.generated_at is not None
    # v2 changed the comments only: the same title and abstract, so the summary describes v2 as well
    same_text = await h.handle(corpus_event(GAME_THEORY, "revised", comments="v2: typos", current_version="v2"))
    assert same_text.paper_version == "v2" and same_text.generated_at == first.generated_at
    # a venue's record retitled it without a new summary: the one kept says the version it was written from
    retitled = corpus_event(GAME_THEORY, "published", title=GAME_THEORY["title"] + " (EC)", current_version="v3")
    kept = await h.handle(retitled)
    assert kept.paper_version == "v1" and len(openai_fake.requests) == 1
    revised = corpus_event(GAME_THEORY, "revised", abstract=GAME_THEORY["summary"] + " Erratum.", current_version="v4")
    assert (await h.handle(revised)).paper_version == "v4"


async def test_429_is_retried_after_the_retry_after_it_names(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1])
    openai_fake.fail_next("429")
    summary = await h.handle(corpus_event(LLM_MEDICINE))
    assert summary.status == "ok"
    refused, answered = openai_fake.requests
    assert (refused.status, answered.status) == (429, 200)
    # backoff starts at 0.05s: only Retry-After (1s) explains a gap this long
    assert answered.at - refused.at >= 0.95


@pytest.mark.parametrize("fault", ["500", "timeout"])
async def test_server_errors_and_timeouts_are_retried(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI, fault: Any
) -> None:
    h = await harness(db, fake[1])
    openai_fake.fail_next(fault)
    summary = await h.handle(corpus_event(CADFIT))
    assert summary.status == "ok", summary.error
    assert len(openai_fake.requests) == 2


@pytest.mark.parametrize("fault", ["invalid_json", "schema"])
async def test_a_bad_answer_gets_one_repair_attempt(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI, fault: Any
) -> None:
    h = await harness(db, fake[1])
    openai_fake.fail_next(fault)
    summary = await h.handle(corpus_event(CADFIT))
    assert summary.status == "ok"
    _, repair = openai_fake.requests
    assert [m["role"] for m in repair.body["messages"]] == ["system", "user", "assistant", "user"]
    assert "not valid" in repair.body["messages"][3]["content"]


@pytest.mark.parametrize(
    ("faults", "calls", "words"),
    [
        (("invalid_json", "invalid_json"), 2, "invalid_json"),
        (("schema", "invalid_json"), 2, "invalid_json"),
        (("refusal",), 1, "refused"),
    ],
)
async def test_a_second_bad_answer_or_a_refusal_fails_the_summary_for_good(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI, faults: Any, calls: int, words: str
) -> None:
    h = await harness(db, fake[1])
    openai_fake.fail_next(*faults)
    event = corpus_event(CADFIT)
    summary = await h.handle(event)
    assert summary.status == "failed" and words in (summary.error or "")
    assert len(openai_fake.requests) == calls
    assert await h.store.backlog() == 0  # failed is final: nothing waits, the paper flowed on
    again = await h.handle(event)  # a replay pays nothing for an answer the model cannot give
    assert again == summary and len(openai_fake.requests) == calls


def check_failures(check: str) -> float:
    return REGISTRY.get_sample_value("papertrail_summarizer_check_failures_total", {"check": check}) or 0.0


@pytest.mark.parametrize(("fault", "check"), [("invented_number", "numbers"), ("english_tldr", "cjk_share")])
async def test_an_answer_failing_a_check_gets_one_repair_request_naming_the_check(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI, fault: Any, check: str
) -> None:
    h = await harness(db, fake[1])
    before = check_failures(check)
    openai_fake.fail_next(fault)
    summary = await h.handle(corpus_event(CADFIT))
    assert summary.status == "ok", summary.error
    assert summary.tldr_zh == CADFIT["AI"]["tldr"] and "97.3" not in (summary.result_zh or "")
    first, repair = openai_fake.requests
    assert repair.body["messages"][:2] == first.body["messages"]
    assert [m["role"] for m in repair.body["messages"]] == ["system", "user", "assistant", "user"]
    told = repair.body["messages"][3]["content"]
    assert f"{check}:" in told and ("97.3" in told if check == "numbers" else "tldr_zh" in told)
    assert check_failures(check) == before + 1


async def test_an_answer_failing_checks_twice_is_failed_with_the_reason_and_cached(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1])
    before = check_failures("numbers"), check_failures("cjk_share")
    openai_fake.fail_next("invented_number", "english_tldr")
    event = corpus_event(CADFIT)
    summary = await h.handle(event)
    assert summary.status == "failed"
    assert summary.error and summary.error.startswith("checks after one repair attempt: cjk_share:")
    assert summary.title_zh is None and summary.model == "fake-deepseek"
    assert len(openai_fake.requests) == 2  # one repair, no more
    assert (check_failures("numbers"), check_failures("cjk_share")) == (before[0] + 1, before[1] + 1)
    again = await h.handle(event)  # a replay pays nothing for an answer the model cannot give
    assert again == summary and len(openai_fake.requests) == 2


async def test_an_endpoint_down_leaves_papers_pending_until_the_sweep_summarizes_them(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1], openai_attempts=2)
    openai_fake.down = True
    events = [corpus_event(line) for line in LINES[:3]]
    summaries = [await h.handle(e) for e in events]
    assert [s.status for s in summaries] == ["pending"] * 3
    assert all("unavailable" in (s.error or "") for s in summaries)
    assert await h.store.backlog() == 3
    assert await h.summarizer.sweep(h.emit, batch=10) == 0  # still down: nothing emitted, nothing lost
    assert h.emitted == [] and await h.store.backlog() == 3

    openai_fake.down = False
    assert await h.summarizer.sweep(h.emit, batch=10) == 3
    assert sorted((e.paper.id, s.status) for e, s in h.emitted) == sorted((e.paper.id, "ok") for e in events)
    assert await h.store.backlog() == 0


async def test_an_endpoint_nobody_listens_on_is_pending_too(db: AsyncDatabase) -> None:
    h = await harness(db, f"http://127.0.0.1:{free_port()}/v1", openai_attempts=2)
    summary = await h.handle(corpus_event(CADFIT))
    assert summary.status == "pending" and "connection" in (summary.error or "")
    assert await h.store.backlog() == 1


async def test_without_a_model_papers_wait_and_a_key_added_later_summarizes_them(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    unconfigured = await harness(db, None)
    summary = await unconfigured.handle(corpus_event(GAME_THEORY))
    assert (summary.status, summary.error) == ("pending", "no model configured")
    assert await unconfigured.summarizer.sweep(unconfigured.emit, batch=10) == 0 and openai_fake.requests == []

    configured = await harness(db, fake[1])  # the service restarted with OPENAI_* set
    assert await configured.summarizer.sweep(configured.emit, batch=10) == 1
    ((event, written),) = configured.emitted
    assert event.paper.id == f"arxiv:{GAME_THEORY['id']}" and written.tldr_zh == GAME_THEORY["AI"]["tldr"]
    assert written.ai_related is False


async def test_a_spent_daily_budget_makes_papers_wait(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1], daily_token_budget=100)  # one call spends more than that
    assert (await h.handle(corpus_event(CADFIT))).status == "ok"
    second = await h.handle(corpus_event(LLM_MEDICINE))
    assert (second.status, second.error) == ("pending", "daily token budget spent")
    assert len(openai_fake.requests) == 1 and await h.store.backlog() == 1
    assert await h.summarizer.sweep(h.emit, batch=10) == 0  # the sweep respects the budget too
    assert len(openai_fake.requests) == 1
    # the cached paper is still served while the budget is spent
    assert (await h.handle(corpus_event(CADFIT))).status == "ok" and len(openai_fake.requests) == 1


async def test_requests_in_flight_never_exceed_the_concurrency_limit(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1], summary_concurrency=2, openai_timeout_s=5)
    openai_fake.delay_s = 0.3
    summaries = await asyncio.gather(*(h.handle(corpus_event(line)) for line in LINES))
    assert [s.status for s in summaries] == ["ok"] * len(LINES)
    assert openai_fake.max_in_flight == 2


async def test_a_newer_event_supersedes_the_waiting_one(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1], openai_attempts=1)
    openai_fake.down = True
    await h.handle(corpus_event(GAME_THEORY))
    openai_fake.down = False
    newer = corpus_event(GAME_THEORY, "revised", abstract=GAME_THEORY["summary"] + " v2.")
    assert (await h.handle(newer)).status == "ok"
    assert await h.store.backlog() == 0  # the older content no longer waits: its summary would be stale
    assert await h.summarizer.sweep(h.emit, batch=10) == 0 and h.emitted == []


async def test_the_sweep_works_on_several_papers_at_once_within_the_limit(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    unconfigured = await harness(db, None)
    for line in LINES:
        await unconfigured.handle(corpus_event(line))
    configured = await harness(db, fake[1], summary_concurrency=3, openai_timeout_s=5)
    openai_fake.delay_s = 0.3
    assert await configured.summarizer.sweep(configured.emit, batch=100) == len(LINES)
    assert openai_fake.max_in_flight == 3
    assert sorted(e.paper.id for e, _ in configured.emitted) == sorted(f"arxiv:{line['id']}" for line in LINES)
    assert await configured.store.backlog() == 0


async def test_two_replicas_sweeps_summarize_each_waiting_paper_once(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    """Two summarizer replicas sweep one `summary_pending`: each claims its own batches, so no paper costs two
    requests (the cache would spare the second only once the first one's answer is stored)."""
    unconfigured = await harness(db, None)
    for line in LINES:
        await unconfigured.handle(corpus_event(line))
    first = await harness(db, fake[1], summary_concurrency=2, openai_timeout_s=5)
    second = await harness(db, fake[1], summary_concurrency=2, openai_timeout_s=5)
    openai_fake.delay_s = 0.2  # both sweeps have requests in flight at once

    async def drain(h: Harness) -> None:
        while await h.summarizer.sweep(h.emit, batch=2):
            pass

    await asyncio.gather(drain(first), drain(second))

    assert len(openai_fake.requests) == len(LINES)
    emitted = [e.paper.id for e, _ in first.emitted + second.emitted]
    assert sorted(emitted) == sorted(f"arxiv:{line['id']}" for line in LINES)
    assert await first.store.backlog() == 0


async def test_in_one_batch_the_latest_summary_of_a_paper_decides_whether_it_waits(db: AsyncDatabase) -> None:
    h = await harness(db, None)
    older = corpus_event(CADFIT)
    newer = older.model_copy(update={"paper": older.paper.model_copy(update={"title": older.paper.title + " (v2)"})})
    final, pending = Summary(status="failed", error="refused"), Summary(status="pending", error="endpoint down")

    batch = [(older, final), (newer, pending)]  # the newer content's summary is still to be written
    await h.summarizer.hold_pending(batch)
    await h.summarizer.settle(batch)
    assert await h.store.backlog() == 1
    ((waiting, _),) = await h.store.waiting(10)
    assert waiting.paper.title == newer.paper.title

    batch = [(older, pending), (newer, final)]  # the newer content has its final summary: nothing waits
    await h.summarizer.hold_pending(batch)
    await h.summarizer.settle(batch)
    assert await h.store.backlog() == 0


def with_community_summary(line: dict[str, Any]) -> PaperNormalized:
    """The paper's event once daily-arXiv-ai-enhanced's line of it was merged: its `AI` summary on the paper."""
    event = corpus_event(line)
    summary = community_summary(line["AI"], "2026-05-05")
    return event.model_copy(update={"paper": event.paper.model_copy(update={"community_summary": summary})})


async def test_without_a_model_a_community_summary_is_shown_and_ours_replaces_it(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    unconfigured = await harness(db, None)
    event = with_community_summary(CADFIT)
    shown = await unconfigured.handle(event)
    assert (shown.status, shown.publisher, shown.model, shown.published_on) == (
        "ok", "daily-arXiv-ai-enhanced", "deepseek-chat", "2026-05-05"
    )  # fmt: skip
    assert shown.tldr_zh == CADFIT["AI"]["tldr"] and shown.error == "no model configured"
    assert await unconfigured.store.backlog() == 1  # it still waits for ours
    assert await unconfigured.store.latest_for_paper(event.paper.id) is None  # never cached as ours

    configured = await harness(db, fake[1])  # the service restarted with OPENAI_* set
    assert await configured.summarizer.sweep(configured.emit, batch=10) == 1
    ((emitted, ours),) = configured.emitted
    assert emitted.paper.id == event.paper.id and (ours.status, ours.model, ours.publisher) == (
        "ok",
        "fake-deepseek",
        None,
    )
    assert await configured.store.backlog() == 0
    # an event that waited for its vector with the community summary is emitted again with ours
    waited = enriched_event(event, shown)
    assert await configured.summarizer.current_summary(waited) == ours


async def test_a_community_summary_failing_a_check_is_not_shown(db: AsyncDatabase) -> None:
    h = await harness(db, None)
    checks = [json.loads(line) for line in CHECKS_CORPUS.read_text(encoding="utf-8").splitlines()]
    by_id = {line["id"]: line for line in checks}
    # deepseek-chat's real summaries: one names "GPT-4系列" the abstract does not, one is an English placeholder
    for paper_id, check in (("2604.27043", "numbers"), ("2605.07170", "cjk_share")):
        before = REGISTRY.get_sample_value("papertrail_summarizer_community_summaries_total", {"outcome": check}) or 0
        summary = await h.handle(with_community_summary(by_id[paper_id]))
        assert (summary.status, summary.publisher, summary.error) == ("pending", None, "no model configured")
        after = REGISTRY.get_sample_value("papertrail_summarizer_community_summaries_total", {"outcome": check})
        assert after == before + 1


async def test_an_endpoint_down_shows_the_community_summary_and_the_paper_keeps_waiting(
    db: AsyncDatabase, fake: tuple[FakeOpenAI, str], openai_fake: FakeOpenAI
) -> None:
    h = await harness(db, fake[1], openai_attempts=1)
    openai_fake.down = True
    shown = await h.handle(with_community_summary(LLM_MEDICINE))
    assert shown.publisher == "daily-arXiv-ai-enhanced" and "unavailable" in (shown.error or "")
    assert await h.summarizer.sweep(h.emit, batch=10) == 0 and h.emitted == []  # shown already: not emitted again
    assert await h.store.backlog() == 1
    openai_fake.down = False
    assert await h.summarizer.sweep(h.emit, batch=10) == 1
    assert [s.publisher for _, s in h.emitted] == [None] and await h.store.backlog() == 0
