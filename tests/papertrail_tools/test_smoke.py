"""`papertrail smoke`'s verdicts and waiting, without servers: which checks pass, and how a failure names what was
missing. (tests/integration/test_smoke.py runs the command against a real pipeline.)"""

import html
import json

import pytest
from aiokafka import TopicPartition

from papertrail.runtime.dlq import DeadLetter
from papertrail_tools.smoke import (
    FailedTask,
    Page,
    Verdict,
    caught_up,
    dead_letters_verdict,
    failed_tasks_verdict,
    guide_verdict,
    page_verdict,
    plain_paper,
    readiness,
    records_behind,
    report,
    search_verdict,
    searchable,
    wait_for,
)
from tests.support.paths import FIXTURES

TITLE = "Reproducing Kernel Banach Spaces with the l1 Norm"  # tests/fixtures/sources/arxiv_oai (a real record)


def test_every_service_ready_passes_and_one_not_ready_is_named_with_its_answer() -> None:
    assert readiness({"harvester": None, "query": None}, 3.2).ok
    verdict = readiness({"harvester": None, "summarizer": 'HTTP 503 {"mongodb": false}', "query": "ConnectError"}, 120)
    assert not verdict.ok
    assert verdict.detail == (
        '2 of 3 services not ready after 120 s: summarizer: HTTP 503 {"mongodb": false}; query: ConnectError'
    )


def test_searchable_says_how_many_of_how_many_after_how_long() -> None:
    whence = "the papers the normalizer stored in papertrail.papers"
    verdict = searchable(812, 1271, 600.4, whence)
    assert not verdict.ok
    assert verdict.detail == f"812 of 1271 papers searchable after 600 s ({whence})"
    assert searchable(1271, 1271, 12, whence).ok
    assert searchable(1300, 1271, 12, whence).detail.startswith("1271 of 1271 papers")  # newer ones arrived too


def test_no_papers_at_all_is_a_failure_not_a_pass() -> None:
    verdict = searchable(0, 0, 1, "as --expect-papers says")
    assert not verdict.ok and "no papers to search" in verdict.detail


def test_records_behind_counts_what_the_group_has_not_committed_of_the_ends_read_at_the_start() -> None:
    p0, p1, p2 = (TopicPartition("harvest.raw.v1", p) for p in range(3))
    ends = {p0: 10, p1: 5, p2: 0}
    assert records_behind(ends, {p0: 10, p1: 5}) == 0
    assert records_behind(ends, {p0: 7, p1: 12}) == 3  # committed past the start's end: nothing behind there
    assert records_behind(ends, {}) == 15  # never committed: all of it
    assert caught_up(0, 2).ok
    assert "still 3 records behind harvest.raw.v1 after 40 s" in caught_up(3, 40).detail


def test_the_paper_looked_for_has_a_title_that_pages_show_as_stored() -> None:
    hits = [
        {"paper_id": "arxiv:1", "title": "$\\ell_1$ regularisation"},
        {"paper_id": "arxiv:2", "title": "Mixture-of--Experts"},
        {"paper_id": "arxiv:3", "title": ""},
        {"paper_id": "arxiv:4", "title": TITLE},
    ]
    assert plain_paper(hits) == hits[3]
    assert plain_paper(hits[:3]) is None


def test_a_page_passes_only_with_200_its_content_type_and_the_title_escaped_or_not() -> None:
    title = 'Q&A: Don\'t "Stop" <Now>'
    html_body = "<h1>Q&amp;A: Don&#39;t &quot;Stop&quot;\n   &lt;Now&gt;</h1>"
    assert page_verdict("paper page", Page("u", 200, html_body, "text/html; charset=utf-8"), title).ok
    atom = Page("f", 200, '<title>Q&amp;A: Don\'t "Stop" &lt;Now&gt;</title>', "application/atom+xml; charset=utf-8")
    assert page_verdict("topic feed", atom, title, content_type="application/atom+xml").ok

    missing = page_verdict("home page", Page("http://q/", 200, "<h1>Other</h1>", "text/html"), TITLE)
    assert not missing.ok and missing.detail == f"http://q/ does not show the paper {TITLE!r}"
    error = page_verdict("topic page", Page("http://q/topics/x", 500, "Internal Server Error", "text/plain"), TITLE)
    assert not error.ok and error.detail == "http://q/topics/x answered 500: Internal Server Error"
    wrong_type = page_verdict("topic feed", Page("f", 200, TITLE, "text/html"), TITLE, content_type="application/atom")
    assert not wrong_type.ok and "text/html, not application/atom" in wrong_type.detail
    assert not page_verdict("paper page", None, TITLE).ok


