"""Citation counts over the normalizer, summarizer and query services: papers of the corpus and a real ACL Anthology
paper, then a Semantic Scholar record for three of them (the recorded paper object, its `citationCount` set by this
test to order them; tests/fixtures/harvester/semantic_scholar). The API's hits carry each count with its source and
date, `sort=cited` and `sort=hot` order by them (papers not counted last), `min_citations` filters, and cards and the
paper page show the count with where and when it was counted."""

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from lxml import html

from schemas import topics
from schemas.paper import Citations
from tests.support.kafka import publish_raw
from tests.support.paths import FIXTURES
from tests.support.pipelines import indexed_records
from tests.support.servers import Servers
from tests.support.sources import HARVESTED_AT, acl_records, corpus_records, raw_record, with_anthology_doi
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
TURING = json.loads((FIXTURES / "harvester/semantic_scholar/batch_turing.json").read_text())[0]
ACL = "acl:2024.acl-long.1"
COUNTS = {ACL: 300, "arxiv:2605.00434": 100, "arxiv:2605.00411": 20}
UNCOUNTED = "arxiv:2604.27073"
MONTH = timedelta(days=365.25 / 12)


def _asked(paper_id: str) -> str:
    kind, _, value = paper_id.partition(":")
    return f"{kind.upper()}:{value}"


@pytest.fixture(scope="module")
def query_url(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    wanted = {p.removeprefix("arxiv:") for p in [*COUNTS, UNCOUNTED]}
    records = [r for r in corpus_records() if r.record_id in wanted]
    records += [with_anthology_doi(r) for r in acl_records() if r.record_id == ACL.removeprefix("acl:")]
    with indexed_records(servers, records, tmp_path_factory.mktemp("citations")) as url:
        counted = [
            raw_record("semantic_scholar", _asked(p), "s2_paper_json", json.dumps(TURING | {"citationCount": n}))
            for p, n in COUNTS.items()
        ]
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), counted))
        wait_until(
            lambda: _get(url, "/api/papers", min_citations=0)["total"] == len(COUNTS),
            timeout=60,
            what="the counts indexed",
        )
        yield url


def _get(url: str, path: str, **params: Any) -> Any:
    response = httpx.get(url + path, params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def _hits(url: str, **params: Any) -> list[dict[str, Any]]:
    return list(_get(url, "/api/papers", size=100, **params)["hits"])


def test_the_hits_carry_each_count_with_its_source_and_date(query_url: str) -> None:
    hits = {hit["paper_id"]: hit for hit in _hits(query_url)}
    for paper_id, count in COUNTS.items():
        citations = Citations.model_validate(hits[paper_id]["citations"])
        assert (citations.count, citations.source, citations.as_of) == (count, "semantic_scholar", HARVESTED_AT)
        assert hits[paper_id]["citation_count"] == count
    assert hits[UNCOUNTED]["citations"] is None and hits[UNCOUNTED]["citations_per_month"] is None
    detail = _get(query_url, f"/api/papers/{ACL}")
    assert detail["paper"]["citations"]["count"] == COUNTS[ACL]
    assert [h["changed_fields"] for h in detail["history"]][-1] == ["citations"]


def test_sort_cited_and_hot_order_by_the_count_and_by_citations_a_month(query_url: str) -> None:
    before = datetime.now(UTC)
    cited = _hits(query_url, sort="cited")
    assert [h["paper_id"] for h in cited] == [*sorted(COUNTS, key=COUNTS.__getitem__, reverse=True), UNCOUNTED]
    hot = _hits(query_url, sort="hot")
    assert hot[-1]["paper_id"] == UNCOUNTED
    rates = [h["citations_per_month"] for h in hot[:-1]]
    assert rates == sorted(rates, reverse=True)
    for hit in hot[:-1]:  # each the count over the months since first publication, as of its indexing
        months = (before - datetime.fromtimestamp(hit["published_ts"], UTC)) / MONTH
        assert hit["citations_per_month"] == pytest.approx(hit["citation_count"] / months, rel=0.01)


def test_min_citations_keeps_the_papers_cited_that_often(query_url: str) -> None:
    assert {h["paper_id"] for h in _hits(query_url, min_citations=100)} == {ACL, "arxiv:2605.00434"}
    assert _get(query_url, "/api/papers", min_citations=301)["total"] == 0
    refused = httpx.get(f"{query_url}/api/papers", params={"min_citations": "-1"}, timeout=10)
    assert refused.status_code == 422 and "min_citations" in refused.text


def _citation_line(element: Any) -> str:
    return " ".join(element.find_class("citations")[0].text_content().split())


def test_a_card_and_the_paper_page_show_the_count_with_its_source_and_day(query_url: str) -> None:
    response = httpx.get(query_url + "/", params={"sort": "hot", "size": 100}, timeout=10)
    assert response.status_code == 200
    page = html.fromstring(response.text)
    cards = {c.get("data-paper-id"): c for c in page.find_class("card")}
    day = (HARVESTED_AT + timedelta(hours=8)).strftime("%Y-%m-%d")  # the display zone's day (Beijing)
    line = _citation_line(cards[ACL])
    assert line.startswith("被引 300 · 月均 ") and line.endswith(f"(Semantic Scholar，{day})")
    assert cards[UNCOUNTED].find_class("citations") == []
    assert "按月均被引排序" in page.find_class("found")[0].text_content()
    paper = html.fromstring(httpx.get(f"{query_url}/papers/{ACL}", timeout=10).text)
    assert _citation_line(paper).startswith("被引 300")
