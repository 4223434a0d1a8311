"""The citation schedule and the batch answer's reading: pure, over the genuine batch answer of Semantic Scholar."""

import datetime as dt
import json

import pytest

from services.harvester.citation_schedule import DAILY, MONTHLY, WEEKLY, asked_id, refresh_after
from services.harvester.sources.s2_batch import MalformedBatch, batch_answers
from tests.support.paths import FIXTURES

NOW = dt.datetime(2026, 12, 7, tzinfo=dt.UTC)
GENUINE_BATCH = FIXTURES / "sources/semantic_scholar/cassette_bodies/test_get_papers_0.json"


def test_new_and_followed_papers_are_asked_daily_older_ones_less_often() -> None:
    days = dt.timedelta(days=1)
    assert refresh_after(NOW - 3 * days, False, NOW) == DAILY
    assert refresh_after(NOW - 900 * days, True, NOW) == DAILY
    assert refresh_after(NOW - 100 * days, False, NOW) == WEEKLY
    assert refresh_after(NOW - 900 * days, False, NOW) == MONTHLY
    assert refresh_after(None, True, NOW) == MONTHLY
    assert refresh_after(NOW - 3 * days, True, NOW, found=False) == MONTHLY


def test_a_paper_is_asked_by_its_strongest_id() -> None:
    assert asked_id("2401.12345", ["10.1/x"], "2024.acl-long.1") == "ARXIV:2401.12345"
    assert asked_id(None, ["10.1/x"], "2024.acl-long.1") == "ACL:2024.acl-long.1"
    assert asked_id(None, ["10.1/x", "10.2/y"], None) == "DOI:10.1/x"
    assert asked_id(None, [], None) is None


def test_a_genuine_batch_asked_without_counts_reads_as_papers_without_one() -> None:
    # the recorded answer was asked for `fields=authors`: three papers, none with a citationCount
    asked = ["CorpusId:470667", "10.2139/ssrn.2250500", "0f40b1f08821e22e859c6050916cec3667778613"]
    answers = batch_answers(GENUINE_BATCH.read_bytes(), asked)
    assert [a.asked for a in answers] == asked
    assert [a.outcome for a in answers] == ["no_count"] * 3


def test_an_answer_that_is_not_the_batch_asked_is_refused_with_its_reason() -> None:
    body = GENUINE_BATCH.read_bytes()
    with pytest.raises(MalformedBatch, match="3 papers answered for 2 ids asked"):
        batch_answers(body, ["a", "b"])
    with pytest.raises(MalformedBatch, match="not JSON"):
        batch_answers(body[:50], ["a", "b", "c"])
    with pytest.raises(MalformedBatch, match="a JSON dict"):
        batch_answers(json.dumps({"error": "Paper with id 0 not found"}).encode(), ["a"])
    assert batch_answers(b"[null]", ["a"])[0].outcome == "not_found"
