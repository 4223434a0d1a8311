"""deploy/: Prometheus config and alert rules pass promtool; dashboards are valid JSON over metrics that exist."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
ROOT = DEPLOY.parent
promtool = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(promtool is None, reason="promtool missing (Debian package prometheus)")


@needs_promtool
def test_alert_rules_pass_promtool() -> None:
    files = sorted((DEPLOY / "alerts").glob("*.yml"))
    assert files
    result = subprocess.run([promtool, "check", "rules", *map(str, files)], capture_output=True, text=True)  # type: ignore[list-item]
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_prometheus_config_passes_promtool() -> None:
    result = subprocess.run(
        [promtool, "check", "config", "--syntax-only", str(DEPLOY / "prometheus.yml")],  # type: ignore[list-item]
        capture_output=True,
        text=True,
        cwd=DEPLOY,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _defined_metrics() -> set[str]:
    """Metric names the code defines (Counter / Gauge / Histogram first arguments)."""
    names: set[str] = set()
    for path in [*ROOT.glob("papertrail/*.py"), *ROOT.glob("services/**/*.py")]:
        names.update(re.findall(r'(?:Counter|Gauge|Histogram|Summary)\(\s*"(papertrail_[a-z0-9_]+)"', path.read_text()))
    return names


def _referenced(expression: str) -> set[str]:
    found = set(re.findall(r"papertrail_[a-z0-9_]+", expression))
    return {re.sub(r"_(total|bucket|count|sum|created)$", "", name) for name in found}


def test_dashboards_and_alerts_use_metrics_the_services_define() -> None:
    defined = _defined_metrics()
    expressions = []
    for dashboard in (DEPLOY / "grafana" / "dashboards").glob("*.json"):
        document = json.loads(dashboard.read_text())
        assert document.get("title") and document.get("panels"), dashboard.name
        expressions += [t["expr"] for p in document["panels"] for t in p.get("targets", []) if "expr" in t]
    for rules in (DEPLOY / "alerts").glob("*.yml"):
        for group in yaml.safe_load(rules.read_text())["groups"]:
            expressions += [rule["expr"] for rule in group["rules"]]
    missing = {name for expression in expressions for name in _referenced(expression)} - {
        re.sub(r"_total$", "", n) for n in defined
    }
    assert not missing, f"dashboards or alerts use metrics no service defines: {sorted(missing)}"
