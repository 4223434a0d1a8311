"""Harvester test fixtures: the replay server as a real HTTP process, a fresh MongoDB database, collectors."""

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from pymongo.asynchronous.database import AsyncDatabase

from services.harvester.settings import HarvesterSettings
from services.harvester.store import HarvestStore
from tests.support.fakes import Published
from tests.support.replay import Replay
from tests.support.replay import replay_server as start_replay_server


@pytest.fixture(scope="session")
def replay_server() -> Iterator[Replay]:
    with start_replay_server() as replay:
        yield replay


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


@pytest.fixture
def published() -> Published:
    return Published()
