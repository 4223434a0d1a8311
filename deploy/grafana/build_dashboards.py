"""Writes the Grafana dashboards in deploy/grafana/dashboards/ (pipeline, sources, summarizer, API).

The JSON files are what Grafana provisions and what tests/deploy checks; this script is how they are made, so
the four stay alike (datasource, layout, units). After editing a panel here:

    uv run python deploy/grafana/build_dashboards.py
"""

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "dashboards"
DATASOURCE = {"type": "prometheus", "uid": "prometheus"}
SERVICES = "harvester|normalizer|summarizer|matcher|query"


def target(expr: str, legend: str, ref: str = "A") -> dict[str, Any]:
    return {"refId": ref, "datasource": DATASOURCE, "expr": expr, "legendFormat": legend, "range": True}


def panel(
    kind: str,
    title: str,
    description: str,
    targets: list[dict[str, Any]],
    unit: str,
    width: int = 12,
    height: int = 8,
    **options: Any,
) -> dict[str, Any]:
    defaults: dict[str, Any] = {"unit": unit}
    if kind == "timeseries":
        defaults["custom"] = {"lineWidth": 1, "fillOpacity": 10, "showPoints": "never"}
    if "thresholds" in options:
        defaults["thresholds"] = {"mode": "absolute", "steps": options.pop("thresholds")}
    body: dict[str, Any] = {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": targets,
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "gridPos": {"w": width, "h": height},
    }
    if kind == "stat":
        body["options"] = {
            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
            "colorMode": "background",
            "graphMode": "none",
            "textMode": "value_and_name",
            "orientation": options.pop("orientation", "vertical"),
            "justifyMode": "center",
        }
    else:
        body["options"] = {
            "legend": {"displayMode": "table", "placement": "bottom", "calcs": ["lastNotNull", "max"]},
            "tooltip": {"mode": "multi", "sort": "desc"},
        }
    return body


