"""Harvester test fixtures: the replay server as a real HTTP process, a fresh MongoDB database, collectors."""

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import HarvestStatus, RawRecord
from services.harvester.settings import HarvesterSettings
from services.harvester.store import HarvestStore
from tests.conftest import FIXTURES, free_port, wait_until


@dataclass
class Replay:
    url: str

    def fault(self, **fault: Any) -> None:
        httpx.post(f"{self.url}/_replay/faults", json=fault, timeout=5).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        return list(httpx.get(f"{self.url}/_replay/requests", timeout=5).json())

    def reset(self) -> None:
        httpx.delete(f"{self.url}/_replay/requests", timeout=5).raise_for_status()


@pytest.fixture(scope="session")
def replay_server() -> Iterator[Replay]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "papertrail", "replay", "--dir", str(FIXTURES), "--port", str(port)]
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: httpx.get(f"{url}/_replay/requests").status_code == 200, timeout=30, what="replay server")
        yield Replay(url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def replay(replay_server: Replay) -> Replay:
    """The replay server with an empty request log and no pending faults."""
    replay_server.reset()
    return replay_server


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """A plain HTTP client for a source built by the test."""
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


@pytest.fixture
def settings(replay: Replay) -> HarvesterSettings:
    """Settings pointing every source at the replay server, without politeness pauses."""
    return HarvesterSettings(
        arxiv_oai_url=f"{replay.url}/oai",
        arxiv_sets=["cs"],
        arxiv_start_date="2014-10-01",
        arxiv_min_request_interval_s=0,
        acl_anthology_url=replay.url,
        acl_volumes=["2024.acl"],
        acl_min_request_interval_s=0,
        hf_api_url=replay.url,
        hf_min_request_interval_s=0,
        http_retries=3,
        http_timeout_s=10,
    )


@pytest.fixture
async def store(scratch_db: AsyncDatabase) -> HarvestStore:
    """A HarvestStore on a database of its own in the real MongoDB-protocol server."""
    store = HarvestStore(scratch_db)
    await store.ensure_indexes()
    return store


@dataclass
class Published:
    """In-memory stand-ins for the broker publishers, for tests about HTTP and checkpoints."""

    raw: list[RawRecord] = field(default_factory=list)
    statuses: list[HarvestStatus] = field(default_factory=list)

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None:
        self.raw.extend(record for record, _ in records)

    async def publish_status(self, status: HarvestStatus) -> None:
        self.statuses.append(status.model_copy())

    @property
    def ids(self) -> list[str]:
        return [r.record_id for r in self.raw]


@pytest.fixture
def published() -> Published:
    return Published()
