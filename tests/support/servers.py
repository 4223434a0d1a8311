"""Real Kafka-, MongoDB- and Meilisearch-protocol servers for tests: from environment variables that point at running
servers (KAFKA_BOOTSTRAP_SERVERS, MONGODB_URL, MEILI_URL, MEILI_MASTER_KEY); else testcontainers when a Docker engine
answers; else the project's local stack started on free ports in a temporary folder. Also the free ports services
are started on. tests/conftest.py's `session_servers` and `servers` fixtures hand these out."""

import asyncio
import concurrent.futures
import os
import random
import socket
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from papertrail_tools.stack import StackSettings


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
            # embedding at the services' own priority: the test workers share the cores, and a summarizer embedding
            # below the other worker's load would only make a flow wait (the nice itself: test_local_model.py)
            "EMBEDDING_NICE": "0",
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


def delete_topics(servers: Servers) -> None:
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


def started_servers(folder: Callable[[], Path]) -> Iterator[Servers]:
    """Servers from the environment, else testcontainers, else a local stack with its data in `folder()`."""
    from_env = _from_environment()
    if from_env is not None:
        yield from_env
    elif _docker_answers():
        yield from _testcontainers()
    else:
        yield from _local_stack(folder())
