"""Fixtures of the integration modules that share one: the matcher as a real process on the module's servers (its
database and index those the servers fixture names), and a MongoDB client to read what it wrote."""

from collections.abc import AsyncIterator, Iterator

import pytest
from pymongo import MongoClient

from tests.support.matching import PAPERS, index_held_paper
from tests.support.servers import Servers
from tests.support.services import running_service


@pytest.fixture(scope="module")
async def matcher(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[dict]:
    """The matcher, one paper already indexed (what a backfill finds); yields its environment and port."""
    env = servers.environment() | {
        "TOPIC_PARTITIONS": "3",
        "DIGEST_ENABLED": "false",
        "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",  # the tests' receivers are local: allowed, as an operator would
    }
    await index_held_paper(servers, servers.index, PAPERS["arxiv:2605.01386"])
    with running_service("matcher", env, tmp_path_factory.mktemp("matcher-logs")) as port:
        yield {"env": env, "port": port}


@pytest.fixture(scope="module")
def mongo(servers: Servers) -> Iterator[MongoClient]:
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    yield client
    client.close()
