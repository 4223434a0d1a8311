"""A paper's first page through every hop over real servers (issue 40): the arXiv paper 2312.17141 is published as
arXiv lists it and becomes searchable without any affiliation; queued for its first page, the harvester's arxiv_html
source reads its HTML rendering from the replay server (a genuine page's article head, tests/fixtures/first_page),
publishes the author block on harvest.raw.v1, and the normalizer puts each author's affiliation on the paper, which
the query API then shows, the paper unchanged otherwise."""

import asyncio
import datetime as dt
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pymongo import MongoClient

from papertrail.runtime.collections import HARVEST_FIRST_PAGES
from schemas import topics
from tests.support.kafka import publish_raw
from tests.support.pipelines import Pipeline, running_pipeline
from tests.support.servers import Servers
from tests.support.sources import arxiv_line
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

PAPER = "arxiv:2312.17141"
TITLE = "Probabilistic Programming with Exact Conditions"
# the paper as arXiv lists it (the recorded page holds the other side: its author block)
LISTED = arxiv_line(
    "2312.17141",
    TITLE,
    ["Dario Stein", "Sam Staton"],
    "We spell out the paradigm of exact conditioning as an intuitive and powerful way of conditioning on "
    "observations in probabilistic programs.",
    ["cs.PL"],
)


@pytest.fixture(scope="module")
def pipeline(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pipeline]:
    """The five services; the paper searchable and its first page queued before the harvester starts with
    arxiv_html alone."""

    def listed_first(pipeline: Pipeline) -> None:
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, pipeline.topic(topics.HARVEST_RAW), [LISTED]))
        wait_until(lambda: _paper(pipeline).get("searchable"), timeout=120, what="the paper indexed")
        assert all(not a.get("affiliations") for a in _paper(pipeline)["authors_detail"])
        # what the harvester's publishing queues for every arXiv paper it publishes (this one came straight to the
        # topic, as a record another harvester run published would)
        queued: dict[str, Any] = {"_id": "2312.17141", "queued_at": dt.datetime.now(dt.UTC), "outcome": None}
        with MongoClient[dict[str, Any]](servers.mongodb_url) as client:
            client[pipeline.env["MONGODB_DATABASE"]][HARVEST_FIRST_PAGES.name].insert_one(queued)
        pipeline.env |= {"SOURCES": '["arxiv_html"]', "ARXIV_HTML_URL": f"{pipeline.replay_url}/html"}

    with running_pipeline(servers, tmp_path_factory.mktemp("first_page"), before_harvest=listed_first) as running:
        yield running


def _paper(pipeline: Pipeline) -> dict[str, Any]:
    response = httpx.get(pipeline.url("query", f"/api/papers/{PAPER}"), timeout=10)
    return response.json() if response.status_code == 200 else {}


def _with_affiliations(paper: dict[str, Any]) -> dict[str, Any] | None:
    authors = paper.get("authors_detail") or []
    return paper if authors and all(a.get("affiliations") for a in authors) else None


def test_the_first_page_gives_the_searchable_paper_its_authors_affiliations(pipeline: Pipeline) -> None:
    paper = wait_until(
        lambda: _with_affiliations(_paper(pipeline)), timeout=180, what="the paper's authors with affiliations, indexed"
    )
    assert [(a["name"], a["affiliations"][0].split(",")[0]) for a in paper["authors_detail"]] == [
        ("Dario Stein", "Radboud University Nijmegen"),
        ("Sam Staton", "University of Oxford"),
    ]
    assert paper["title"] == TITLE and paper["authors"] == ["Dario Stein", "Sam Staton"]
    assert [(v["seq"], v["kind"], v["source"]) for v in paper["history"]] == [
        (1, "first_observed", "arxiv"),
        (2, "metadata_correction", "arxiv_html"),
    ]
