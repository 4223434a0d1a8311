"""An OpenReview decision through every hop over real servers (issue 41 §4): the arXiv preprint of "Emergency Response
Measures for Catastrophic Risk" is published first as a raw record; then the harvester's OpenReview source reads the
recorded API v2 answer for the NeurIPS 2025 RegML workshop (from the replay server) and the normalizer merges the
accepted note into the preprint. The query API shows the paper published at NeurIPS 2025's workshop as a poster, its
history's record #2 "published" by openreview, and the venue filters find it."""

import httpx
import pytest
from lxml import html

from tests.support.pipelines import Pipeline, api_paper, api_paper_ids, published_and_indexed
from tests.support.sources import arxiv_line
from tests.support.waiting import wait_until

PAPER = "arxiv:2511.05526"
VENUE = "NeurIPS.cc/2025/Workshop/RegML"  # served at <replay>/openreview/notes (tests/fixtures/replay.json)
# the preprint as arXiv lists it, its title and authors as the OpenReview note has them (the recorded answer holds
# one side; arXiv's own title of the work says "Catastrophic AI Risk", which the merge rule would keep apart)
PREPRINT = arxiv_line(
    "2511.05526",
    "Emergency Response Measures for Catastrophic Risk",
    ["James Zhang", "Miles Kodama", "Zongze Wu", "Michael Chen", "Yue Zhu", "Geng Hong"],
    "Preprint of the emergency response measures paper.",
    ["cs.CY"],
)


def openreview(replay_url: str) -> dict[str, str]:
    """The harvester's settings for the OpenReview source alone, reading the venue from the replay server."""
    return {
        "SOURCES": '["openreview"]',
        "OPENREVIEW_API_URL": f"{replay_url}/openreview",
        "OPENREVIEW_VENUES": f'["{VENUE}"]',
        "OPENREVIEW_MIN_REQUEST_INTERVAL_S": "0",
    }


# the five services; the preprint indexed before the harvester starts with the OpenReview source alone
pytestmark = [pytest.mark.integration, pytest.mark.pipeline(preprint=(PREPRINT, PAPER, openreview))]


def test_the_accepted_note_publishes_the_preprint_at_the_neurips_workshop(pipeline: Pipeline) -> None:
    paper = wait_until(
        lambda: published_and_indexed(pipeline, PAPER),
        timeout=180,
        what="the preprint published by its OpenReview note, indexed",
    )
    assert (paper["venue"], paper["year"], paper["accepted"]) == ("NeurIPS 2025 Workshop on RegML (Poster)", 2025, True)
    assert paper["ids"]["openreview"] == "4aMedv0ONH" and paper["sources"] == ["arxiv", "openreview"]
    assert [(v["seq"], v["kind"], v["source"]) for v in paper["history"]] == [
        (1, "first_observed", "arxiv"),
        (2, "published", "openreview"),
    ]
    assert api_paper(pipeline, "openreview:4aMedv0ONH")["paper_id"] == PAPER  # the same paper by its forum id

    assert PAPER in api_paper_ids(pipeline, accepted="true", venue="NeurIPS", venue_year=2025, track="workshop")
    assert PAPER not in api_paper_ids(pipeline, venue="NeurIPS", track="main")
    assert PAPER not in api_paper_ids(pipeline, accepted="false")
    assert PAPER not in api_paper_ids(pipeline, ccf_rank="A")


def test_the_paper_page_says_where_it_was_published(pipeline: Pipeline) -> None:
    page = html.fromstring(httpx.get(pipeline.url("query", f"/papers/{PAPER}"), timeout=10).text)
    shown = [" ".join(p.text_content().split()) for p in page.xpath("//p[@class='venues']")]
    # NeurIPS' workshop track: no CCF-A beside it, as the ccf_rank filter does not count it
    assert shown == ["会议/期刊 NeurIPS 2025 · Workshop on RegML · Poster (会议论文集)"], shown
