"""Venues over the normalizer, summarizer and query services: real corpus papers whose comments say where they were
accepted (or only submitted), and a real ACL Anthology paper with its Anthology DOI. Cards and paper pages show
"ICML 2026 · CCF-A · Spotlight" with where the fact comes from, a submission as "投稿中 …" (never accepted); the API's
hits carry the claims; `venue`, `venue_year`, `ccf_rank`, `track` and `accepted` filter the API and the home page,
with facet counts; bad values are a 422 naming the parameter."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from lxml import etree, html

from tests.support.pipelines import indexed_records
from tests.support.servers import Servers
from tests.support.sources import acl_records, corpus_records, with_anthology_doi

pytestmark = pytest.mark.integration
SPOTLIGHT = "arxiv:2605.00434"  # "ICML 2026 [Spotlight]"
ICML = "arxiv:2605.00411"  # "Accepted at ICML 2026"
WORKSHOP = "arxiv:2605.21182"  # "Accepted to the Culture x AI Workshop at ICML 2026. Project page: …"
FINDINGS = "arxiv:2604.27616"  # "Accepted to Findings of ACL 2026"
SUBMITTED = "arxiv:2605.05580"  # "Submitted to NeurIPS 2026. 26 pages, 8 figures,"
NO_COMMENT = "arxiv:2604.27073"  # no comment at all
ACL = "acl:2024.acl-long.1"  # its DOI 10.18653/v1/2024.acl-long.1: ACL 2024's main track, from the proceedings
PAPERS = (SPOTLIGHT, ICML, WORKSHOP, FINDINGS, SUBMITTED, NO_COMMENT, ACL)


@pytest.fixture(scope="module")
def query_url(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    wanted = {p.removeprefix("arxiv:") for p in PAPERS}
    records = [r for r in corpus_records() if r.record_id in wanted]
    records += [with_anthology_doi(r) for r in acl_records() if r.record_id == ACL.removeprefix("acl:")]
    with indexed_records(servers, records, tmp_path_factory.mktemp("venues")) as url:
        assert len({r.record_id for r in records}) == len(PAPERS)
        yield url


def _get(url: str, path: str, **params: Any) -> Any:
    response = httpx.get(url + path, params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def _ids(url: str, **params: Any) -> set[str]:
    return {hit["paper_id"] for hit in _get(url, "/api/papers", size=100, **params)["hits"]}


def _page(url: str, path: str, **params: Any) -> Any:
    response = httpx.get(url + path, params=params, timeout=10)
    assert response.status_code == 200, response.text
    return html.fromstring(response.text)


def _venue_line(element: Any) -> str:
    return " ".join(element.find_class("venues")[0].text_content().split())


def test_the_api_hits_carry_the_claims(query_url: str) -> None:
    hits = {hit["paper_id"]: hit for hit in _get(query_url, "/api/papers", size=100)["hits"]}
    (spotlight,) = hits[SPOTLIGHT]["venue_claims"]
    assert {k: spotlight[k] for k in ("venue", "venue_key", "year", "status", "track", "presentation")} == {
        "venue": "ICML", "venue_key": "AI/icml", "year": 2026, "status": "accepted", "track": "main",
        "presentation": "spotlight"}  # fmt: skip
    assert (spotlight["ccf_rank"], spotlight["source"], hits[SPOTLIGHT]["accepted"]) == ("A", "comment", True)
    (submitted,) = hits[SUBMITTED]["venue_claims"]
    assert (submitted["venue"], submitted["status"], hits[SUBMITTED]["accepted"]) == ("NeurIPS", "submitted", False)
    (acl,) = hits[ACL]["venue_claims"]
    assert (acl["venue"], acl["year"], acl["track"], acl["source"], acl["ccf_rank"]) == (
        "ACL",
        2024,
        "main",
        "doi",
        "A",
    )
    assert hits[NO_COMMENT]["venue_claims"] == [] and hits[NO_COMMENT]["accepted"] is False
    detail = _get(query_url, f"/api/papers/{SPOTLIGHT}")
    assert detail["venue_claims"] == hits[SPOTLIGHT]["venue_claims"]
    assert detail["paper"]["venue_claims"][0]["text"] == "ICML 2026 [Spotlight]"


def test_the_venue_filters_ask_one_claim_to_meet_them_all(query_url: str) -> None:
    assert _ids(query_url, venue="ICML") == {SPOTLIGHT, ICML, WORKSHOP}  # a submission is not ICML's
    assert _ids(query_url, venue="International Conference on Machine Learning") == {SPOTLIGHT, ICML, WORKSHOP}
    assert _ids(query_url, venue="icml", track="main") == {SPOTLIGHT, ICML}
    assert _ids(query_url, venue="ICML", track="workshop") == {WORKSHOP}
    assert _ids(query_url, venue="ACL") == {FINDINGS, ACL}
    assert _ids(query_url, venue="ACL", venue_year=2024) == {ACL}
    assert _ids(query_url, venue="ACL", venue_year=2026, track="findings") == {FINDINGS}
    assert _ids(query_url, venue="ICML", venue_year=2024) == set()
    assert _ids(query_url, ccf_rank="A") == {SPOTLIGHT, ICML, FINDINGS, ACL}  # a workshop has no CCF rank
    assert _ids(query_url, ccf_rank="A", venue_year=2026) == {SPOTLIGHT, ICML, FINDINGS}
    assert _ids(query_url, venue="NeurIPS") == set()  # only submitted there
    assert _ids(query_url, accepted="true") == {SPOTLIGHT, ICML, WORKSHOP, FINDINGS, ACL}
    assert _ids(query_url, accepted="false") == {SUBMITTED, NO_COMMENT}


def test_the_venue_facets_count_accepted_claims(query_url: str) -> None:
    facets = _get(query_url, "/api/papers", size=1)["facets"]
    assert facets["accepted_venues"] == {"ICML": 3, "ACL": 2}
    assert facets["ccf_ranks"] == {"A": 4}
    assert facets["venue_years"] == {"2026": 4, "2024": 1}
    assert facets["venue_tracks"] == {"main": 3, "workshop": 1, "findings": 1}
    assert facets["accepted"] == {"true": 5, "false": 2}
    assert _get(query_url, "/api/papers", size=1, ccf_rank="A")["facets"]["accepted_venues"] == {"ICML": 2, "ACL": 2}


@pytest.mark.parametrize(
    ("name", "value"),
    [("ccf_rank", "A*"), ("ccf_rank", 'A" OR accepted = true'), ("venue_year", "2026 OR 1"), ("venue_year", "3000"),
     ("track", "keynote"), ("accepted", "maybe"), ("venue", "ICML\n2026"), ("venue", "x" * 201)],
)  # fmt: skip
def test_bad_values_are_a_422_naming_the_parameter(query_url: str, name: str, value: str) -> None:
    response = httpx.get(f"{query_url}/api/papers", params={name: value}, timeout=10)
    assert response.status_code == 422 and response.headers["content-type"].startswith("application/problem+json")
    assert name in response.text


def test_a_venue_value_is_quoted_never_syntax(query_url: str) -> None:
    assert _ids(query_url, venue='ICML" OR accepted = false OR venue = "x') == set()


def test_the_filters_are_documented_in_the_openapi(query_url: str) -> None:
    spec = _get(query_url, "/openapi.json")
    parameters = {p["name"]: p for p in spec["paths"]["/api/papers"]["get"]["parameters"]}
    assert {"venue", "venue_year", "ccf_rank", "track", "accepted"} <= set(parameters)
    assert "submitted" in parameters["accepted"]["description"]
    claims = spec["components"]["schemas"]["PaperHit"]["properties"]["venue_claims"]
    assert claims["examples"][0][0]["venue"] == "ICML" and "VenueClaim" in claims["items"]["$ref"]


def test_cards_show_the_venue_and_where_the_fact_comes_from(query_url: str) -> None:
    cards = {c.get("data-paper-id"): c for c in _page(query_url, "/", size=100).find_class("card")}
    assert _venue_line(cards[SPOTLIGHT]) == "会议/期刊 ICML 2026 · CCF-A · Spotlight (作者注明)"
    assert _venue_line(cards[ACL]) == "会议/期刊 ACL 2024 · CCF-A (会议论文集)"
    assert _venue_line(cards[FINDINGS]) == "会议/期刊 ACL 2026 · CCF-A · Findings (作者注明)"
    (workshop,) = _get(query_url, f"/api/papers/{WORKSHOP}")["venue_claims"]  # its name as the claim read it
    assert _venue_line(cards[WORKSHOP]) == f"会议/期刊 ICML 2026 · {workshop['workshop']} (作者注明)"
    assert "Workshop" in workshop["workshop"] and "CCF" not in _venue_line(cards[WORKSHOP])  # a workshop: no rank
    submitted = cards[SUBMITTED].find_class("venues")[0]
    assert _venue_line(cards[SUBMITTED]) == "会议/期刊 投稿中 NeurIPS 2026 (作者注明)"
    assert not submitted.find_class("venue-accepted") and submitted.find_class("venue-submitted")
    assert not cards[NO_COMMENT].find_class("venues")
    english = {c.get("data-paper-id"): c for c in _page(query_url, "/", size=100, lang="en").find_class("card")}
    assert _venue_line(english[SPOTLIGHT]) == "Venue ICML 2026 · CCF-A · Spotlight (stated by the authors)"
    assert _venue_line(english[SUBMITTED]) == "Venue Submitted to NeurIPS 2026 (stated by the authors)"
    assert _venue_line(english[ACL]) == "Venue ACL 2024 · CCF-A (proceedings)"


def test_the_paper_page_shows_the_venue(query_url: str) -> None:
    page = _page(query_url, f"/papers/{SPOTLIGHT}")
    assert _venue_line(page.find_class("paper")[0]) == "会议/期刊 ICML 2026 · CCF-A · Spotlight (作者注明)"
    english = _page(query_url, f"/papers/{SUBMITTED}", lang="en")
    assert _venue_line(english.find_class("paper")[0]) == "Venue Submitted to NeurIPS 2026 (stated by the authors)"


def test_the_home_page_filters_by_venue_with_counts(query_url: str) -> None:
    tree = _page(query_url, "/", ccf_rank="A", venue_year="2026")
    assert {c.get("data-paper-id") for c in tree.find_class("card")} == {SPOTLIGHT, ICML, FINDINGS}
    assert tree.xpath('//select[@name="ccf_rank"]/option[@selected]')[0].get("value") == "A"
    assert tree.xpath('//select[@name="venue_year"]/option[@selected]')[0].get("value") == "2026"
    venues = [" ".join(o.text_content().split()) for o in tree.xpath('//select[@name="venue"]/option')]
    assert venues == ["全部", "ICML (2)", "ACL (1)"]
    tracks = {o.get("value"): o.text_content() for o in tree.xpath('//select[@name="track"]/option')}
    assert tracks["findings"] == "Findings (1)" and tracks["main"] == "主会 (2)"
    workshop = _page(query_url, "/", venue="ICML", track="workshop", lang="en")
    assert [c.get("data-paper-id") for c in workshop.find_class("card")] == [WORKSHOP]
    bad = httpx.get(f"{query_url}/", params={"ccf_rank": "Z"}, timeout=10)
    assert bad.status_code == 422 and "ccf_rank" in bad.text


def _feed(url: str, path: str, **params: Any) -> dict[str, str]:
    """An Atom feed's entries in order: paper id → the entry's summary."""
    response = httpx.get(url + path, params=params, timeout=10)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/atom+xml")
    feed = etree.fromstring(response.content)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    return {
        entry.findtext("a:id", namespaces=ns).rsplit("/papers/", 1)[1]: entry.findtext("a:summary", namespaces=ns)
        for entry in feed.findall("a:entry", ns)
    }


def test_a_venues_atom_feed_holds_the_papers_accepted_there(query_url: str) -> None:
    icml = _feed(query_url, "/feeds/venues/AI/icml.atom")
    assert set(icml) == {SPOTLIGHT, ICML}  # not the workshop at ICML, nor a submission
    assert all(summary.startswith("[accepted at ICML 2026 (comment") for summary in icml.values())
    assert set(_feed(query_url, "/feeds/venues/AI/icml.atom", track="workshop")) == {WORKSHOP}
    assert _feed(query_url, "/feeds/venues/AI/icml.atom", year=2025) == {}
    acl = _feed(query_url, "/feeds/venues/AI/acl.atom")
    assert set(acl) == {ACL, FINDINGS} and acl[ACL].startswith("[accepted at ACL 2024 (proceedings)]")
    assert acl[FINDINGS].startswith("[accepted at ACL 2026 findings (comment")
    unknown = httpx.get(f"{query_url}/feeds/venues/AI/nowhere.atom", timeout=10)
    assert unknown.status_code == 404 and "no venue 'AI/nowhere'" in unknown.json()["detail"]


def test_the_cite_box_cites_an_accepted_paper_as_published_and_a_workshop_paper_as_a_preprint(query_url: str) -> None:
    accepted = _page(query_url, f"/papers/{ICML}").find_class("cite-text")[0].text_content()
    assert accepted.startswith("@inproceedings{") and "eprint = {2605.00411}" in accepted
    assert "booktitle = {International Conference on Machine Learning {(ICML} 2026)}" in accepted
    workshop = _page(query_url, f"/papers/{WORKSHOP}").find_class("cite-text")[0].text_content()
    assert workshop.startswith("@misc{") and "booktitle" not in workshop


async def test_the_overview_lists_the_venues_of_the_weeks_accepted_papers(query_url: str, servers: Servers) -> None:
    """Its week ends at the time given (the overview's `end`, now): here a day after the newest accepted version."""
    from papertrail.runtime.search import make_search_client
    from papertrail.runtime.settings import InfraSettings
    from services.query.catalogue.index import PaperIndex
    from services.query.catalogue.reads.overview import accepted_this_week

    hits = _get(query_url, "/api/papers", size=100)["hits"]
    accepted = [h for h in hits if h["accepted"]]
    now = datetime.fromtimestamp(max(h["updated_ts"] for h in accepted), UTC) + timedelta(days=1)
    week = [h for h in accepted if now - timedelta(days=7) <= datetime.fromtimestamp(h["updated_ts"], UTC) <= now]
    expected: dict[str, int] = {}
    for hit in week:
        for venue in {c["venue"] for c in hit["venue_claims"] if c["status"] == "accepted"} or {hit["venue"]}:
            expected[venue] = expected.get(venue, 0) + 1
    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    try:
        index = PaperIndex(client, servers.index, task_timeout_s=60)  # the module's (indexed_records uses it)
        figures = await accepted_this_week(index, now)
        tree = _page(query_url, "/")
        today = await accepted_this_week(index, datetime.now(UTC))
    finally:
        await client.aclose()
    assert expected and {f.venue: f.value for f in figures} == expected
    assert [f.value for f in figures] == sorted(expected.values(), reverse=True)
    listed = _ids(query_url, **dict(parse_qsl(str(figures[0].query).split("?", 1)[1])) | {"until": now.isoformat()})
    assert len(listed) == figures[0].value  # the figure's own query lists its papers
    # the home page shows this week's, each venue linking to its papers
    section = tree.get_element_by_id("accepted-this-week")
    links = section.xpath(".//li/a[1]")  # each venue's link to its papers (a follow link or button may follow it)
    shown = [" ".join(a.text_content().split()) for a in links]
    assert shown == [f"{f.venue} {f.value}" for f in today]
    hrefs = [dict(parse_qsl(a.get("href").split("?", 1)[1].removesuffix("#papers"))) for a in links]
    assert [(h["venue"], h["accepted"]) for h in hrefs] == [(f.venue, "true") for f in today]
