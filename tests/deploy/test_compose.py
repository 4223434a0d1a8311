"""docker-compose.yml without a Docker engine: the structure compose needs, checked against the compose spec's
rules that matter here (keys, restarts, health checks, dependency conditions, scalable services, mounted files), and
the services' health check command run against a real service."""

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from tests.support.servers import Servers, free_port
from tests.support.services import running_service

ROOT = Path(__file__).resolve().parents[2]
PAPERTRAIL = ("harvester", "normalizer", "summarizer", "matcher", "query")
SCALABLE = ("normalizer", "matcher")
PROCESSES = {"query": ["query", "query-worker"]}  # a service's compose services, when it runs as more than one
# compose-spec schema/compose-spec.json, definitions.service.properties used by this file
SERVICE_KEYS = {
    "build", "image", "restart", "stop_grace_period", "depends_on", "healthcheck", "command", "environment",
    "ports", "volumes", "scale", "deploy", "container_name",
}  # fmt: skip
HEALTHCHECK_KEYS = {"test", "interval", "timeout", "retries", "start_period", "start_interval", "disable"}
CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
DURATION = re.compile(r"^(\d+(ms|s|m|h))+$")


def _compose() -> dict[str, Any]:
    document = yaml.safe_load((ROOT / "docker-compose.yml").read_text())  # merge keys (<<) resolved by PyYAML
    assert isinstance(document, dict)
    return document


def test_every_service_restarts_and_has_a_health_check() -> None:
    services = _compose()["services"]
    assert set(PAPERTRAIL) | {"kafka", "mongo", "meilisearch", "prometheus", "grafana"} <= set(services)
    for name, service in services.items():
        assert set(service) <= SERVICE_KEYS, f"{name}: keys compose does not know: {set(service) - SERVICE_KEYS}"
        # a crashed or killed container comes back; one stopped by hand stays stopped
        assert service["restart"] == "unless-stopped", name
        check = service["healthcheck"]
        assert set(check) <= HEALTHCHECK_KEYS and check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert all(DURATION.match(check[k]) for k in ("interval", "timeout", "start_period") if k in check), name


def test_dependencies_wait_for_health_and_exist() -> None:
    services = _compose()["services"]
    for name, service in services.items():
        for dependency, rule in (service.get("depends_on") or {}).items():
            assert dependency in services, f"{name} depends on unknown {dependency}"
            assert rule["condition"] in CONDITIONS and "healthcheck" in services[dependency], (name, dependency)
    for name in PAPERTRAIL:
        assert set(services[name]["depends_on"]) == {"kafka", "mongo", "meilisearch"}
        assert "readyz" in " ".join(services[name]["healthcheck"]["test"]), name


def test_normalizer_and_matcher_can_run_two_replicas() -> None:
    services = _compose()["services"]
    for name in SCALABLE:
        service = services[name]
        # a fixed container name or host port would make the second replica fail to start
        assert "container_name" not in service and "ports" not in service, name
        assert re.fullmatch(r"\$\{[A-Z_]+:-1\}", str(service["scale"])), name
    prometheus = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in prometheus["scrape_configs"]}
    for name in PAPERTRAIL:
        # DNS discovery: one target per replica, on the port the service listens on
        (dns,) = jobs[name]["dns_sd_configs"]
        assert dns["names"] == PROCESSES.get(name, [name]), name
        assert all(str(dns["port"]) == services[n]["environment"]["HTTP_PORT"] for n in dns["names"]), name


def test_query_runs_as_an_api_and_a_worker() -> None:
    """Consumers and background jobs in the worker only: the API's process (with the host port) runs neither."""
    services = _compose()["services"]
    roles = {name: services[name]["environment"]["QUERY_ROLE"] for name in PROCESSES["query"]}
    assert roles == {"query": "api", "query-worker": "worker"}
    assert services["query-worker"]["command"] == services["query"]["command"] == ["query"]
    assert "ports" not in services["query-worker"]


def test_mounted_deploy_files_exist() -> None:
    services = _compose()["services"]
    for name in ("prometheus", "grafana"):
        for volume in services[name]["volumes"]:
            source = volume.split(":")[0]
            if source.startswith("./"):
                assert (ROOT / source).exists(), f"{name} mounts missing {source}"
    assert {p.stem for p in (ROOT / "deploy/grafana/dashboards").glob("*.json")} >= {
        "pipeline",
        "sources",
        "summarizer",
        "api",
    }


@pytest.mark.integration
def test_the_services_health_check_passes_when_ready_and_fails_when_not_listening(
    servers: Servers, tmp_path: Path
) -> None:
    """The command compose runs in the image (python, no curl), run here against a real normalizer."""
    services = _compose()["services"]
    checks = {tuple(services[name]["healthcheck"]["test"]) for name in PAPERTRAIL}
    (check,) = checks  # one command for all five: the port comes from each container's HTTP_PORT
    kind, program, *arguments = check
    assert (kind, program) == ("CMD", "python")

    def health_check(port: int) -> int:
        environment = {**os.environ, "HTTP_PORT": str(port)}
        return subprocess.run([sys.executable, *arguments], env=environment, capture_output=True, timeout=30).returncode

    with running_service("normalizer", servers.environment(), tmp_path) as port:
        assert health_check(port) == 0
    assert health_check(free_port()) != 0


class Refused(Exception):
    """compose refuses to start: a `${NAME:?message}` variable is unset or empty."""


def interpolated(value: str, env: dict[str, str]) -> str:
    """A compose value as compose reads it with this environment (`${NAME}`, `${NAME:-default}`, `${NAME:?message}`:
    the forms this file uses)."""

    def one(found: re.Match[str]) -> str:
        name, form, rest = found[1], found[2], found[3]
        if env.get(name):
            return env[name]
        if form == ":?":
            raise Refused(f"{name}: {rest}")
        return rest if form == ":-" else ""

    return re.sub(r"\$\{([A-Z_]+)(?:(:-|:\?)([^}]*))?\}", one, value)


def test_the_query_api_is_published_on_this_host_only_unless_an_address_is_given() -> None:
    (published,) = _compose()["services"]["query"]["ports"]
    assert interpolated(published, {}) == "127.0.0.1:8000:8000"
    assert interpolated(published, {"QUERY_PUBLISH_ADDRESS": "0.0.0.0"}) == "0.0.0.0:8000:8000"
    for name, service in _compose()["services"].items():  # nothing else is published beyond this host either
        for port in service.get("ports", []):
            assert interpolated(port, {}).startswith("127.0.0.1:"), (name, port)


def test_compose_refuses_to_start_without_a_meilisearch_key_and_a_site_secret_of_its_own() -> None:
    """The image runs in production (the Dockerfile's PAPERTRAIL_ENV), and Meilisearch with MEILI_ENV=production:
    the public local key, the old default, is no default any more, nor is a site secret."""
    services = _compose()["services"]
    assert "papertrail-local-master-key" not in (ROOT / "docker-compose.yml").read_text()
    wanted = {name: ["MEILI_MASTER_KEY"] for name in (*PAPERTRAIL, "query-worker", "meilisearch")}
    wanted["query"].append("SITE_SECRET")
    for name, variables in wanted.items():
        for variable in variables:
            with pytest.raises(Refused, match=variable):
                interpolated(services[name]["environment"][variable], {})
            given = interpolated(services[name]["environment"][variable], {variable: "k" * 48})
            assert given == "k" * 48, (name, variable)
    assert services["meilisearch"]["environment"]["MEILI_ENV"] == "production"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^ENV PAPERTRAIL_ENV=production\b", dockerfile, re.MULTILINE)
