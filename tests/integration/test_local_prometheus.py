"""The local stack's Prometheus (Debian's package, started by `papertrail stack up`) scraping a real pipeline that
handles real fixture data: every dashboard panel's query answers without error, and no panel is empty when the
run produced the metrics it shows; every alert rule evaluates; Alertmanager receives; the services' logs are free
of per-message and third-party chatter."""

import asyncio
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import yaml  # type: ignore[import-untyped]

from papertrail.runtime.settings import InfraSettings
from papertrail_tools import monitoring, stack
from schemas import topics
from services.harvester.sources.oai import parse_oai_page
from tests.support.fake_openai import running_fake_openai
from tests.support.paths import FIXTURES, ROOT
from tests.support.pipelines import ARXIV_CS_PAGE, Pipeline, running_pipeline
from tests.support.servers import Servers, stack_on_free_ports
from tests.support.services import papertrail_cli
from tests.support.waiting import wait_until

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        monitoring.binary("prometheus") is None, reason="prometheus missing (Debian package prometheus)"
    ),
]

DASHBOARDS = ROOT / "deploy" / "grafana" / "dashboards"
ALERTS = ROOT / "deploy" / "alerts"
CORPUS_LINES = FIXTURES / "summarizer" / "corpus-2026-05-05.jsonl"  # real listing lines the fake model knows
# Grafana's own interval variables; the run lasts a couple of minutes and Prometheus scrapes every second
GRAFANA_INTERVALS = {"$__rate_interval": "1m", "$__interval": "1m", "$__range": "5m"}


@dataclass
class Run:
    stack: stack.StackSettings
    prometheus: str
    pipeline: Pipeline
    started: float
    finished: float


def prometheus_api(base: str, path: str, **params: Any) -> Any:
    answer = httpx.get(f"{base}api/v1/{path}", params=params, timeout=30).json()
    if answer["status"] != "success":
        raise AssertionError(f"{path} {params}: {answer.get('errorType')}: {answer.get('error')}")
    return answer["data"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """A local stack with Prometheus (scraping every second) and Alertmanager; the five services on it with a
    model endpoint, harvesting the recorded arXiv page; then real corpus lines imported, a malformed raw record,
    and API requests (a search, a paper, a paper that does not exist)."""
    settings = stack_on_free_ports(tmp_path_factory.mktemp("stack"), monitoring=True, scrape_interval_s=1)
    stack.up(settings, log=lambda line: None)
    try:
        env = settings.environment()
        servers = Servers(env["KAFKA_BOOTSTRAP_SERVERS"], env["MONGODB_URL"], env["MEILI_URL"],
                          env["MEILI_MASTER_KEY"], origin="local stack")  # fmt: skip
        with (
            running_fake_openai() as (_, openai_url),
            running_pipeline(
                servers,
                tmp_path_factory.mktemp("logs"),
                OPENAI_BASE_URL=openai_url,
                OPENAI_API_KEY="test-key",
                OPENAI_MODEL="fake-model",
                ARXIV_INTERVAL_S="10",  # runs while scraped too: the first one is over before the first scrape
            ) as pipeline,
        ):
            prometheus = monitoring.url(settings)
            monitoring.write_targets(settings, pipeline.ports)
            started = time.time()
            try:
                wait_until(lambda: _all_up(prometheus), timeout=60, what="Prometheus to scrape the five services")
            except AssertionError as error:
                targets = prometheus_api(prometheus, "targets")["activeTargets"]
                seen = [(t["labels"]["job"], t["scrapeUrl"], t["health"], t["lastError"]) for t in targets]
                raise AssertionError(f"{error}; targets: {seen}") from error
            _drive(pipeline)
            wait_until(lambda: _harvested_while_scraped(prometheus), timeout=60, what="a harvest run while scraped")
            # the readers' requests come last: a rate needs two scrapes of their series before the run's window ends
            wait_until(lambda: _rate_of_answers(prometheus), timeout=30, what="two scrapes of the API's 404s")
            finished = time.time()
            wait_until(lambda: _scraped_since(prometheus, finished + 2), timeout=30, what="scrapes after the run")
            yield Run(settings, prometheus, pipeline, started, time.time())
    finally:
        stack.down(settings, log=lambda line: None)


def _all_up(prometheus: str) -> bool:
    up = prometheus_api(prometheus, "query", query='up{job=~"harvester|normalizer|summarizer|matcher|query"} == 1')
    return len(up["result"]) == 5


def _harvested_while_scraped(prometheus: str) -> bool:
    runs = prometheus_api(prometheus, "query", query="sum(increase(papertrail_harvest_runs_total[5m])) > 0")
    return bool(runs["result"])


def _rate_of_answers(prometheus: str) -> bool:
    query = 'rate(papertrail_http_requests_total{service="query", status="404"}[1m])'
    return bool(prometheus_api(prometheus, "query", query=query)["result"])


def _scraped_since(prometheus: str, moment: float) -> bool:
    latest = prometheus_api(prometheus, "query", query='min(timestamp(up{job="query"}))')["result"]
    return bool(latest) and float(latest[0]["value"][1]) >= moment


def _drive(pipeline: Pipeline) -> None:
    """Real data through every stage, a record no parser accepts, and readers' requests."""
    papertrail_cli(pipeline.env, "import", str(CORPUS_LINES))
    asyncio.run(_publish_malformed(pipeline))
    page_ids = {f"arxiv:{record.record_id}" for record in parse_oai_page(ARXIV_CS_PAGE.read_bytes()).records}
    corpus_ids = {f"arxiv:{json.loads(line)['id']}" for line in CORPUS_LINES.read_text().splitlines()}
    api = httpx.Client(base_url=pipeline.url("query", ""), timeout=10)

    def indexed() -> bool:
        return bool(api.get("/api/papers", params={"size": 1}).json()["total"] == len(page_ids | corpus_ids))

    wait_until(indexed, timeout=180, what=f"{len(page_ids | corpus_ids)} papers searchable")
    for _ in range(5):
        assert api.get("/api/papers", params={"q": "learning"}).status_code == 200
        assert api.get(f"/api/papers/{sorted(corpus_ids)[0]}").status_code == 200
        assert api.get("/api/papers/arxiv:0000.00000").status_code == 404


async def _publish_malformed(pipeline: Pipeline) -> None:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=pipeline.env["KAFKA_BOOTSTRAP_SERVERS"], acks="all")
    await producer.start()
    try:
        await producer.send_and_wait(pipeline.topic(topics.HARVEST_RAW), b'{"source": "arxiv"}', key=b"arxiv:malformed")
    finally:
        await producer.stop()


