"""A bad setting or an unusable dependency stops a service at start with the setting's name, no traceback."""

import os
import subprocess
import sys

import pytest

from tests.conftest import Servers, free_port


def _start(service: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
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
