"""Running PaperTrail's services as real processes for integration tests, and stopping them."""

import asyncio
import os
import subprocess
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from aiokafka import AIOKafkaConsumer

from schemas import topics
from schemas.events import FollowChanged, RawRecord
from tests.conftest import FIXTURES, SOURCES, GiveUp, Servers, free_port, wait_until, wait_until_async
from tests.integration.spawner import ZYGOTE, ServiceProcess
from tests.normalizer.kafka_tools import publish_raw

ROOT = Path(__file__).resolve().parents[2]
ARXIV_CS_PAGE = SOURCES / "arxiv_oai/arXiv/invenio_sample_arxiv_response_listrecords_cs.xml"
CONSUMERS = ("query", "matcher", "summarizer", "normalizer")
PIPELINE_ORDER = (*CONSUMERS, "harvester")  # consumers before the producer


@contextmanager
def running_services(
    names: Sequence[str], env: dict[str, str], log_dir: Path, ready_timeout: float = 90
) -> Iterator[dict[str, int]]:
    """Start `papertrail <name>` for every name at once, each a process of its own (forked from the worker's zygote,
    tests/integration/spawner.py), wait until each answers /readyz, yield their ports; stop them all after. A service
    that exits while starting fails at once with its log, unless Kafka's group coordinator failed its first join:
    then it is started once more, as its supervisor would (`papertrail run`, Kubernetes)."""
    processes: dict[str, tuple[ServiceProcess, int, Path]] = {}

    def spawn(name: str, port: int, log_path: Path) -> ServiceProcess:
        return ZYGOTE.spawn([name], {**os.environ, **env, "HTTP_PORT": str(port)}, log_path)

    try:
        for name in names:
            port = free_port()
            log_path = log_dir / f"{name}.log"
            processes[name] = (spawn(name, port, log_path), port, log_path)
        for name in list(processes):
            restarted: list[str] = []

            def ready(name: str = name, restarted: list[str] = restarted) -> bool:
                process, port, log_path = processes[name]
                if process.poll() is not None:
                    log = log_path.read_text()
                    # the local broker once answered a consumer's join with an unknown error (KafkaError: UnknownError)
                    if "aiokafka.errors.KafkaError" in log and not restarted:
                        restarted.append(log)
                        log_path.write_text("")
                        processes[name] = (spawn(name, port, log_path), port, log_path)
                        return False
                    raise GiveUp(f"{name} exited: {''.join(restarted)[-1500:]}{log[-3000:]}")
                return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200

            wait_until(ready, timeout=ready_timeout, what=f"{name} /readyz")
        yield {name: port for name, (_, port, _) in processes.items()}
    finally:
        for process, _, _ in processes.values():
            if process.poll() is None:
                process.terminate()
        for process, _, _ in processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def running_service(name: str, env: dict[str, str], log_dir: Path, ready_timeout: float = 90) -> Iterator[int]:
    """One service as a real process (see running_services); yields its HTTP port."""
    with running_services([name], env, log_dir, ready_timeout) as ports:
        yield ports[name]