# PromQL, as far as dashboards write it: label lists of grouping and matching clauses, and series selectors.
_LABEL_LISTS = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_SELECTOR = re.compile(r"(?<![\w\"$.])([a-zA-Z_:][\w:]*)(?![\w:])\s*(\{[^}]*\})?(?!\s*\()")
_KEYWORDS = {"and", "or", "unless", "bool", "offset"}


def series_selectors(expr: str) -> set[str]:
    """The series selectors of an expression (`metric{matchers}`), without its functions and keywords."""
    bare = _LABEL_LISTS.sub("", expr)
    bare = re.sub(r"\[\d+[smhdwy]+(?::\d*[smhdwy]*)?\]", "", bare)  # ranges and subqueries: [5m], [1h:1m]
    return {name + (matchers or "") for name, matchers in _SELECTOR.findall(bare) if name not in _KEYWORDS}


def test_series_selectors_are_read_from_a_panels_promql() -> None:
    expr = (
        '(sum(rate(papertrail_http_requests_total{service="query", status=~"5.."}[10m])) or vector(0)) / '
        'sum by (route, le) (rate(papertrail_http_request_seconds_bucket{service="query"}[1m])) '
        '/ on () group_left () max by (source) (up) > 0.5 or errors{status=~"[45].."}[1h:5m]'
    )
    assert series_selectors(expr) == {
        'papertrail_http_requests_total{service="query", status=~"5.."}',
        'papertrail_http_request_seconds_bucket{service="query"}',
        "up",
        'errors{status=~"[45].."}',
    }


def dashboard_queries() -> list[tuple[str, str, str]]:
    """(dashboard, panel title, PromQL) of every panel target, Grafana's variables filled in: its interval
    variables as for a short run, a template variable as its `All` (every value), as Grafana sends them."""
    queries = []
    for path in sorted(DASHBOARDS.glob("*.json")):
        document = json.loads(path.read_text())
        variables = {
            v["name"]: v.get("allValue") or ".*" for v in document.get("templating", {}).get("list", [])
        }  # fmt: skip
        for panel in document["panels"]:
            for target in panel.get("targets", []):
                expr = target["expr"]
                for name, value in GRAFANA_INTERVALS.items():
                    expr = expr.replace(name, value)
                for name, value in variables.items():
                    expr = re.sub(rf"\$\{{{name}\}}|\${name}\b|\[\[{name}\]\]", value, expr)
                assert "$" not in expr, f"{path.stem} / {panel['title']}: a variable this test does not know: {expr}"
                queries.append((path.stem, panel["title"], expr))
    return queries