def dashboard(uid: str, title: str, description: str, panels: list[dict[str, Any]]) -> dict[str, Any]:
    """Panels laid out left to right in rows of 24 columns; ids in order."""
    x = y = row_height = 0
    for number, item in enumerate(panels, start=1):
        grid = item["gridPos"]
        if x + grid["w"] > 24:
            x, y, row_height = 0, y + row_height, 0
        grid.update(x=x, y=y)
        x += grid["w"]
        row_height = max(row_height, grid["h"])
        item["id"] = number
    return {
        "uid": uid,
        "title": title,
        "description": description,
        "tags": ["papertrail"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "30s",
        "schemaVersion": 39,
        "version": 1,
        "links": [{"type": "dashboards", "tags": ["papertrail"], "asDropdown": True, "title": "PaperTrail"}],
        "annotations": {"list": []},
        "templating": {"list": []},
        "panels": panels,
    }


RED_GREEN = [{"color": "red", "value": None}, {"color": "green", "value": 1}]


def pipeline() -> dict[str, Any]:
    return dashboard(
        "papertrail-pipeline",
        "PaperTrail pipeline",
        "Records through each stage, harvest-to-searchable latency, consumer lag and dead letters.",
        [
            panel(
                "stat",
                "Service instances up",
                "Scrape targets per service that answer /metrics (one per replica).",
                [target(f'sum by (job) (up{{job=~"{SERVICES}"}})', "{{job}}")],
                "none",
                width=24,
                height=4,
                thresholds=RED_GREEN,
            ),
            panel(
                "timeseries",
                "Records per second by stage",
                "Harvester: raw records published. Others: messages handled ok by service and topic, replicas summed.",
                [
                    target("sum(rate(papertrail_harvest_records_total[$__rate_interval]))", "harvester → harvest.raw"),
                    target(
                        'sum by (service, topic) (rate(papertrail_messages_handled_total{outcome="ok"}'
                        "[$__rate_interval]))",
                        "{{service}} ← {{topic}}",
                        "B",
                    ),
                ],
                "ops",
            ),
            panel(
                "timeseries",
                "Harvested → searchable (end-to-end latency)",
                "papertrail_index_lag_seconds: from the raw record's harvest to the query service's index "
                "acknowledging the paper. p50 and p99 over all query replicas.",
                [
                    target(
                        "histogram_quantile(0.5, sum by (le) (rate(papertrail_index_lag_seconds_bucket"
                        "[$__rate_interval])))",
                        "p50",
                    ),
                    target(
                        "histogram_quantile(0.99, sum by (le) (rate(papertrail_index_lag_seconds_bucket"
                        "[$__rate_interval])))",
                        "p99",
                        "B",
                    ),
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Consumer lag by group and topic",
                "papertrail_consumer_lag: end offset minus committed offset, summed over partitions. Replicas "
                "report the same group, hence max. Alert ConsumerLagHigh above 5,000 for 10 minutes.",
                [target("max by (service, topic) (papertrail_consumer_lag)", "{{service}} ← {{topic}}")],
                "short",
            ),
            panel(
                "timeseries",
                "Dead letters by topic",
                "Messages parked on <topic>.dlq per interval; `papertrail dlq list --topic <topic>` shows the reasons.",
                [target("sum by (topic) (increase(papertrail_dead_letters_total[$__rate_interval]))", "{{topic}}")],
                "short",
            ),
            panel(
                "timeseries",
                "Messages retried or dead-lettered per second",
                "Outcomes other than ok: retried (a dependency was away; redelivered) and dead_lettered.",
                [
                    target(
                        'sum by (service, outcome) (rate(papertrail_messages_handled_total{outcome!="ok"}'
                        "[$__rate_interval]))",
                        "{{service}} {{outcome}}",
                    )
                ],
                "ops",
            ),
            panel(
                "timeseries",
                "Handling time p99 by service",
                "papertrail_message_handle_seconds: one message (or one batch) consumed, stored and emitted.",
                [
                    target(
                        "histogram_quantile(0.99, sum by (service, le) "
                        "(rate(papertrail_message_handle_seconds_bucket[$__rate_interval])))",
                        "{{service}}",
                    )
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Resident memory by service",
                "process_resident_memory_bytes of each replica.",
                [target(f'process_resident_memory_bytes{{job=~"{SERVICES}"}}', "{{job}} {{instance}}")],
                "bytes",
            ),
            panel(
                "timeseries",
                "MongoDB wait by service and collection",
                "papertrail_mongo_command_seconds: seconds per second each service waited on MongoDB, by collection. "
                "Above 1 a service is waiting on several commands at once; one collection rising in every service "
                "points at the server.",
                [
                    target(
                        "topk(10, sum by (service, collection) "
                        "(rate(papertrail_mongo_command_seconds_sum[$__rate_interval])))",
                        "{{service}} {{collection}}",
                    )
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Restarts by service (1 h)",
                "Processes of each service started in the last hour after the one before: a restart by "
                "`papertrail run`, compose or Kubernetes (a new process_start_time_seconds). `papertrail run` logs "
                "each with the exit code.",
                [target(f'sum by (job) (changes(process_start_time_seconds{{job=~"{SERVICES}"}}[1h]))', "{{job}}")],
                "none",
            ),
        ],
    )


def sources() -> dict[str, Any]:
    return dashboard(
        "papertrail-sources",
        "PaperTrail sources",
        "Freshness and runs of each harvested source.",
        [
            panel(
                "stat",
                "Time since last successful harvest",
                "Alert SourceStale when this exceeds three of the source's intervals.",
                [target("time() - max by (source) (papertrail_harvest_last_success_timestamp_seconds)", "{{source}}")],
                "s",
                thresholds=[{"color": "green", "value": None}, {"color": "orange", "value": 4 * 3600}],
                orientation="horizontal",
            ),
            panel(
                "stat",
                "Freshness in intervals",
                "Time since the last good run divided by the source's interval; 3 = stale.",
                [
                    target(
                        "(time() - max by (source) (papertrail_harvest_last_success_timestamp_seconds))"
                        " / max by (source) (papertrail_harvest_interval_seconds)",
                        "{{source}}",
                    )
                ],
                "none",
                thresholds=[
                    {"color": "green", "value": None},
                    {"color": "orange", "value": 1.5},
                    {"color": "red", "value": 3},
                ],
                orientation="horizontal",
            ),
            panel(
                "timeseries",
                "Runs by source and outcome",
                "Finished harvest runs per interval.",
                [
                    target(
                        "sum by (source, outcome) (increase(papertrail_harvest_runs_total[$__rate_interval]))",
                        "{{source}} {{outcome}}",
                    )
                ],
                "short",
            ),
            panel(
                "stat",
                "Failed runs in a row",
                "Alert HarvestFailing at 3.",
                [target("max by (source) (papertrail_harvest_consecutive_failures)", "{{source}}")],
                "none",
                thresholds=[{"color": "green", "value": None}, {"color": "red", "value": 3}],
                orientation="horizontal",
            ),
            panel(
                "timeseries",
                "Raw records published per second",
                "papertrail_harvest_records_total by source.",
                [target("sum by (source) (rate(papertrail_harvest_records_total[$__rate_interval]))", "{{source}}")],
                "ops",
            ),
            panel(
                "timeseries",
                "Errors by source and kind",
                "papertrail_harvest_errors_total: source (the source answered badly) or the exception's name.",
                [
                    target(
                        "sum by (source, kind) (increase(papertrail_harvest_errors_total[$__rate_interval]))",
                        "{{source}} {{kind}}",
                    )
                ],
                "short",
            ),
            panel(
                "timeseries",
                "Run duration p90",
                "papertrail_harvest_run_seconds.",
                [
                    target(
                        "histogram_quantile(0.9, sum by (source, le) "
                        "(rate(papertrail_harvest_run_seconds_bucket[$__rate_interval])))",
                        "{{source}}",
                    )
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Pages fetched per second",
                "papertrail_harvest_pages_total by source.",
                [target("sum by (source) (rate(papertrail_harvest_pages_total[$__rate_interval]))", "{{source}}")],
                "ops",
            ),
        ],
    )


def summarizer() -> dict[str, Any]:
    return dashboard(
        "papertrail-summarizer",
        "PaperTrail summarizer",
        "Model calls, tokens, estimated cost, cache hits and the backlog of papers waiting for a summary.",
        [
            panel(
                "stat",
                "Papers waiting for a summary",
                "papertrail_summarizer_pending_papers (the sweep's backlog). Alert SummarizerBacklog above 500 "
                "for 30 minutes.",
                [target("max(papertrail_summarizer_pending_papers)", "pending")],
                "none",
                width=8,
                thresholds=[{"color": "green", "value": None}, {"color": "orange", "value": 500}],
            ),
            panel(
                "stat",
                "Estimated cost today",
                "papertrail_summarizer_cost_estimated_total over the last 24 h (PRICE_*_PER_1K settings).",
                [target("sum(increase(papertrail_summarizer_cost_estimated_total[24h]))", "cost")],
                "none",
                width=8,
            ),
            panel(
                "stat",
                "Tokens in the last 24 h",
                "papertrail_summarizer_tokens_total by direction.",
                [target("sum by (direction) (increase(papertrail_summarizer_tokens_total[24h]))", "{{direction}}")],
                "short",
                width=8,
            ),
            panel(
                "timeseries",
                "Papers waiting by priority",
                "papertrail_summarizer_pending_papers_by_priority: the sweep's order, readers (matched, saved, picked "
                "for a ranked feed) first, then community (Hugging Face picks), then newest (the rest).",
                [target("max by (priority) (papertrail_summarizer_pending_papers_by_priority)", "{{priority}}")],
                "short",
            ),
            panel(
                "timeseries",
                "Model calls per second by outcome",
                "papertrail_summarizer_calls_total.",
                [target("sum by (outcome) (rate(papertrail_summarizer_calls_total[$__rate_interval]))", "{{outcome}}")],
                "ops",
            ),
            panel(
                "timeseries",
                "Tokens per second",
                "papertrail_summarizer_tokens_total by direction.",
                [
                    target(
                        "sum by (direction) (rate(papertrail_summarizer_tokens_total[$__rate_interval]))",
                        "{{direction}}",
                    )
                ],
                "short",
            ),
            panel(
                "timeseries",
                "Summaries by status and cache hits",
                "papertrail_summarizer_summaries_total (ok, pending, failed) and cache hits (no call made).",
                [
                    target(
                        "sum by (status) (rate(papertrail_summarizer_summaries_total[$__rate_interval]))",
                        "{{status}}",
                    ),
                    target("sum(rate(papertrail_summarizer_cache_hits_total[$__rate_interval]))", "cache hit", "B"),
                ],
                "ops",
            ),
            panel(
                "timeseries",
                "Failures by kind",
                "papertrail_summarizer_failures_total; budget = daily token budget spent, unavailable = gave up "
                "after retries.",
                [
                    target(
                        "sum by (kind) (increase(papertrail_summarizer_failures_total[$__rate_interval]))", "{{kind}}"
                    )
                ],
                "short",
            ),
            panel(
                "timeseries",
                "Chinese titles without an endpoint, by outcome",
                "papertrail_summarizer_titles_total: the title path's titles (TITLES_BASE_URL, no summary endpoint): "
                "written, cached, invalid (no Chinese title), rejected, unavailable (the local server down).",
                [
                    target(
                        "sum by (outcome) (increase(papertrail_summarizer_titles_total[$__rate_interval]))",
                        "{{outcome}}",
                    )
                ],
                "short",
            ),
            panel(
                "timeseries",
                "Summary check failures by check",
                "papertrail_summarizer_check_failures_total: answers failing a check before the summary is kept "
                "(cjk_share, tldr_copy, numbers, keywords); a failed check gets one repair request, then the summary "
                "is failed.",
                [
                    target(
                        "sum by (check) (increase(papertrail_summarizer_check_failures_total[$__rate_interval]))",
                        "{{check}}",
                    )
                ],
                "short",
            ),
            panel(
                "timeseries",
                "Model call latency",
                "papertrail_summarizer_call_seconds p50 and p99.",
                [
                    target(
                        "histogram_quantile(0.5, sum by (le) (rate(papertrail_summarizer_call_seconds_bucket"
                        "[$__rate_interval])))",
                        "p50",
                    ),
                    target(
                        "histogram_quantile(0.99, sum by (le) (rate(papertrail_summarizer_call_seconds_bucket"
                        "[$__rate_interval])))",
                        "p99",
                        "B",
                    ),
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Estimated cost per hour",
                "papertrail_summarizer_cost_estimated_total.",
                [target("sum(increase(papertrail_summarizer_cost_estimated_total[1h]))", "cost / h")],
                "none",
            ),
        ],
    )


def api() -> dict[str, Any]:
    query = 'service="query"'
    return dashboard(
        "papertrail-api",
        "PaperTrail API",
        "The query service's HTTP API and pages: traffic, latency by route, errors.",
        [
            panel(
                "stat",
                "5xx share (10 min)",
                "Alert ApiErrors above 5 % for 5 minutes. 0 when requests came and none failed.",
                [
                    target(
                        # with no 5xx the numerator has no series at all: `or vector(0)` shows 0, not "no data"
                        f'(sum(rate(papertrail_http_requests_total{{{query}, status=~"5.."}}[10m])) or vector(0))'
                        f" / sum(rate(papertrail_http_requests_total{{{query}}}[10m]))",
                        "5xx",
                    )
                ],
                "percentunit",
                width=8,
                thresholds=[{"color": "green", "value": None}, {"color": "red", "value": 0.05}],
            ),
            panel(
                "stat",
                "Requests per second",
                "All routes, all replicas.",
                [target(f"sum(rate(papertrail_http_requests_total{{{query}}}[$__rate_interval]))", "req/s")],
                "reqps",
                width=8,
            ),
            panel(
                "stat",
                "p99 latency",
                "All routes.",
                [
                    target(
                        f"histogram_quantile(0.99, sum by (le) (rate(papertrail_http_request_seconds_bucket"
                        f"{{{query}}}[$__rate_interval])))",
                        "p99",
                    )
                ],
                "s",
                width=8,
            ),
            panel(
                "timeseries",
                "Latency p50 by route",
                "papertrail_http_request_seconds by route template.",
                [
                    target(
                        f"histogram_quantile(0.5, sum by (route, le) (rate(papertrail_http_request_seconds_bucket"
                        f"{{{query}}}[$__rate_interval])))",
                        "{{route}}",
                    )
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Latency p99 by route",
                "papertrail_http_request_seconds by route template.",
                [
                    target(
                        f"histogram_quantile(0.99, sum by (route, le) (rate(papertrail_http_request_seconds_bucket"
                        f"{{{query}}}[$__rate_interval])))",
                        "{{route}}",
                    )
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Search time in Meilisearch (p50, p99)",
                "papertrail_search_seconds: each search the service sends, as the service sees it. The part of a "
                "route's latency spent in the engine.",
                [
                    target(
                        "histogram_quantile(0.5, sum by (le) (rate(papertrail_search_seconds_bucket"
                        "[$__rate_interval])))",
                        "p50",
                    ),
                    target(
                        "histogram_quantile(0.99, sum by (le) (rate(papertrail_search_seconds_bucket"
                        "[$__rate_interval])))",
                        "p99",
                        "B",
                    ),
                ],
                "s",
            ),
            panel(
                "timeseries",
                "Requests per second by route and status",
                "papertrail_http_requests_total.",
                [
                    target(
                        f"sum by (route, status) (rate(papertrail_http_requests_total{{{query}}}[$__rate_interval]))",
                        "{{route}} {{status}}",
                    )
                ],
                "reqps",
            ),
            panel(
                "timeseries",
                "Errors per second by route (4xx and 5xx)",
                "4xx are callers' mistakes (named in the answer); 5xx are ours.",
                [
                    target(
                        f'sum by (route, status) (rate(papertrail_http_requests_total{{{query}, status=~"[45].."}}'
                        "[$__rate_interval]))",
                        "{{route}} {{status}}",
                    )
                ],
                "reqps",
            ),
        ],
    )


def main() -> None:
    for name, build in {"pipeline": pipeline, "sources": sources, "summarizer": summarizer, "api": api}.items():
        (OUT / f"{name}.json").write_text(json.dumps(build(), indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {OUT / f'{name}.json'}")


if __name__ == "__main__":
    main()
