"""The integration modules' shared fixtures, each on the database and index the servers fixture names: the five
services as a pipeline (`pipeline`, set by a module's `pipeline` marker), the matcher as a real process, and a
MongoDB client to read what they wrote."""

from collections.abc import AsyncIterator, Iterator

import pytest
from pymongo import MongoClient

from tests.support.matching import PAPERS, index_held_paper
from tests.support.pipelines import Pipeline, preprint_then_source, running_pipeline
from tests.support.servers import Servers
from tests.support.services import running_service


@pytest.fixture(scope="module")
def pipeline(
    request: pytest.FixtureRequest, servers: Servers, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Pipeline]:
    """The five services harvesting set cs of the recorded arXiv page (running_pipeline), with the settings of the
    module's `pytest.mark.pipeline(...)`: running_pipeline's arguments, or `preprint=(record, paper_id, source_env)`
    for a preprint published and indexed before the harvester starts with `source_env(replay_url)`'s settings
    (preprint_then_source)."""
    marker = request.node.get_closest_marker("pipeline")
    settings = dict(marker.kwargs) if marker is not None else {}
    logs = tmp_path_factory.mktemp("pipeline")
    preprint = settings.pop("preprint", None)
    if preprint is not None:
        with preprint_then_source(servers, logs, *preprint) as running:
            yield running
    else:
        with running_pipeline(servers, logs, **settings) as running:
            yield running


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
