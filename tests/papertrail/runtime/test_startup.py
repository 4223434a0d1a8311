"""A bad setting or an unusable dependency stops a service at start with the setting's name, no traceback."""

import asyncio
import os
import subprocess
import sys
import uuid

import pytest
from pymongo import AsyncMongoClient, MongoClient

from papertrail.embedding.embedder import EmbeddingSettings
from services.summarizer.store import VectorStore, search_vectors
from tests.support.servers import Servers, free_port


def _start(service: str, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """The service run to its end. Generous: importing the query service alone takes 3 s of CPU on an idle core, and
    a fresh clone's CI runs four test workers on two cores (it once took over 60 s to stop)."""
    return subprocess.run(
        [sys.executable, "-m", "papertrail", service],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_invalid_setting_names_the_variable() -> None:
    result = _start("normalizer", {"TOPIC_PARTITIONS": "0"})
    assert result.returncode != 0
    assert "TOPIC_PARTITIONS" in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_bootstrap_servers_names_the_variable() -> None:
    result = _start("summarizer", {"KAFKA_BOOTSTRAP_SERVERS": "no-port-here"})
    assert result.returncode != 0
    assert "KAFKA_BOOTSTRAP_SERVERS" in result.stderr and "Traceback" not in result.stderr


def test_unknown_source_names_the_variable() -> None:
    result = _start("harvester", {"SOURCES": '["gopher"]'})
    assert result.returncode != 0
    assert "SOURCES" in result.stderr and "gopher" in result.stderr


def test_production_with_the_public_meilisearch_key_or_no_site_secret_stops_naming_them() -> None:
    """PAPERTRAIL_ENV=production (the image's) takes neither the key in this repository nor an API without its own
    site secret; the secret's value is never echoed."""
    production = {"PAPERTRAIL_ENV": "production", "KAFKA_BOOTSTRAP_SERVERS": f"127.0.0.1:{free_port()}"}
    matcher = _start("matcher", production | {"MEILI_MASTER_KEY": "papertrail-local-master-key"})
    assert matcher.returncode != 0 and "MEILI_MASTER_KEY" in matcher.stderr and "is public" in matcher.stderr
    query = _start("query", production | {"MEILI_MASTER_KEY": "an-own-key-of-some-length"})
    assert query.returncode != 0 and "SITE_SECRET" in query.stderr and "required" in query.stderr
    short = _start("query", production | {"MEILI_MASTER_KEY": "an-own-key", "SITE_SECRET": "hunter2"})
    assert "SITE_SECRET" in short.stderr and "hunter2" not in short.stderr
    assert "Traceback" not in matcher.stderr + query.stderr + short.stderr


def test_unreachable_broker_names_the_variable() -> None:
    port = free_port()  # nothing listens there
    result = _start("matcher", {"KAFKA_BOOTSTRAP_SERVERS": f"127.0.0.1:{port}", "STARTUP_TIMEOUT_S": "3"})
    assert result.returncode != 0
    assert f"KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.integration
def test_wrong_meilisearch_key_names_the_variable(servers: Servers) -> None:
    env = servers.environment() | {"MEILI_MASTER_KEY": "not-the-key-at-all", "STARTUP_TIMEOUT_S": "5"}
    result = _start("query", env)
    assert result.returncode != 0
    assert "MEILI_MASTER_KEY" in result.stderr and "rejected" in result.stderr
    assert "not-the-key-at-all" not in result.stderr  # the secret is not printed
    assert "Traceback" not in result.stderr


@pytest.mark.integration
def test_unreachable_mongodb_names_the_variable(servers: Servers) -> None:
    env = servers.environment() | {"MONGODB_URL": f"mongodb://127.0.0.1:{free_port()}", "STARTUP_TIMEOUT_S": "2"}
    result = _start("normalizer", env)
    assert result.returncode != 0
    assert "MONGODB_URL=" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.integration
@pytest.mark.parametrize("service", ["matcher", "query"])
def test_an_embedding_model_other_than_the_vectors_stops_the_service_naming_both(
    servers: Servers, service: str
) -> None:
    """The summarizer recorded the model it makes paper_vectors with; a reader with another model would find no
    vector of its own: it stops at start naming both."""
    database = f"papertrail_startup_{uuid.uuid4().hex[:10]}"
    summarizers = EmbeddingSettings(embedding_max_tokens=128).model_key
    client: MongoClient = MongoClient(servers.mongodb_url)
    try:
        asyncio.run(_record_model(servers.mongodb_url, database, summarizers))
        env = servers.environment() | {"MONGODB_DATABASE": database, "STARTUP_TIMEOUT_S": "10"}
        result = _start(service, env)
    finally:
        client.drop_database(database)
        client.close()
    assert result.returncode != 0
    mine = EmbeddingSettings().model_key
    assert f"embedding model is {mine}" in result.stderr and f"paper_vectors with {summarizers}" in result.stderr
    assert "EMBEDDING_*" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.integration
def test_a_query_service_searching_vectors_the_summarizer_does_not_make_stops_naming_the_setting(
    servers: Servers,
) -> None:
    """The summarizer recorded that it makes no search vectors (SEARCH_EMBEDDING_MODEL=none); a query service that
    would search them in Chinese would find nothing: it stops at start naming the setting."""
    database = f"papertrail_startup_{uuid.uuid4().hex[:10]}"
    client: MongoClient = MongoClient(servers.mongodb_url)
    try:
        asyncio.run(_record_model(servers.mongodb_url, database, EmbeddingSettings().model_key, search="none"))
        env = servers.environment() | {
            "MONGODB_DATABASE": database,
            "STARTUP_TIMEOUT_S": "10",
            "SEARCH_EMBEDDING_MODEL": "multilingual-e5-small-q4",
        }
        result = _start("query", env)
    finally:
        client.drop_database(database)
        client.close()
    assert result.returncode != 0
    assert "SEARCH_EMBEDDING_MODEL" in result.stderr and "makes no search vectors" in result.stderr
    assert "Traceback" not in result.stderr


async def _record_model(url: str, database: str, model_key: str, search: str | None = None) -> None:
    """What the summarizer's start records (services/summarizer/app.py, prepare)."""
    client: AsyncMongoClient = AsyncMongoClient(url)
    try:
        await VectorStore(client[database]).record_model(model_key)
        if search is not None:
            await search_vectors(client[database]).record_model(search)
    finally:
        await client.close()
