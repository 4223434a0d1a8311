"""Shared fixtures: real servers (from the environment, testcontainers, or the local stack) and waiting helpers.

Servers come, in this order, from environment variables that point at running servers
(KAFKA_BOOTSTRAP_SERVERS, MONGODB_URL, MEILI_URL, MEILI_MASTER_KEY); else testcontainers when a Docker
engine answers; else the project's local stack started on free ports in a temporary folder.

One set of servers serves a whole session (each pytest-xdist worker its own); each test module works under names
of its own on it (Servers.name_prefix: topics, consumer groups, database, index). A module marked `own_stack` gets
servers of its own, with the documented names, as every module did before names had a prefix.
"""

import asyncio
import concurrent.futures
import os
import random
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from email import message_from_bytes, policy
from email.message import Message
from pathlib import Path
from typing import Any, TypeVar

import pytest
from aiosmtpd.controller import Controller
from pymongo.asynchronous.database import AsyncDatabase

from papertrail_tools.stack import StackSettings
from tests.time_limits import TimeAgainstLimits

FIXTURES = Path(__file__).parent / "fixtures"
SOURCES = FIXTURES / "sources"
T = TypeVar("T")

# The search vectors (SEARCH_EMBEDDING_MODEL, on by default) cost each paper ~0.19 CPU-s more to embed: off for the
# settings the tests build and the services they start (they inherit this environment), unless a test asks for them
# (tests/integration/test_chinese_search.py runs the default).
os.environ.setdefault("SEARCH_EMBEDDING_MODEL", "none")


@dataclass(frozen=True)
class Servers:
    kafka_bootstrap_servers: str
    mongodb_url: str
    meili_url: str
    meili_master_key: str
    origin: str
    # This module's names on servers other modules share: KAFKA_NAME_PREFIX, and in the database and index names.
    name_prefix: str = ""

    def environment(self) -> dict[str, str]:
        """The services' settings for these servers; a test may give its own MONGODB_DATABASE and INDEX_NAME."""
        env = {
            "KAFKA_BOOTSTRAP_SERVERS": self.kafka_bootstrap_servers,
            "MONGODB_URL": self.mongodb_url,
            "MEILI_URL": self.meili_url,
            "MEILI_MASTER_KEY": self.meili_master_key,
        }
        if self.name_prefix:
            env |= {
                "KAFKA_NAME_PREFIX": self.name_prefix,
                "MONGODB_DATABASE": self.database,
                "INDEX_NAME": self.index,
            }
        return env

    @property
    def database(self) -> str:
        """The MongoDB database the services use by default (MONGODB_DATABASE of environment())."""
        return f"papertrail_{self.name_prefix.rstrip('.')}" if self.name_prefix else "papertrail"

    @property
    def index(self) -> str:
        """The Meilisearch index of papers the services use by default (INDEX_NAME of environment())."""
        return f"papers_{self.name_prefix.rstrip('.')}" if self.name_prefix else "papers"

    def topic(self, name: str) -> str:
        """A topic's name on the broker for services run with environment() (docs/events.md names it `name`)."""
        return self.name_prefix + name

    def group(self, name: str) -> str:
        """A consumer group's name on the broker for services run with environment()."""
        return self.name_prefix + name


