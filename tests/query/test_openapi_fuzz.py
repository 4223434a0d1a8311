"""The OpenAPI document is the contract the API keeps: `schemathesis run --checks all` (every phase, the stateful
links included) against a real query service, signed in as a real user, tests every operation and finds nothing: no
server error, no undocumented status, header or content type, no answer off its schema, no request valid by the
schema refused and none invalid accepted. The document states what the routes check (paper ids and cursors by
pattern); schemathesis.toml names each check beyond JSON Schema. Seeded and deterministic, so a failure here is a
change in the API, never chance."""

import asyncio
import compileall
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pymongo import MongoClient

from papertrail.runtime.collections import PAPERS as COLLECTION_OF_PAPERS
from schemas import topics
from tests.support.corpus import sample_papers
from tests.support.events import enriched, publish
from tests.support.servers import Servers
from tests.support.services import create_user, running_service
from tests.support.waiting import wait_until

# ~2,500 cases over every operation: 30 s on a quiet machine, 110-150 s beside the suite's other slow modules
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
HERE = Path(__file__).parent
PAPERS = 5  # real ones, so paper, search and corrections answer 200 and 201 too, not only errors
# per operation in the fuzzing phase: with the coverage phase's boundary cases (every parameter's, every method's)
# some 2,500 cases, which a loaded two-core machine runs in well under half the test's timeout
EXAMPLES = 5


@pytest.fixture(scope="module")
def query_api(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A query service over the local stack with a database and index of its own holding a few real papers (as the
    normalizer stores them and the summarizer announces them), and a user's token."""
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_fuzz_{run}",
        "INDEX_NAME": f"papers_fuzz_{run}",
        "TOPIC_PARTITIONS": "3",
        # thousands of writes from one token and address: the limits (429, documented) are tried in test_write_limits
        "LIMIT_FOLLOW_WRITES": "100000/1d",
        "LIMIT_CORRECTIONS": "100000/1d",
    }
    papers = list(sample_papers().values())[:PAPERS]
    mongo: MongoClient[dict[str, Any]] = MongoClient(servers.mongodb_url)
    with mongo:
        mongo[env["MONGODB_DATABASE"]][COLLECTION_OF_PAPERS.name].insert_many(
            {"_id": paper.id, "rev": 1, **paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)}
            for paper in papers
        )
    with running_service("query", env, tmp_path_factory.mktemp("fuzz")) as port:
        base = f"http://127.0.0.1:{port}"
        for paper in papers:
            asyncio.run(publish(servers, topics.PAPERS_ENRICHED, enriched(paper), paper.id))
        wait_until(
            lambda: httpx.get(f"{base}/api/papers", timeout=5).json()["total"] == len(papers),
            timeout=60,
            what="the papers indexed",
        )
        yield base, create_user(env, f"fuzz-{run}")


def test_schemathesis_finds_nothing(query_api: tuple[str, str], tmp_path: Path) -> None:
    base, token = query_api
    report = tmp_path / "schemathesis.ndjson"
    # the document read here, with room for a loaded machine: schemathesis gives a URL's schema 10 s to load
    schema = tmp_path / "openapi.json"
    schema.write_bytes(httpx.get(f"{base}/openapi.json", timeout=120).raise_for_status().content)
    run = subprocess.run(
        [
            *(sys.executable, "-m", "schemathesis.cli", "--config-file", str(HERE / "schemathesis.toml")),
            *("run", str(schema), "--url", base),
            *("--checks", "all", "--header", f"Authorization: Bearer {token}"),
            *("--max-examples", str(EXAMPLES), "--generation-deterministic"),
            # one worker: Hypothesis's lambda descriptions parse source with `ast`, which CPython 3.11 does not
            # allow from two threads at once (SystemError: AST constructor recursion depth mismatch)
            *("--workers", "1", "--request-timeout", "30"),
            *("--no-color", "--report", "ndjson", "--report-ndjson-path", str(report)),
        ],
        cwd=tmp_path,  # schemathesis keeps a cache folder where it runs
        capture_output=True,
        text=True,
        timeout=480,
    )
    print(run.stdout[-3000:])  # the summary: phases, cases generated, warnings
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-3000:]
    cases = re.search(r"(\d+) generated, (\d+) passed", run.stdout)
    assert cases and cases.group(1) == cases.group(2), run.stdout[-3000:]  # not one failure
    assert int(cases.group(1)) >= 1000, "too few cases for the run to mean anything"
    # every operation but those schemathesis.toml leaves out, each with its reason
    disabled = (HERE / "schemathesis.toml").read_text().count("enabled = false")
    operations = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", run.stdout)
    assert operations, run.stdout[-3000:]
    selected, total, tested = map(int, operations.groups())
    assert tested == selected == total - disabled, "an operation went untested"


def test_a_client_generated_from_the_document_searches_reads_and_follows(
    query_api: tuple[str, str], tmp_path: Path
) -> None:
    """openapi-python-client makes a client of the document without a warning; it compiles, and its search, paper
    and follows calls work against the service, errors parsed as the Problem the document names."""
    base, token = query_api
    config = tmp_path / "client.yaml"
    # no formatter run after; Atom feeds read as bytes (the generator knows no XML)
    config.write_text(
        "post_hooks: []\npackage_name_override: papertrail_client\n"
        "content_type_overrides:\n  application/atom+xml: application/octet-stream\n"
    )
    generate = subprocess.run(
        [
            *(sys.executable, "-m", "openapi_python_client", "generate", "--url", f"{base}/openapi.json"),
            *("--config", str(config), "--meta", "none", "--output-path", str(tmp_path / "papertrail_client")),
            "--fail-on-warning",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert generate.returncode == 0, generate.stdout + generate.stderr
    assert compileall.compile_dir(tmp_path / "papertrail_client", quiet=1)
    sys.path.insert(0, str(tmp_path))
    try:
        calls_through_the_client(base, token)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("papertrail_client")]:
            del sys.modules[name]


def calls_through_the_client(base: str, token: str) -> None:
    from papertrail_client import AuthenticatedClient, Client  # type: ignore[import-not-found]
    from papertrail_client.api.follows import (  # type: ignore[import-not-found]
        create_follow,
        delete_follow,
        list_follows,
        read_follow,
    )
    from papertrail_client.api.papers import read_paper, search_papers  # type: ignore[import-not-found]
    from papertrail_client.models import (  # type: ignore[import-not-found]
        FollowCreate,
        FollowCreateKind,
        Problem,
    )

    anyone = Client(base_url=base)
    found = search_papers.sync(client=anyone, size=PAPERS)
    assert found.total == PAPERS and len(found.hits) == PAPERS
    first = found.hits[0]
    paper = read_paper.sync(client=anyone, paper_id=first.paper_id)
    assert paper.paper_id == first.paper_id and paper.title == first.title
    missing = read_paper.sync_detailed(client=anyone, paper_id="arxiv:0000.00000")
    assert missing.status_code == 404 and isinstance(missing.parsed, Problem) and missing.parsed.status == 404

    reader = AuthenticatedClient(base_url=base, token=token)
    made = create_follow.sync(
        client=reader, body=FollowCreate(kind=FollowCreateKind.KEYWORD, name="graphs", query="graph")
    )
    assert read_follow.sync(client=reader, follow_id=made.id).query == "graph"
    assert made.id in [follow.id for follow in list_follows.sync(client=reader)]
    assert delete_follow.sync_detailed(client=reader, follow_id=made.id).status_code == 204
    refused = list_follows.sync_detailed(client=anyone)
    assert refused.status_code == 401 and isinstance(refused.parsed, Problem)
