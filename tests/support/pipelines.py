"""The five services as a pipeline of real processes over the recorded arXiv page, and what tests ask of it."""

import asyncio
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
from tests.support.kafka import publish_raw
from tests.support.paths import SOURCES
from tests.support.replay import replay_server
from tests.support.servers import Servers
from tests.support.services import running_services
from tests.support.waiting import wait_until, wait_until_async

ARXIV_CS_PAGE = SOURCES / "arxiv_oai/arXiv/invenio_sample_arxiv_response_listrecords_cs.xml"
CONSUMERS = ("query", "matcher", "summarizer", "normalizer")
PIPELINE_ORDER = (*CONSUMERS, "harvester")  # consumers before the producer


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
    """The five services on the servers' database and index, the harvester reading set cs of the recorded arXiv
    page from the replay server. `before_harvest` runs once the consumers are ready (to create follows, publish
    records the harvest meets, or add the harvester's settings to `pipeline.env`: it starts with them)."""
    with ExitStack() as stack:
        replay_url = stack.enter_context(replay_server()).url
        env = (
            servers.environment()
            | {
                "MONGODB_DATABASE": servers.database,
                "INDEX_NAME": servers.index,
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
def indexed_records(servers: Servers, records: Sequence[RawRecord], logs: Path) -> Iterator[str]:
    """The normalizer, summarizer and query services on the servers' database and index, once they indexed every
    paper of these raw records (published as the harvester does); yields the query service's URL."""
    env = servers.environment() | {
        "MONGODB_DATABASE": servers.database,
        "INDEX_NAME": servers.index,
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
