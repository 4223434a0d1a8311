"""One real arXiv OAI-PMH page through every hop over real servers: harvester → normalizer → summarizer →
matcher and query, ending searchable through the query API."""

import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from pymongo import MongoClient

from services.harvester.oai import parse_oai_page
from services.normalizer.parsers.arxiv_oai import parse_arxiv
from tests.conftest import FIXTURES, SOURCES, Servers, free_port, wait_until
from tests.integration.services import running_service

pytestmark = pytest.mark.integration

ARXIV_CS_PAGE = SOURCES / "arxiv_oai/arXiv/invenio_sample_arxiv_response_listrecords_cs.xml"


@pytest.fixture(scope="module")
def replay_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The replay server over the recorded responses, as a real HTTP server."""
    import subprocess
    import sys

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "papertrail", "replay", "--dir", str(FIXTURES),
                                "--port", str(port)])
    try:
        wait_until(lambda: httpx.get(f"http://127.0.0.1:{port}/_replay/requests").status_code == 200,
                   timeout=30, what="replay server")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def pipeline(servers: Servers, replay_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """All five services running against the servers, harvesting set cs of the recorded arXiv page."""
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_e2e_{run}",
        "INDEX_NAME": f"papers_e2e_{run}",
        "TOPIC_PARTITIONS": "3",
        "ARXIV_OAI_URL": f"{replay_url}/oai",
        "ARXIV_METADATA_PREFIX": "arXiv",
        "ARXIV_SETS": '["cs"]',
        "ARXIV_START_DATE": "2015-01-16",
        "ARXIV_MIN_REQUEST_INTERVAL_S": "0",
        "ARXIV_INTERVAL_S": "3600",
    }
    logs = tmp_path_factory.mktemp("service-logs")
    with ExitStack() as stack:
        # Consumers first, so the harvester's records meet a pipeline that is already listening.
        ports = {name: stack.enter_context(running_service(name, env, logs))
                 for name in ("query", "matcher", "summarizer", "normalizer", "harvester")}
        yield {"env": env, "ports": ports, "logs": logs}


def test_real_arxiv_paper_flows_end_to_end(pipeline: dict, servers: Servers) -> None:
    page = parse_oai_page(ARXIV_CS_PAGE.read_bytes())
    expected = parse_arxiv(page.records[0].content)  # "Reproducing Kernel Banach Spaces with the l1 Norm"
    query_port = pipeline["ports"]["query"]

    def search_hit() -> dict | None:
        response = httpx.get(f"http://127.0.0.1:{query_port}/api/papers", params={"q": "Banach"}, timeout=5)
        response.raise_for_status()
        hits = [h for h in response.json()["hits"] if h["paper_id"] == f"arxiv:{expected.record_id}"]
        return hits[0] if hits else None

    hit = wait_until(search_hit, timeout=120, what="the paper to be searchable")
    assert hit["title"] == expected.title
    assert hit["authors"] == [a.name for a in expected.authors]
    assert hit["categories"][0] == expected.categories[0]

    with MongoClient(servers.mongodb_url) as mongo:
        db = mongo[pipeline["env"]["MONGODB_DATABASE"]]
        paper = db.papers.find_one({"_id": f"arxiv:{expected.record_id}"})
        assert paper is not None and paper["title"] == expected.title
        assert paper["ids"]["dois"] == expected.ids.dois
        versions = list(db.paper_versions.find({"paper_id": f"arxiv:{expected.record_id}"}))
        assert [(v["seq"], v["kind"]) for v in versions] == [(1, "first_observed")]
        # every record of the page becomes one paper, and the run is recorded as finished
        distinct_ids = {r.record_id for r in page.records}
        wait_until(lambda: db.papers.count_documents({}) == len(distinct_ids), timeout=60,
                   what=f"{len(distinct_ids)} papers")
        run = wait_until(lambda: db.harvest_runs.find_one({"source": "arxiv", "state": "finished"}), timeout=30,
                         what="a finished harvest run")
        assert run["records"] == len(page.records)

    def indexed_total() -> int:
        return int(httpx.get(f"http://127.0.0.1:{query_port}/api/papers", params={"size": 1}, timeout=5).json()["total"])

    wait_until(lambda: indexed_total() == len(distinct_ids), timeout=60, what="every paper indexed")


def test_every_service_is_ready_and_exposes_metrics(pipeline: dict) -> None:
    for name, port in pipeline["ports"].items():
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200, name
        ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
        assert ready.status_code == 200 and ready.json()["ready"] is True, name
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
        assert metrics.status_code == 200 and "papertrail_" in metrics.text, name


def test_bad_query_parameter_is_a_4xx_naming_it(pipeline: dict) -> None:
    port = pipeline["ports"]["query"]
    response = httpx.get(f"http://127.0.0.1:{port}/api/papers", params={"category": 'cs.CL" OR 1=1'}, timeout=5)
    assert response.status_code == 422
    assert "category" in response.text


