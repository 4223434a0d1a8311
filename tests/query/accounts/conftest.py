"""The readers' modules' one `site`: the query service as a real process over the module's PAPERS (stored as the
normalizer stores them, on the database the servers fixture names), with readers made by `papertrail users create`.

A module says what it needs with a marker, `pytest.mark.reader_site(readers=(...), SETTING="value", ...)`: the
readers' names (ana and bo if not given) and the service's settings. A module that needs more (its own service, or a
mail server) defines a `site` of its own; one that adds to the site's data extends it (`def site(site)`)."""

from collections.abc import Iterator

import pytest

from tests.support.reader_site import Site, reader_site
from tests.support.servers import Servers


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest, servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    marker = request.node.get_closest_marker("reader_site")
    settings = dict(marker.kwargs) if marker is not None else {}
    readers = settings.pop("readers", ("ana", "bo"))
    logs = tmp_path_factory.mktemp("site")
    with reader_site(servers, logs, request.module.PAPERS, readers=readers, **settings) as running:
        yield running