def nested_pytest_env() -> dict[str, str]:
    """The environment for a pytest run a test starts: without the outer run's PYTEST_ADDOPTS, whose --basetemp (a
    measurement's, say) the inner run would empty as it starts, servers' data dirs and all."""
    return {name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"}


def ephemeral_port_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except OSError:
        return 32768


def worker_ports() -> tuple[int, int]:
    """This pytest-xdist worker's own slice of the ports below the ephemeral range: a port found free here and bound a
    moment later by a service cannot be taken meanwhile by another worker's service (a CI trial's query service port
    answered as another worker's service did)."""
    low, high = 10_000, ephemeral_port_start()
    worker, workers = os.environ.get("PYTEST_XDIST_WORKER", ""), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or workers < 2:
        return low, high
    width = (high - low) // workers
    start = low + int(worker[2:]) * width
    return start, start + width


def free_port() -> int:
    """A port free now, below the kernel's ephemeral range: a port from that range (what binding port 0 gives) can be
    handed to some client's outgoing connection before the server we start binds it."""
    low, high = worker_ports()
    for _ in range(200):
        port = random.randrange(low, high)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port below the ephemeral range")


def stack_on_free_ports(folder: Path, monitoring: bool = False, **settings: Any) -> StackSettings:
    """Settings of a local stack of its own: data under `folder`, every server on a free port; Prometheus and
    Alertmanager only when asked."""
    ports = {"kafka_port": free_port(), "mongodb_port": free_port(), "meili_port": free_port()}
    ports |= {"prometheus_port": free_port(), "alertmanager_port": free_port()}
    return StackSettings(dir=folder, monitoring=monitoring, **(ports | settings))


def broker_of(app: Any) -> Any:
    """The Kafka broker of a service's app as its create_app made it (FastStream's AsgiFastStream, or the query
    service's FastAPI app, which keeps it in its state)."""
    broker = app.state.broker if hasattr(app, "state") else app.broker
    assert broker is not None
    return broker


def publisher_of(broker: Any, topic: str) -> Any:
    """The publisher a service's create_app declared on its broker for `topic`."""
    return next(p for p in broker.publishers if p.topic == topic)


class GiveUp(Exception):
    """Raised by a condition that will never become true (a process died): `wait_until` stops at once."""


def wait_until(
    condition: Callable[[], T | None], timeout: float = 60, interval: float = 0.25, what: str = "condition"
) -> T:
    """Poll until `condition()` returns something truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = condition()
        except GiveUp:
            raise
        except Exception as exc:  # the thing waited for may not answer yet
            last_error = exc
        else:
            if result:
                return result
        time.sleep(interval)
    raise AssertionError(
        f"timed out after {timeout}s waiting for {what}" + (f" (last error: {last_error})" if last_error else "")
    )


async def wait_until_async(condition: Callable[[], Awaitable[T | None]], within: float, what: str) -> T:
    """The async twin of `wait_until`: await `condition()` until it gives something truthy."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        result = await condition()
        if result:
            return result
        await asyncio.sleep(0.25)
    raise AssertionError(f"timed out after {within}s waiting for {what}")


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception:
        return False
    return True


def _from_environment() -> Servers | None:
    names = ("KAFKA_BOOTSTRAP_SERVERS", "MONGODB_URL", "MEILI_URL", "MEILI_MASTER_KEY")
    if not all(os.environ.get(n) for n in names):
        return None
    kafka, mongodb, meili, key = (os.environ[n] for n in names)
    return Servers(kafka, mongodb, meili, key, origin="environment")


def _testcontainers() -> Iterator[Servers]:
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.wait_strategies import HttpWaitStrategy
    from testcontainers.kafka import KafkaContainer
    from testcontainers.mongodb import MongoDbContainer

    key = "papertrail-test-master-key"
    meili = (
        DockerContainer("getmeili/meilisearch:v1.21.0")
        .with_env("MEILI_MASTER_KEY", key)
        .with_env("MEILI_NO_ANALYTICS", "true")
        .with_exposed_ports(7700)
        .waiting_for(HttpWaitStrategy(7700, "/health"))
    )
    with KafkaContainer("apache/kafka:4.1.0").with_kraft() as kafka, MongoDbContainer("mongo:8.0") as mongo, meili:
        yield Servers(
            kafka.get_bootstrap_server(),
            mongo.get_connection_url(),
            f"http://{meili.get_container_host_ip()}:{meili.get_exposed_port(7700)}",
            key,
            origin="testcontainers",
        )


def _local_stack(folder: Path) -> Iterator[Servers]:
    from papertrail_tools import stack

    settings = stack_on_free_ports(folder, MEILI_MASTER_KEY="papertrail-test-master-key")
    stack.up(settings, log=lambda line: None)
    try:
        env = settings.environment()
        yield Servers(
            env["KAFKA_BOOTSTRAP_SERVERS"],
            env["MONGODB_URL"],
            env["MEILI_URL"],
            env["MEILI_MASTER_KEY"],
            origin="local stack",
        )
    finally:
        stack.down(settings, log=lambda line: None)


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


def _started_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    from_env = _from_environment()
    if from_env is not None:
        yield from_env
    elif _docker_answers():
        yield from _testcontainers()
    else:
        yield from _local_stack(tmp_path_factory.mktemp("stack"))


@pytest.fixture(scope="session")
def session_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """The servers every module of this session (of this xdist worker) shares, started at first use."""
    yield from _started_servers(tmp_path_factory)


@pytest.fixture(scope="module")
def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """Real Kafka-, MongoDB- and Meilisearch-protocol servers, under names fresh for each test module.

    The session's servers, with a name prefix of the module's own (KAFKA_NAME_PREFIX, database and index in
    environment()): a module never inherits another module's unconsumed messages or committed offsets. A module
    marked `own_stack` (one that names topics or groups as docs/events.md does, or stops servers) gets servers of
    its own, started for it and stopped after it."""
    if request.node.get_closest_marker("own_stack") is not None:
        yield from _started_servers(tmp_path_factory)
        return
    module_servers = under_fresh_names(request.getfixturevalue("session_servers"))
    yield module_servers
    _delete_topics(module_servers)


def _delete_topics(servers: Servers) -> None:
    """The module's topics deleted from the shared broker once it is done: the local stack's Kafka stand-in rewrites
    its whole state every few seconds while anything is written, so its cost grows with every topic it keeps."""
    from aiokafka.admin import AIOKafkaAdminClient

    async def delete() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=servers.kafka_bootstrap_servers, request_timeout_ms=30_000)
        await admin.start()
        try:
            ours = [topic for topic in await admin.list_topics() if topic.startswith(servers.name_prefix)]
            if ours:
                await admin.delete_topics(ours)
        finally:
            await admin.close()

    with concurrent.futures.ThreadPoolExecutor(1) as thread:  # a loop of its own, whatever runs on this thread
        thread.submit(asyncio.run, delete()).result()


def under_fresh_names(shared: Servers) -> Servers:
    """The shared servers under names no other user of them has (topics, groups, database, index)."""
    return replace(shared, name_prefix=f"t{uuid.uuid4().hex[:10]}.")


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


class Inbox:
    """What a local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))  # type: ignore[attr-defined]
        return "250 OK"


@contextmanager
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    """A real SMTP server (aiosmtpd) on a free local port; yields its inbox and port."""
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()
