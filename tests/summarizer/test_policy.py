"""The summarizing policy: which events get a fresh summary, cache keys, decisions, budget, emitted events."""

from datetime import UTC, datetime

import pytest

from papertrail.domain.text import paper_digest
from schemas.summary import Summary
from services.summarizer.model import error_kind, retry_after_seconds
from services.summarizer.policy import (
    budget_day,
    budget_left,
    cache_key,
    decide,
    enriched_event,
    estimated_cost,
    new_paper_event,
    refined_paper,
    reused_summary,
    wants_summary,
)
from tests.support.fake_openai import corpus_event, corpus_lines

GAME_THEORY, LLM_MEDICINE = corpus_lines()[0], corpus_lines()[2]
OK = Summary(status="ok", tldr_zh="摘要", ai_related=True, ai_reason="LLM")


def test_new_papers_and_text_revisions_want_a_fresh_summary() -> None:
    assert wants_summary(corpus_event(GAME_THEORY, "new"))
    assert wants_summary(corpus_event(GAME_THEORY, "revised", abstract="A new abstract."))
    assert wants_summary(corpus_event(GAME_THEORY, "revised", title="A new title"))
    # a new arXiv version that changed only the comments keeps its summary, and so do other kinds
    assert not wants_summary(corpus_event(GAME_THEORY, "revised", comments="12 pages"))
    assert not wants_summary(corpus_event(GAME_THEORY, "published", venue="EC 2026", title="Other"))
    assert not wants_summary(corpus_event(GAME_THEORY, "updated", links={"doi": "https://doi.org/x"}))


def test_the_cache_key_is_content_model_and_prompt_version() -> None:
    paper = corpus_event(GAME_THEORY).paper
    same_text_other_id = paper.model_copy(update={"id": "acl:2026.x-1", "venue": "X"})
    assert paper_digest(paper) == paper_digest(same_text_other_id)
    assert paper_digest(paper) != paper_digest(paper.model_copy(update={"abstract": paper.abstract + " "}))
    digest = paper_digest(paper)
    keys = {cache_key(digest, m, v) for m in ("deepseek-chat", "gpt-4o-mini") for v in ("1", "2")}
    assert len(keys) == 4


@pytest.mark.parametrize(
    ("fresh", "cached", "previous", "configured", "budget", "expected"),
    [
        (True, OK, None, True, True, ("reuse", None)),
        (True, OK, None, True, False, ("reuse", None)),  # a cache hit costs nothing, budget or not
        (False, None, OK, True, True, ("reuse", None)),  # a metadata update keeps the summary it has
        (True, None, OK, True, True, ("call", None)),  # new text: the old summary is wrong
        (True, None, None, False, True, ("pending", "no model configured")),
        (False, None, None, False, True, ("pending", "no model configured")),
        (True, None, None, True, False, ("pending", "daily token budget spent")),
        (False, None, None, True, True, ("call", None)),  # never summarized at all: write one
    ],
)
def test_decide(
    fresh: bool,
    cached: Summary | None,
    previous: Summary | None,
    configured: bool,
    budget: bool,
    expected: tuple[str, str | None],
) -> None:
    decision = decide(fresh=fresh, cached=cached, previous=previous, model_configured=configured, budget_left=budget)
    assert (decision.action, decision.reason) == expected


def test_budget() -> None:
    assert budget_left(0, 0) and budget_left(10**12, 0)  # 0 = unlimited
    assert budget_left(999, 1000) and not budget_left(1000, 1000)
    assert budget_day(datetime(2026, 5, 5, 23, 59, tzinfo=UTC)) == "2026-05-05"
    assert estimated_cost(2000, 500, 0.5, 2.0) == pytest.approx(1.0 + 1.0)


def test_the_verdict_adds_ai_papers_and_never_removes_one() -> None:
    game = corpus_event(GAME_THEORY).paper
    llm = corpus_event(LLM_MEDICINE).paper
    assert not game.ai_related and llm.ai_related
    assert refined_paper(game, OK).ai_related is True
    assert refined_paper(llm, OK.model_copy(update={"ai_related": False})).ai_related is True
    assert refined_paper(game, Summary(status="pending")).ai_related is False


def test_events_emitted() -> None:
    new = corpus_event(GAME_THEORY, "new")
    enriched = enriched_event(new, OK)
    assert enriched.paper.ai_related and enriched.summary == OK and enriched.version == new.version
    public = new_paper_event(new, OK)
    assert public is not None and public.first_seen == new.paper.first_seen and public.paper.ai_related
    assert new_paper_event(corpus_event(GAME_THEORY, "revised", title="T"), OK) is None
    # the public topic leaves the summary's version out (the paper's current_version says it); the internal keeps it
    written = OK.model_copy(update={"paper_version": "v1"})
    public = new_paper_event(new, written)
    assert public is not None and "paper_version" not in public.model_dump(mode="json")["summary"]
    assert enriched_event(new, written).model_dump(mode="json")["summary"]["paper_version"] == "v1"


@pytest.mark.parametrize(
    ("stored", "same_text", "expected"),
    [
        ("v1", True, "v3"),  # the same title and abstract: it describes the current version too
        (None, True, "v3"),
        ("v1", False, "v1"),  # kept across a change of the text: still the version it was written from
        (None, False, None),  # written before versions were recorded
    ],
)
def test_a_reused_summary_names_the_version_it_describes(stored: str | None, same_text: bool, expected: str) -> None:
    paper = corpus_event(GAME_THEORY).paper.model_copy(update={"current_version": "v3"})
    summary = OK.model_copy(update={"paper_version": stored})
    assert reused_summary(summary, paper, same_text=same_text).paper_version == expected
    assert reused_summary(Summary(status="pending"), paper, same_text=True).paper_version is None


def test_retry_after_in_seconds_or_as_a_date() -> None:
    now = datetime(2026, 5, 5, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds("Tue, 05 May 2026 12:00:30 GMT", now) == 30.0
    assert retry_after_seconds("Tue, 05 May 2026 11:00:00 GMT", now) == 0.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None


def test_error_kinds() -> None:
    import httpx
    import openai

    request = httpx.Request("POST", "http://x/v1/chat/completions")

    def status(code: int) -> openai.APIStatusError:
        cls = {429: openai.RateLimitError, 500: openai.InternalServerError, 400: openai.BadRequestError}[code]
        return cls("x", response=httpx.Response(code, request=request), body=None)

    assert error_kind(status(429)) == "rate_limited"
    assert error_kind(status(500)) == "server_error"
    assert error_kind(status(400)) == "rejected"
    assert error_kind(openai.APITimeoutError(request)) == "timeout"
    assert error_kind(openai.APIConnectionError(request=request)) == "connection"
