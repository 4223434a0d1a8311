"""What the query service's test modules share: one pipeline over the recorded arXiv page for the modules that only
read it (test_api.py, test_pages.py; tests/conftest.py's scheduler keeps them on one pytest-xdist worker); and the
readers' rooms' one `site` (accounts/, library/): the query service as a real process over the module's PAPERS (stored
as the normalizer stores them, on the database the servers fixture names), with readers made by `papertrail users
create`. A module says what it needs with a marker, `pytest.mark.reader_site(readers=(...), SETTING="value", ...)`: the
readers' names (ana and bo if not given) and the service's settings. A module that needs more (its own service, or a
mail server) defines a `site` of its own; one that adds to the site's data extends it (`def site(site)`)."""

from collections.abc import Iterator

import httpx
import pytest

from tests.support.pipelines import ARXIV_CS_PAGE, Pipeline, running_pipeline
from tests.support.query import ArxivPageSite
from tests.support.reader_site import Site, reader_site
from tests.support.servers import Servers, under_fresh_names
from tests.support.services import create_user
from tests.support.waiting import wait_until

# Each module's readers, its own: a module adds and removes follows and sessions, and asserts what its readers see.
READERS = {"api": ("ana", "bo"), "pages": ("ana", "bo", "cy")}


@pytest.fixture(scope="session")
def arxiv_page_site(session_servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArxivPageSite]:
    """The five services once they harvested set cs of the recorded arXiv page and indexed every paper.

    The readers are made before the harvest; test_api's ana follows "kernel", so her feed holds the papers it
    matched as they arrived."""
    from services.harvester.sources.oai import parse_oai_page

    papers = len({record.record_id for record in parse_oai_page(ARXIV_CS_PAGE.read_bytes()).records})
    readers: dict[str, dict[str, str]] = {}

    def make_readers(pipeline: Pipeline) -> None:
        for module, names in READERS.items():
            readers[module] = {name: create_user(pipeline.env, f"{name}-{module}") for name in names}
        follow = httpx.post(
            pipeline.url("query", "/api/follows"),
            headers={"Authorization": f"Bearer {readers['api']['ana']}"},
            json={"kind": "keyword", "name": "kernels", "query": "kernel", "fields": "both"},
        )
        assert follow.status_code == 201, follow.text

    def get(pipeline: Pipeline, path: str, **params: str | int) -> dict:
        response = httpx.get(pipeline.url("query", path), params=params, timeout=10)
        response.raise_for_status()
        return response.json()

    servers = under_fresh_names(session_servers)
    with running_pipeline(servers, tmp_path_factory.mktemp("arxiv-page"), before_harvest=make_readers) as pipeline:
        wait_until(lambda: get(pipeline, "/api/papers", size=1)["total"] == papers, 120, what="every paper indexed")
        wait_until(lambda: get(pipeline, "/api/sources"), timeout=30, what="a source run")
        yield ArxivPageSite(pipeline, readers)


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest, servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    marker = request.node.get_closest_marker("reader_site")
    settings = dict(marker.kwargs) if marker is not None else {}
    readers = settings.pop("readers", ("ana", "bo"))
    logs = tmp_path_factory.mktemp("site")
    with reader_site(servers, logs, request.module.PAPERS, readers=readers, **settings) as running:
        yield running
