"""The suite's fixtures and hooks: real servers for each test module, a scratch database, and the order pytest-xdist
hands modules out in. What tests share besides fixtures is in tests/support/ (servers, waiting, spawning, services,
pipelines, the replay server, Kafka tools, sources, corpus, fakes); tests and benchmarks import it from there.

One set of servers serves a whole session (each pytest-xdist worker its own; tests/support/servers.py says where they
come from); each test module works under names of its own on it (Servers.name_prefix: topics, consumer groups,
database, index). A module marked `own_stack` gets servers of its own, with the documented names, as every module did
before names had a prefix.
"""

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from tests.support.servers import Servers, delete_topics, started_servers, under_fresh_names
from tests.support.time_limits import TimeAgainstLimits

# The search vectors (SEARCH_EMBEDDING_MODEL, on by default) cost each paper ~0.19 CPU-s more to embed: off for the
# settings the tests build and the services they start (they inherit this environment), unless a test asks for them
# (tests/integration/test_chinese_search.py runs the default).
os.environ.setdefault("SEARCH_EMBEDDING_MODEL", "none")


# The modules that take longest, slowest first: a run prints them at its end ("the 15 slowest modules", marking those
# missing here), and this order is that of a whole run on two cores (docs/benchmarks.md, 2026-12-07). Under
# pytest-xdist they start first, so the run does not end waiting on one of them that began last.
SLOW_MODULES = (
    "papertrail/test_local_model.py",
    "integration/test_chinese_search.py",
    "query/readers/library/test_library_import_large.py",
    "integration/test_smoke.py",
    "query/catalogue/test_paper_vectors.py",
    "papertrail_tools/test_run.py",
    "integration/test_local_prometheus.py",
    "query/test_openapi_fuzz.py",
    "papertrail_tools/test_run_gives_up.py",
    "test_api.py",
    "test_pages.py",
    "test_paper_ids.py",
    "query/readers/library/test_ranked_feed.py",
    "query/readers/test_accounts.py",
    "resilience/test_kill_services.py",
    "papertrail/test_startup.py",
    "resilience/test_dependency_restarts.py",
    "test_math_pages.py",
    "papertrail/domain/follows/test_rules.py",
    "test_topic_retag.py",
    "integration/test_matcher_backfill_retry.py",
    "integration/test_similar_follows.py",
    "test_library_import_restart.py",
)


# Modules that share a session-scoped fixture run on one worker, so it starts once: tests/query/conftest.py's
# arxiv_page_site (one pipeline that harvested the recorded arXiv page, read by both).
SHARED_UNITS = {
    "arxiv-page-site": (
        "query/catalogue/test_api.py",
        "query/catalogue/test_pages.py",
        "query/catalogue/test_follow_here.py",
    )
}


def _slowness(nodeid: str) -> int:
    """How early the module is handed out: the first of SLOW_MODULES highest; PYTEST_SLOW_MODULES (paths, space
    separated) names more, before them."""
    module = nodeid.split("::", 1)[0]
    slow = (*os.environ.get("PYTEST_SLOW_MODULES", "").split(), *SLOW_MODULES)
    return next((len(slow) - i for i, name in enumerate(slow) if module.endswith(name)), 0)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # optional: a run without pytest-xdist has no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadfile, with the slowest modules handed out first (see SLOW_MODULES); a module stays on one worker, so
    its module-scoped fixtures (a pipeline, servers of its own) start once, and so do the modules of a SHARED_UNITS
    entry."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SlowestModulesFirst(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            return next((unit for unit, modules in SHARED_UNITS.items() if module.endswith(modules)), module)

        # The work queue is made from `collection` in its order (with loadscopereorder off), so the slowest modules
        # come first there. The workers' own collections stay as they are: tests are sent as indexes into them.
        @property  # type: ignore[override]
        def collection(self) -> list[str] | None:
            return self._ordered

        @collection.setter
        def collection(self, nodeids: list[str] | None) -> None:
            self._ordered = None if nodeids is None else sorted(nodeids, key=lambda nodeid: -_slowness(nodeid))

        def schedule(self) -> None:
            self.config.option.loadscopereorder = False  # keep that order, not the modules' test counts
            super().schedule()

    return SlowestModulesFirst(config, log)


def pytest_configure(config: pytest.Config) -> None:
    # prints the tests near their timeout and the slowest modules at the end
    config.pluginmanager.register(TimeAgainstLimits(lambda module: _slowness(module) > 0), "time-against-limits")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that needs the real servers (the `servers` fixture, directly or through another) must be marked
    integration: `pytest -m "not integration"` (make test-fast) then never starts them."""
    unmarked = [
        item.nodeid
        for item in items
        if "servers" in getattr(item, "fixturenames", ()) and item.get_closest_marker("integration") is None
    ]
    if unmarked:
        raise pytest.UsageError("tests using real servers without @pytest.mark.integration: " + ", ".join(unmarked))


@pytest.fixture(scope="session")
def session_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """The servers every module of this session (of this xdist worker) shares, started at first use."""
    yield from started_servers(lambda: tmp_path_factory.mktemp("stack"))


@pytest.fixture(scope="module")
def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """Real Kafka-, MongoDB- and Meilisearch-protocol servers, under names fresh for each test module.

    The session's servers, with a name prefix of the module's own (KAFKA_NAME_PREFIX, database and index in
    environment()): a module never inherits another module's unconsumed messages or committed offsets. A module
    marked `own_stack` (one that names topics or groups as docs/events.md does, or stops servers) gets servers of
    its own, started for it and stopped after it."""
    if request.node.get_closest_marker("own_stack") is not None:
        yield from started_servers(lambda: tmp_path_factory.mktemp("stack"))
        return
    module_servers = under_fresh_names(request.getfixturevalue("session_servers"))
    yield module_servers
    delete_topics(module_servers)


@pytest.fixture
async def scratch_db(servers: Servers) -> AsyncIterator[AsyncDatabase]:
    """A database of its own on the real MongoDB-protocol server, dropped after the test."""
    from pymongo import AsyncMongoClient

    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    database = client[f"papertrail_scratch_{uuid.uuid4().hex[:10]}"]
    try:
        yield database
    finally:
        await client.drop_database(database.name)
        await client.close()
