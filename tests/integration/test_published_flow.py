"""A preprint and its published record through every hop over real servers (issue 24 §3): the arXiv preprint of
"Star Attention" is published first as a raw record; then the harvester's PMLR source reads the recorded ICML 2025
volume file (v267/icml25.bib, from the replay server) and the normalizer merges the PMLR entry into the preprint. The
query API shows the paper published at ICML 2025 (CCF-A), its history's record #2 "published" by pmlr, and the venue
filters find it."""

import httpx
import pytest
from lxml import html

from services.harvester.sources.pmlr_bib import split_volume
from tests.support.paths import SOURCES
from tests.support.pipelines import Pipeline, api_paper, api_paper_ids, published_and_indexed
from tests.support.sources import arxiv_line
from tests.support.waiting import wait_until

VOLUME = (
    SOURCES / "pmlr/icml25-head.bib"
)  # served at <replay>/pmlr/v267/gh-pages/icml25.bib (tests/fixtures/replay.json)
PAPER = "arxiv:2411.17116"
STAR = "Star Attention: Efficient LLM Inference over Long Sequences"
# the preprint as arXiv lists it, its title and authors as the PMLR entry has them (the recorded files hold one side)
PREPRINT = arxiv_line(
    "2411.17116", STAR, ["Shantanu Acharya", "Fei Jia", "Boris Ginsburg"], "Preprint of Star Attention.", ["cs.LG"]
)


def pmlr(replay_url: str) -> dict[str, str]:
    """The harvester's settings for the PMLR source alone, reading the volume from the replay server."""
    return {"SOURCES": '["pmlr"]', "PMLR_URL": f"{replay_url}/pmlr", "PMLR_MIN_REQUEST_INTERVAL_S": "0"}


# the five services; the preprint indexed before the harvester starts with the PMLR source alone
pytestmark = [pytest.mark.integration, pytest.mark.pipeline(preprint=(PREPRINT, PAPER, pmlr))]


def test_the_pmlr_record_publishes_the_preprint_at_icml_2025(pipeline: Pipeline) -> None:
    entries = len(split_volume(VOLUME.read_text(encoding="utf-8"))[0])  # 21, one of them the preprint's
    paper = wait_until(
        lambda: published_and_indexed(pipeline, PAPER),
        timeout=180,
        what="the preprint published by its PMLR record, indexed",
    )
    assert (paper["paper_id"], paper["venue"], paper["year"], paper["accepted"]) == (PAPER, "ICML 2025", 2025, True)
    assert paper["ids"]["pmlr"] == "v267/acharya25a" and paper["ids"]["openreview"] == "QY7Au9nZwp"
    assert paper["sources"] == ["arxiv", "pmlr"]
    assert paper["links"]["code"] == "https://github.com/NVIDIA/Star-Attention"
    assert [(v["seq"], v["kind"], v["source"]) for v in paper["history"]] == [
        (1, "first_observed", "arxiv"),
        (2, "published", "pmlr"),
    ]
    assert (paper["version_seq"], paper["version_kind"]) == (2, "published")
    # the same paper by its published ids
    assert _paper_by(pipeline, "openreview:QY7Au9nZwp") == PAPER
    assert _paper_by(pipeline, "pmlr:v267/acharya25a") == PAPER

    wait_until(lambda: len(api_paper_ids(pipeline)) == entries, timeout=120, what=f"the {entries} entries indexed")
    published = api_paper_ids(pipeline, accepted="true", venue="ICML")
    assert PAPER in published and len(published) == entries  # every entry of the volume is ICML 2025's
    icml = "International Conference on Machine Learning"
    assert PAPER in api_paper_ids(pipeline, venue=icml, venue_year=2025, ccf_rank="A")
    assert PAPER in api_paper_ids(pipeline, ccf_rank="A", track="main")
    assert PAPER not in api_paper_ids(pipeline, venue="ICML", venue_year=2026)
    assert PAPER not in api_paper_ids(pipeline, accepted="false")
    facets = httpx.get(pipeline.url("query", "/api/papers"), params={"size": 1}, timeout=10).json()["facets"]
    assert facets["ccf_ranks"] == {"A": entries} and facets["venue_years"] == {"2025": entries}


def test_the_card_and_the_paper_page_say_where_it_was_published(pipeline: Pipeline) -> None:
    for path in (f"/papers/{PAPER}", "/?q=Star+Attention"):
        page = html.fromstring(httpx.get(pipeline.url("query", path), timeout=10).text)
        shown = [" ".join(p.text_content().split()) for p in page.xpath("//p[@class='venues']")]
        assert any("ICML 2025 · CCF-A (会议论文集)" in line for line in shown), (path, shown)


def _paper_by(pipeline: Pipeline, paper_id: str) -> str:
    return str(api_paper(pipeline, paper_id)["paper_id"])
