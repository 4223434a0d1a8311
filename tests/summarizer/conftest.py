"""The summarizer's tests' fixtures: the fake OpenAI-compatible server (one per module, reset per test) and a
database of its own per test on the session's MongoDB-protocol server."""

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

from tests.support.fake_openai import FakeOpenAI, running_fake_openai
from tests.support.servers import Servers


@pytest.fixture(scope="module")
def fake() -> Iterator[tuple[FakeOpenAI, str]]:
    with running_fake_openai() as served:
        yield served


@pytest.fixture
def openai_fake(fake: tuple[FakeOpenAI, str]) -> FakeOpenAI:
    fake[0].reset()
    return fake[0]


@pytest.fixture
async def db(servers: Servers) -> AsyncIterator[AsyncDatabase]:
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    name = f"summarizer_test_{uuid.uuid4().hex[:8]}"
    try:
        yield client[name]
    finally:
        await client.drop_database(name)
        await client.close()