def test_a_papers_ai_guide_is_shown_and_no_page_shows_readers_the_operators_setup() -> None:
    line = json.loads((FIXTURES / "summarizer" / "corpus-2026-05-05.jsonl").read_text().splitlines()[0])
    guide = line["AI"]["tldr"]  # deepseek-chat's real TL;DR, as a community summary brings it
    url = f"http://127.0.0.1:8000/papers/arxiv:{line['id']}"
    shown = Page(url, 200, f"<dd>{html.escape(guide)}</dd>", "text/html")
    assert guide_verdict(shown, {"tldr_zh": guide}) == Verdict("AI 导读", True, f"{url} shows its AI 导读")
    assert not guide_verdict(Page(url, 200, "<p>暂无 AI 导读</p>", "text/html"), {"tldr_zh": guide}).ok
    none_yet = guide_verdict(Page(url, 200, "<p>暂无 AI 导读</p>", "text/html"), {"tldr_zh": None})
    assert none_yet.ok and none_yet.detail.endswith("that it has none yet")
    setup = guide_verdict(Page(url, 200, "<p>请运维设置 OPENAI_BASE_URL;make llm …</p>", "text/html"), {})
    assert setup == Verdict(
        "AI 导读", False, f"{url} shows the operator's setup (OPENAI_BASE_URL, make llm) to readers"
    )
    assert not guide_verdict(Page(url, 503, "down", "text/plain"), {}).ok and not guide_verdict(None, None).ok


def test_search_passes_when_the_paper_is_listed() -> None:
    body = '{"total": 2, "hits": [{"paper_id": "arxiv:2"}, {"paper_id": "arxiv:1"}]}'
    assert search_verdict(Page("s", 200, body), "arxiv:1").ok
    verdict = search_verdict(Page("s", 200, body), "arxiv:9")
    assert not verdict.ok and verdict.detail == "s does not list arxiv:9 (it lists 2 others)"
    assert not search_verdict(Page("s", 503, '{"title": "no vectors"}'), "arxiv:1").ok


def _letter(offset: int, origin: str = "harvest.raw.v1") -> DeadLetter:
    headers = {
        "x-dlq-topic": origin,
        "x-dlq-reason": "ValueError: no <arXiv> metadata in the record",
        "x-dlq-service": "normalizer",
    }
    return DeadLetter(f"{origin}.dlq", 0, offset, b"arxiv:9999.99999", b"{}", headers)


def test_a_parked_dead_letter_fails_naming_where_it_came_from_and_why() -> None:
    assert dead_letters_verdict([]).ok
    verdict = dead_letters_verdict([_letter(0)])
    assert not verdict.ok
    assert verdict.detail.startswith("1 dead letter(s) parked:\nharvest.raw.v1.dlq[0]@0  from harvest.raw.v1")
    assert "key=arxiv:9999.99999" in verdict.detail and "no <arXiv> metadata" in verdict.detail
    many = dead_letters_verdict([_letter(n, "papers.enriched.v1") for n in range(7)] + [_letter(0)])
    assert many.detail.splitlines()[1].startswith("harvest.raw.v1.dlq[0]@0")  # by topic, whatever order they came in
    assert many.detail.count("reason=") == 3 and "… and 5 more (`papertrail dlq list`)" in many.detail


def test_failed_search_tasks_are_counted_and_the_latest_errors_shown() -> None:
    assert failed_tasks_verdict("papers", 0, []).ok
    error = "Index `papers`: While embedding documents for embedder `paper`: no vectors provided for document `0a80`"
    verdict = failed_tasks_verdict("papers", 1043, [FailedTask(88, "documentAdditionOrUpdate", error)])
    assert not verdict.ok
    assert (
        verdict.detail
        == f"1043 failed Meilisearch task(s) on index papers, latest:\n    task 88 (documentAdditionOrUpdate): {error}"
    )


def test_the_report_names_the_failed_checks_and_exits_1() -> None:
    passed, failed = Verdict("ready", True, "5 services ready"), Verdict("searchable", False, "0 of 9 papers")
    text, code = report([passed, failed])
    assert code == 1
    assert text.splitlines() == [
        "ok   ready: 5 services ready",
        "FAIL searchable: 0 of 9 papers",
        "smoke: 1 of 2 checks failed: searchable",
    ]
    assert report([passed]) == ("ok   ready: 5 services ready\nsmoke: all 1 checks passed", 0)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


async def test_wait_for_stops_as_soon_as_the_condition_holds() -> None:
    clock = FakeClock()
    answers = iter([(False, 1), (False, 2), (True, 3)])

    async def probe() -> tuple[bool, int]:
        return next(answers)

    assert await wait_for(probe, 60, interval_s=2, clock=clock, pause=clock.pause) == (True, 3, 4.0)
    assert clock.pauses == [2, 2]


async def test_wait_for_gives_up_at_the_deadline_with_the_last_value_after_a_last_probe() -> None:
    clock = FakeClock()
    probes: list[float] = []

    async def probe() -> tuple[bool, int]:
        probes.append(clock.now)
        return False, len(probes)

    done, value, waited = await wait_for(probe, 5, interval_s=2, clock=clock, pause=clock.pause)
    assert (done, value, waited) == (False, 4, 5.0)
    assert probes == [0, 2, 4, 5]  # the last at the deadline itself


@pytest.mark.parametrize("seconds", [0, -1])
async def test_wait_for_probes_once_even_without_time(seconds: float) -> None:
    clock = FakeClock()

    async def probe() -> tuple[bool, str]:
        return False, "seen"

    assert await wait_for(probe, seconds, clock=clock, pause=clock.pause) == (False, "seen", 0.0)
