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
def test_alert_rules_pass_their_unit_tests() -> None:
    """deploy/alerts/tests/*.yml: each rule fires on a failure-shaped series and stays quiet on a healthy one."""
    tests = sorted((DEPLOY / "alerts" / "tests").glob("*.yml"))
    assert tests
    result = subprocess.run([promtool, "test", "rules", *map(str, tests)], capture_output=True, text=True)  # type: ignore[list-item]
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_has_a_unit_test() -> None:
    alerts = {
        rule["alert"]
        for rules in (DEPLOY / "alerts").glob("*.yml")
        for group in yaml.safe_load(rules.read_text())["groups"]
        for rule in group["rules"]
        if "alert" in rule
    }
    tested = {
        case["alertname"]
        for tests in (DEPLOY / "alerts" / "tests").glob("*.yml")
        for test in yaml.safe_load(tests.read_text())["tests"]
        for case in test.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert alerts and not alerts - tested, f"alerts no unit test sees firing: {sorted(alerts - tested)}"


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
    for path in [*ROOT.glob("papertrail/**/*.py"), *ROOT.glob("services/**/*.py")]:
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


@needs_promtool
def test_dashboard_queries_parse(tmp_path: Path) -> None:
    """Every panel's PromQL, with Grafana's interval variables filled in, passes promtool as a recording rule."""
    rules = []
    for dashboard in sorted((DEPLOY / "grafana" / "dashboards").glob("*.json")):
        for panel in json.loads(dashboard.read_text())["panels"]:
            for target in panel.get("targets", []):
                expr = re.sub(r"\$__(rate_)?interval", "5m", target["expr"])
                rules.append({"record": f"dashboard:{dashboard.stem}:{panel['id']}{target['refId']}", "expr": expr})
    path = tmp_path / "dashboards.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}))
    result = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)  # type: ignore[list-item]
    assert result.returncode == 0, result.stdout + result.stderr


def test_dashboards_are_what_the_builder_writes() -> None:
    """deploy/grafana/build_dashboards.py is the source; the committed JSON must not drift from it."""
    import runpy

    builder = runpy.run_path(str(DEPLOY / "grafana" / "build_dashboards.py"))
    for name in ("pipeline", "sources", "summarizer", "api"):
        committed = json.loads((DEPLOY / "grafana" / "dashboards" / f"{name}.json").read_text())
        assert committed == builder[name](), f"{name}.json is stale: run deploy/grafana/build_dashboards.py"


def _panel_expr(dashboard: str, title: str) -> str:
    document = json.loads((DEPLOY / "grafana" / "dashboards" / f"{dashboard}.json").read_text())
    (found,) = [p for p in document["panels"] if p["title"] == title]
    return str(found["targets"][0]["expr"])


@needs_promtool
def test_the_5xx_share_panel_shows_zero_when_nothing_failed(tmp_path: Path) -> None:
    """Evaluated by Prometheus's engine (promtool's expression tests): requests and no 5xx is 0, not "no data";
    one failed request in ten is 10 %."""
    expr = _panel_expr("api", "5xx share (10 min)")
    case = {
        "interval": "1m",
        "input_series": [
            {"series": 'papertrail_http_requests_total{service="query", route="/api/papers", status="200"}',
             "values": "0+60x20"},
        ],
        "promql_expr_test": [{"expr": expr, "eval_time": "15m", "exp_samples": [{"labels": "{}", "value": 0}]}],
    }  # fmt: skip
    failing = {
        **case,
        "input_series": [
            *case["input_series"],
            {"series": 'papertrail_http_requests_total{service="query", route="/api/papers", status="502"}',
             "values": "0+6x20"},
        ],
        "promql_expr_test": [{"expr": expr, "eval_time": "15m", "exp_samples": [{"labels": "{}", "value": 6 / 66}]}],
    }  # fmt: skip
    path = tmp_path / "panel_test.yml"
    path.write_text(yaml.safe_dump({"rule_files": [], "tests": [case, failing]}))
    result = subprocess.run([promtool, "test", "rules", str(path)], capture_output=True, text=True)  # type: ignore[list-item]
    assert result.returncode == 0, result.stdout + result.stderr