@contextmanager
def replay_server(folder: Path = FIXTURES) -> Iterator[str]:
    """`papertrail replay` over the recorded responses, as a real HTTP server; yields its base URL."""
    port = free_port()
    process = ZYGOTE.spawn(["replay", "--dir", str(folder), "--port", str(port)], dict(os.environ), Path(os.devnull))
    try:
        wait_until(
            lambda: httpx.get(f"http://127.0.0.1:{port}/_replay/requests").status_code == 200,
            timeout=30,
            what="replay server",
        )
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def papertrail_cli(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`python -m papertrail ARGS` as an operator runs it, against the given environment."""
    done = ZYGOTE.run(list(args), {**os.environ, **env})
    if check:
        done.check_returncode()
    return done


def create_user(env: dict[str, str], name: str) -> str:
    """A user made as an operator makes one (`papertrail users create`); returns the token it prints."""
    return papertrail_cli(env, "users", "create", name).stdout.strip().splitlines()[-1]


def unparseable_arxiv_record() -> RawRecord:
    """A raw arXiv record the normalizer cannot read (no metadata): parked as a dead letter, key arxiv:9999.99999."""
    return RawRecord(
        source="arxiv",
        record_id="9999.99999",
        format="arXiv",
        content="<record/>",
        sha256="0" * 64,
        run_id="test",
        harvested_at=datetime(2026, 11, 30, tzinfo=UTC),
    )


@dataclass
class Pipeline:
    env: dict[str, str]
    ports: dict[str, int]
    logs: Path
    replay_url: str

    def url(self, service: str, path: str) -> str:
        return f"http://127.0.0.1:{self.ports[service]}{path}"

    def topic(self, name: str) -> str:
        """A topic's name on the broker for this pipeline's services (KAFKA_NAME_PREFIX of its environment)."""
        return self.env.get("KAFKA_NAME_PREFIX", "") + name


@contextmanager
def running_pipeline(
    servers: Servers,
    logs: Path,
    before_harvest: Callable[[Pipeline], None] | None = None,
    ready_timeout: float = 90,
    **extra_env: str,
) -> Iterator[Pipeline]:
    """The five services on a fresh database and index, the harvester reading set cs of the recorded arXiv
    page from the replay server. `before_harvest` runs once the consumers are ready (to create follows, publish
    records the harvest meets, or add the harvester's settings to `pipeline.env`: it starts with them)."""
    run = uuid.uuid4().hex[:8]
    with ExitStack() as stack:
        replay_url = stack.enter_context(replay_server())
        env = (
            servers.environment()
            | {
                "MONGODB_DATABASE": f"papertrail_it_{run}",
                "INDEX_NAME": f"papers_it_{run}",
                "TOPIC_PARTITIONS": "3",
                "ARXIV_OAI_URL": f"{replay_url}/oai",
                "ARXIV_METADATA_PREFIX": "arXiv",
                "ARXIV_SETS": '["cs"]',
                "ARXIV_START_DATE": "2015-01-16",
                "ARXIV_MIN_REQUEST_INTERVAL_S": "0",
                "ARXIV_INTERVAL_S": "3600",
                "SOURCES": '["arxiv"]',
            }
            | extra_env
        )
        pipeline = Pipeline(env=env, ports={}, logs=logs, replay_url=replay_url)
        # The consumers start together; the harvester only once they listen (and follows exist, if any).
        pipeline.ports.update(stack.enter_context(running_services(CONSUMERS, env, logs, ready_timeout)))
        if before_harvest is not None:
            before_harvest(pipeline)
        harvester = running_services(["harvester"], pipeline.env, logs, ready_timeout)
        pipeline.ports.update(stack.enter_context(harvester))
        yield pipeline


@contextmanager
def preprint_then_source(
    servers: Servers, logs: Path, preprint: RawRecord, paper_id: str, source_env: Callable[[str], dict[str, str]]
) -> Iterator[Pipeline]:
    """The five services; the preprint published and indexed before the harvester starts with the settings
    `source_env(replay_url)` gives: a published-record source (PMLR, OpenReview) that meets the preprint held."""

    def preprint_first(pipeline: Pipeline) -> None:
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, pipeline.topic(topics.HARVEST_RAW), [preprint]))
        wait_until(lambda: api_paper(pipeline, paper_id).get("searchable"), timeout=120, what="the preprint indexed")
        assert api_paper(pipeline, paper_id)["status"] == "preprint"
        pipeline.env |= source_env(pipeline.replay_url)

    with running_pipeline(servers, logs, before_harvest=preprint_first) as running:
        yield running


def api_paper(pipeline: Pipeline, paper_id: str) -> dict[str, Any]:
    """The API's paper by any of its ids; empty while it does not know it."""
    response = httpx.get(pipeline.url("query", f"/api/papers/{paper_id}"), timeout=10)
    return response.json() if response.status_code == 200 else {}


def published_and_indexed(pipeline: Pipeline, paper_id: str) -> dict[str, Any]:
    """The API's paper once it is published and searchable; empty before."""
    paper = api_paper(pipeline, paper_id)
    return paper if paper.get("status") == "published" and paper.get("searchable") else {}


def api_paper_ids(pipeline: Pipeline, **params: Any) -> set[str]:
    """The ids of the papers the API's search finds with these parameters (the first 100)."""
    response = httpx.get(pipeline.url("query", "/api/papers"), params={"size": 100, **params}, timeout=10)
    assert response.status_code == 200, response.text
    return {hit["paper_id"] for hit in response.json()["hits"]}


async def deleted_follow_announced(servers: Servers, follow_id: str) -> bool:
    """Whether the deletion of the follow is on follows.changed.v1 (from the topic's start) within 30 s."""
    consumer = AIOKafkaConsumer(
        servers.topic(topics.FOLLOWS_CHANGED),
        bootstrap_servers=servers.kafka_bootstrap_servers,
        auto_offset_reset="earliest",
        group_id=None,
    )
    await consumer.start()
    seen: list[FollowChanged] = []
    try:

        async def announced() -> bool:
            for records in (await consumer.getmany(timeout_ms=500)).values():
                seen.extend(FollowChanged.model_validate_json(r.value) for r in records if r.value)
            return any(c.follow_id == follow_id and c.action == "deleted" for c in seen)

        return await wait_until_async(announced, 30, f"the deletion of {follow_id} on {topics.FOLLOWS_CHANGED}")
    finally:
        await consumer.stop()


@contextmanager
def indexed_records(servers: Servers, records: Sequence[RawRecord], logs: Path, label: str) -> Iterator[str]:
    """The normalizer, summarizer and query services on a fresh database and index, once they indexed every paper
    of these raw records (published as the harvester does); yields the query service's URL."""
    from tests.normalizer.kafka_tools import publish_raw

    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_{label}_{run}",
        "INDEX_NAME": f"papers_{label}_{run}",
        "TOPIC_PARTITIONS": "1",
    }
    papers = len({(r.source, r.record_id) for r in records})
    with running_services(["normalizer", "summarizer", "query"], env, logs) as ports:
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), list(records)))
        url = f"http://127.0.0.1:{ports['query']}"
        wait_until(
            lambda: httpx.get(f"{url}/api/papers", params={"size": 1}, timeout=10).json()["total"] == papers,
            timeout=120,
            what="the papers indexed",
        )
        yield url