def test_every_dashboard_query_answers_and_no_panel_is_empty_for_metrics_the_run_produced(run: Run) -> None:
    """A query is expected to show data when every series it selects exists in Prometheus for the run (the rule
    is read from the query, not from a list of panels): a panel on 5xx answers or on the model's budget refusals
    may be empty after a run with neither; one on metrics the run produced may not."""
    span = {"start": run.started, "end": run.finished, "step": "2s"}
    problems, checked, skipped = [], [], []
    for dashboard, title, expr in dashboard_queries():
        where = f"{dashboard} / {title}: {expr}"
        try:
            result = prometheus_api(run.prometheus, "query_range", query=expr, **span)["result"]
        except AssertionError as error:
            problems.append(f"{where}: query failed: {error}")
            continue
        absent = [s for s in series_selectors(expr) if not _series(run, s)]
        if absent:
            skipped.append(f"{where} (no series of {', '.join(absent)})")
            continue
        checked.append(where)
        shown = [value for series in result for _, value in series["values"] if value.lower() != "nan"]
        if not shown:
            problems.append(f"{where}: empty, though the run produced every series it selects")
    print(f"{len(checked)} queries checked, {len(skipped)} without the series they select:", *skipped, sep="\n")
    assert not problems, "\n".join(problems)
    # the run must exercise most panels, or this test proves little
    assert len(checked) > 2 * len(skipped), "panels left unchecked:\n" + "\n".join(skipped)


def _series(run: Run, selector: str) -> list[dict[str, str]]:
    return list(prometheus_api(run.prometheus, "series", **{"match[]": selector}, start=run.started, end=run.finished))


def test_every_alert_rule_evaluates_on_the_live_metrics_and_alertmanager_is_wired(run: Run) -> None:
    groups = prometheus_api(run.prometheus, "rules")["groups"]
    expected = {g["name"] for path in ALERTS.glob("*.yml") for g in yaml.safe_load(path.read_text())["groups"]}
    assert {g["name"] for g in groups} == expected
    rules = [rule for group in groups for rule in group["rules"]]
    assert all(not rule["lastEvaluation"].startswith("0001") for rule in rules)  # Go's zero time: never evaluated
    broken = [f"{rule['name']}: {rule.get('lastError')}" for rule in rules if rule["health"] != "ok"]
    assert not broken, broken
    if monitoring.binary("alertmanager") is not None:
        active = prometheus_api(run.prometheus, "alertmanagers")["activeAlertmanagers"]
        assert len(active) == 1 and active[0]["url"].endswith("/api/v2/alerts")


def test_the_services_logs_carry_no_per_message_or_third_party_chatter(run: Run) -> None:
    """At LOG_LEVEL=INFO, off a terminal: JSON lines naming their service; no FastStream line per message handled,
    no HTTP client line per Meilisearch task poll, no uvicorn start-up lines, no failed commits at start."""
    for name in run.pipeline.ports:
        lines = (run.pipeline.logs / f"{name}.log").read_text().splitlines()
        events = [json.loads(line) for line in lines]
        assert events and all(event["service"] == name for event in events), name
        chatter = [
            e
            for e in events
            if e["message"] in ("Received", "Processed")
            or e["level"] == "DEBUG"
            or (not e["logger"].startswith("papertrail.") and e["level"] == "INFO")
        ]
        assert not chatter, chatter[:3]
        assert not [e for e in events if "CommitFailedError" in e["message"] or "OffsetCommit failed" in e["message"]]


def test_papertrail_run_points_the_stacks_prometheus_at_its_ports_only_when_it_uses_the_stack(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`papertrail run --port-offset N` on the local stack: Prometheus scrapes the ports it gave the services;
    services on other servers (a test's) leave the stack's targets alone."""
    for name in ("dir", "host", "kafka_port", "prometheus_port"):
        monkeypatch.setenv(f"STACK_{name.upper()}", str(getattr(run.stack, name)))
    targets = run.stack.dir / "prometheus" / "targets"
    elsewhere = InfraSettings(kafka_bootstrap_servers="127.0.0.1:1")
    assert monitoring.follow_run(elsewhere, {"query": 1}) is None
    assert json.loads((targets / "query.json").read_text()) == [
        {"targets": [f"127.0.0.1:{run.pipeline.ports['query']}"]}
    ]

    on_the_stack = InfraSettings(kafka_bootstrap_servers=run.stack.environment()["KAFKA_BOOTSTRAP_SERVERS"])
    offset_ports = {name: port + 1 for name, port in run.pipeline.ports.items()}
    try:
        assert monitoring.follow_run(on_the_stack, offset_ports) == run.prometheus

        def scraping_the_new_ports() -> bool:
            targets = prometheus_api(run.prometheus, "targets")["activeTargets"]
            urls = {t["labels"]["job"]: t["scrapeUrl"] for t in targets}
            return all(urls[name] == f"http://127.0.0.1:{port}/metrics" for name, port in offset_ports.items())

        wait_until(scraping_the_new_ports, timeout=30, what="Prometheus to take the new targets")
    finally:
        monitoring.write_targets(run.stack, run.pipeline.ports)
