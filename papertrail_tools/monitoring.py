"""The local stack's Prometheus and Alertmanager, from the machine's own packages (Debian `prometheus` and
`prometheus-alertmanager`): Prometheus scrapes the five services and evaluates `deploy/alerts/`, Alertmanager
receives what fires. Without the packages the stack runs without them.

Each service is a job of its own named after it, as in `deploy/prometheus.yml`, so the dashboards and alert rules
work unchanged; its address comes from a file-discovery file per job (`<stack>/prometheus/targets/<job>.json`),
which Prometheus re-reads when it changes: `stack up` writes the services' default ports, and `papertrail run
--port-offset N` on this stack writes the ports it gives them.
"""

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from papertrail.runtime.settings import InfraSettings
from papertrail_ops.roster import SERVICES, service_port
from papertrail_tools.stack_settings import Server, StackSettings, read_pid

ALERT_RULES = Path(__file__).resolve().parents[1] / "deploy" / "alerts"
PACKAGES = {"prometheus": "prometheus", "alertmanager": "prometheus-alertmanager"}
BINARIES = {"prometheus": ("prometheus",), "alertmanager": ("prometheus-alertmanager", "alertmanager")}


def binary(name: str) -> str | None:
    """The installed program of `prometheus` or `alertmanager` (Debian names it prometheus-alertmanager)."""
    return next((found for program in BINARIES[name] if (found := shutil.which(program))), None)


def missing_packages() -> list[str]:
    return [PACKAGES[name] for name in PACKAGES if binary(name) is None]


def url(settings: StackSettings, name: str = "prometheus") -> str:
    port = settings.prometheus_port if name == "prometheus" else settings.alertmanager_port
    return f"http://{settings.host}:{port}/"


def prometheus_config(settings: StackSettings, folder: Path, alertmanager: bool) -> dict[str, object]:
    interval = f"{settings.scrape_interval_s:g}s"
    itself = [f"{settings.host}:{settings.prometheus_port}"]
    config: dict[str, object] = {
        "global": {"scrape_interval": interval, "evaluation_interval": interval},
        "rule_files": [str(ALERT_RULES / "*.yml")],
        "scrape_configs": [
            *(
                {"job_name": job, "file_sd_configs": [{"files": [str(folder / "targets" / f"{job}.json")]}]}
                for job in _service_ports()
            ),
            {"job_name": "prometheus", "static_configs": [{"targets": itself}]},
        ],
    }
    if alertmanager:
        targets = [f"{settings.host}:{settings.alertmanager_port}"]
        config["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": targets}]}]}
    return config


# Alerts are kept and shown (http://127.0.0.1:9093/); a real receiver (mail, chat) is an operator's choice.
ALERTMANAGER_CONFIG = {
    "route": {"receiver": "local", "group_by": ["alertname", "service"]},
    "receivers": [{"name": "local"}],
}


def _write(path: Path, document: object) -> None:
    """Write JSON (which Prometheus reads as YAML) at once: Prometheus may read a target file while it changes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(part, path)


def write_targets(settings: StackSettings, ports: Mapping[str, int]) -> None:
    """Point Prometheus's job of each service at the port it listens on."""
    for job, port in ports.items():
        _write(settings.dir.resolve() / "prometheus" / "targets" / f"{job}.json", [{"targets": [f"127.0.0.1:{port}"]}])


def _service_ports() -> dict[str, int]:
    return {name: service_port(name) for name in SERVICES}


def servers(settings: StackSettings) -> list[Server]:
    """Prometheus and Alertmanager as stack servers, those installed, with their configuration written."""
    root = settings.dir.resolve()
    prometheus, alertmanager = binary("prometheus"), binary("alertmanager")
    found = []
    if alertmanager:
        folder = root / "alertmanager"
        _write(folder / "alertmanager.json", ALERTMANAGER_CONFIG)
        command = [alertmanager, f"--config.file={folder / 'alertmanager.json'}", f"--storage.path={folder / 'data'}",
                   f"--web.listen-address={settings.host}:{settings.alertmanager_port}",
                   "--cluster.listen-address="]  # fmt: skip  # one instance: no gossip port
        found.append(Server("alertmanager", command, settings.alertmanager_port, ready_path="/-/ready"))
    if prometheus:
        folder = root / "prometheus"
        _write(folder / "prometheus.json", prometheus_config(settings, folder, alertmanager is not None))
        if not (folder / "targets").exists():  # a running `papertrail run` may have written its own
            write_targets(settings, _service_ports())
        command = [prometheus, f"--config.file={folder / 'prometheus.json'}", f"--storage.tsdb.path={folder / 'data'}",
                   f"--web.listen-address={settings.host}:{settings.prometheus_port}"]  # fmt: skip
        found.append(Server("prometheus", command, settings.prometheus_port, ready_path="/-/ready"))
    return found


def follow_run(infra: InfraSettings, ports: Mapping[str, int]) -> str | None:
    """When the local stack's Prometheus runs and these services use that stack, point it at their ports and
    return its address; otherwise leave it alone (a test's services on other servers must not take its targets)."""
    stack = StackSettings()
    if read_pid(stack.dir.resolve() / "prometheus.pid") is None:
        return None
    if infra.kafka_bootstrap_servers != stack.environment()["KAFKA_BOOTSTRAP_SERVERS"]:
        return None
    write_targets(stack, ports)
    return url(stack)
