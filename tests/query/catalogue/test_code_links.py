"""Code links over a real pipeline: a real OAI-PMH page (oai_dc, no code field) whose one abstract names its
GitHub repository; `has_code` filters the API, the browser and the search feed; cards and the paper page show
the link labelled in the reader's language."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from lxml import etree, html

from services.harvester.sources.oai import parse_oai_page
from services.normalizer.parsers.oai_dc import parse_oai_dc
from tests.support.paths import SOURCES
from tests.support.pipelines import Pipeline, running_pipeline
from tests.support.servers import Servers
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

PAGE = SOURCES / "arxiv_oai/oai_dc/atomiklabs_test_arxiv_data_listrecords_cs.xml"
RECORDS = [parse_oai_dc(r.content) for r in parse_oai_page(PAGE.read_bytes()).records]
WITH_CODE = "arxiv:2401.14038"  # "Source code is available at https://github.com/Regan-Zhang/HaDis."
CODE_URL = "https://github.com/Regan-Zhang/HaDis"


@pytest.fixture(scope="module")
def pipeline(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pipeline]:
    logs = tmp_path_factory.mktemp("code_links")
    with running_pipeline(servers, logs, ARXIV_METADATA_PREFIX="oai_dc") as pipe:
        wait_until(lambda: _get(pipe, "/api/papers", size=1)["total"] == len(RECORDS), timeout=120, what="indexing")
        yield pipe


def _get(pipeline: Pipeline, path: str, **params: Any) -> Any:
    response = httpx.get(pipeline.url("query", path), params=params, timeout=10)
    response.raise_for_status()
    return response.json()


def _page(pipeline: Pipeline, path: str, **params: Any) -> Any:
    response = httpx.get(pipeline.url("query", path), params=params, timeout=10)
    assert response.status_code == 200, response.text
    return html.fromstring(response.text)


def test_the_fixture_has_one_paper_with_code_and_no_code_field() -> None:
    assert len(RECORDS) == 5 and all("code" not in r.links for r in RECORDS)
    assert sum(CODE_URL in r.abstract for r in RECORDS) == 1


def test_has_code_filters_the_api(pipeline: Pipeline) -> None:
    with_code = _get(pipeline, "/api/papers", has_code="true")
    assert [hit["paper_id"] for hit in with_code["hits"]] == [WITH_CODE]
    assert with_code["hits"][0]["links"]["code"] == CODE_URL
    assert CODE_URL + "." in with_code["hits"][0]["abstract"]  # the abstract keeps the URL as written
    without = _get(pipeline, "/api/papers", has_code="false", size=100)
    assert without["total"] == len(RECORDS) - 1 and WITH_CODE not in {h["paper_id"] for h in without["hits"]}
    assert all("code" not in hit["links"] for hit in without["hits"])


def test_has_code_is_a_validated_boolean(pipeline: Pipeline) -> None:
    for value in ("maybe", 'true" OR ai_related = true', "links.code EXISTS"):
        response = httpx.get(pipeline.url("query", "/api/papers"), params={"has_code": value}, timeout=10)
        assert response.status_code == 422 and "has_code" in response.text, value


def test_has_code_is_documented_in_the_openapi(pipeline: Pipeline) -> None:
    spec = _get(pipeline, "/openapi.json")
    parameters = {p["name"]: p for p in spec["paths"]["/api/papers"]["get"]["parameters"]}
    assert "code link" in parameters["has_code"]["description"]
    assert "code" in spec["components"]["schemas"]["PaperHit"]["properties"]["links"]["description"]


def test_the_card_and_the_paper_page_show_the_code_link(pipeline: Pipeline) -> None:
    tree = _page(pipeline, "/", has_code="true")
    cards = tree.find_class("card")
    assert [c.get("data-paper-id") for c in cards] == [WITH_CODE]
    link = cards[0].xpath('.//p[@class="res-links"]/a')[0]
    assert link.get("href") == CODE_URL and link.text_content() == "代码"
    assert tree.xpath('//select[@name="has_code"]/option[@selected]')[0].get("value") == "true"
    english = _page(pipeline, "/", has_code="true", lang="en").find_class("card")[0]
    assert english.xpath('.//p[@class="res-links"]/a')[0].text_content() == "Code"
    # every other card has no code link
    others = _page(pipeline, "/", has_code="false").find_class("card")
    assert len(others) == len(RECORDS) - 1 and not any(c.find_class("res-links") for c in others)
    paper = _page(pipeline, f"/papers/{WITH_CODE}")
    shown = paper.xpath('//article[@class="paper"]/p[@class="res-links"]/a')
    assert [(a.text_content(), a.get("href")) for a in shown] == [("代码", CODE_URL)]


def test_the_search_feed_takes_has_code(pipeline: Pipeline) -> None:
    atom = httpx.get(pipeline.url("query", "/feeds/search.atom"), params={"has_code": "true"}, timeout=10)
    entries = etree.fromstring(atom.content).findall("{http://www.w3.org/2005/Atom}entry")
    assert [e.findtext("{http://www.w3.org/2005/Atom}title") for e in entries] == [
        next(r.title for r in RECORDS if CODE_URL in r.abstract)
    ]
