"""Search latency at scale: N papers (the real corpus replicated under distinct ids) in a fresh Meilisearch
index, a fixed mix of queries with filters and sorts run through the query API and directly against
Meilisearch in the same run (p50 / p99 each, and the API's overhead), plus indexing throughput.

Starts its own local stack (temporary folder, free ports) and a query service process; stops both at the end.
    uv run python bench/search_latency.py [--papers 100000] [--rounds 5] [--write-docs]
Targets (issue 7): p99 < 50 ms through the API, API overhead ≤ 20 %.
"""

import argparse
import asyncio
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papertrail.follows.catalogue import load_catalogue  # noqa: E402
from papertrail.search import make_search_client  # noqa: E402
from papertrail.search_document import PaperFilter, paper_document  # noqa: E402
from papertrail.settings import InfraSettings  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from schemas.events import PaperEnriched, RawRecord  # noqa: E402
from schemas.paper import PaperVersion  # noqa: E402
from schemas.summary import Summary  # noqa: E402
from services.normalizer.identity import merge  # noqa: E402
from services.normalizer.parsers.arxiv_json import parse_corpus_line  # noqa: E402
from services.query.index import PaperIndex, search_body  # noqa: E402
from services.query.indexer.topic_tags import TopicTagger  # noqa: E402
from services.query.reads.papers import LIST_FIELDS  # noqa: E402
from services.query.reads.search import PaperQuery  # noqa: E402
from tests.conftest import free_port, stack_on_free_ports  # noqa: E402

CORPUS = Path(os.environ.get("PAPERTRAIL_CORPUS", ROOT.parent / "shared" / "corpus" / "arxiv-daily-2026-05"))
AI = frozenset({"cs.AI", "cs.CL", "cs.CV", "cs.LG", "cs.MA", "cs.NE", "cs.IR", "cs.RO", "stat.ML"})

# The fixed query mix: words from the corpus, filters and each of the three sorts, first and later pages.
MIX: list[dict[str, Any]] = [
    {"q": "language model", "sort": "updated"},
    {"q": "diffusion", "category": ["cs.CV"], "sort": "published"},
    {"q": "reinforcement learning", "ai_related": True, "sort": "ingested"},
    {"q": "", "category": ["cs.CL"], "sort": "updated", "page": 3},
    {"q": "benchmark evaluation", "status": "preprint", "sort": "updated"},
    {"q": "graph neural network", "category": ["cs.LG", "cs.AI"], "sort": "published"},
    {"q": "retrieval augmented generation", "sort": "ingested"},
    {"q": "", "ai_related": True, "sort": "published", "page": 10},
    {"q": "视觉", "sort": "updated"},
    {"q": "agent", "category": ["cs.AI"], "sort": "updated", "size": 50},
]


def corpus_events(limit_lines: int | None = None) -> list[PaperEnriched]:
    """Real corpus papers with their real Chinese summaries, one event per distinct id."""
    events: dict[str, PaperEnriched] = {}
    now = datetime.now(UTC)
    for path in sorted(CORPUS.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for text in handle:
                line = json.loads(text)
                raw = RawRecord(
                    source="arxiv",
                    record_id=line["id"],
                    format="corpus_json",
                    content=text.strip(),
                    sha256="0" * 64,
                    run_id="bench",
                    harvested_at=now,
                )
                change = merge(
                    None, parse_corpus_line(raw), content_hash="0" * 64, now=now, ai_categories=AI, next_seq=1
                )
                if change is None:
                    continue
                summary_fields = line.get("AI") or {}
                summary = Summary(
                    status="ok",
                    model="deepseek-chat",
                    tldr_zh=summary_fields.get("tldr"),
                    motivation_zh=summary_fields.get("motivation"),
                    method_zh=summary_fields.get("method"),
                    result_zh=summary_fields.get("result"),
                    conclusion_zh=summary_fields.get("conclusion"),
                )
                events[change.paper.id] = PaperEnriched(
                    kind="new", paper=change.paper, version=change.version, summary=summary
                )
                if limit_lines and len(events) >= limit_lines:
                    return list(events.values())
    return list(events.values())


def replicated_documents(events: list[PaperEnriched], count: int) -> list[dict[str, Any]]:
    """`count` documents: copy k of every paper gets id suffix `.r<k>` and times shifted by k days."""
    documents: list[dict[str, Any]] = []
    tagger = TopicTagger(load_catalogue())
    k = 0
    while len(documents) < count:
        for event in events:
            if len(documents) >= count:
                break
            paper = event.paper.model_copy(
                update={
                    "id": f"{event.paper.id}.r{k}",
                    "first_seen": event.paper.first_seen - timedelta(days=k),
                    "updated_at": event.paper.updated_at - timedelta(days=k),
                }
            )
            version = PaperVersion(**{**event.version.model_dump(), "paper_id": paper.id})
            tagged = paper_document(event.model_copy(update={"paper": paper, "version": version}), tagger.of(paper))
            documents.append(tagged)
        k += 1
    return documents


async def index_documents(index: PaperIndex, documents: list[dict[str, Any]], batch: int = 5000) -> float:
    """Send every batch, then wait for all tasks; return documents/s."""
    started = time.perf_counter()
    tasks = [
        await index.index.update_documents(documents[i : i + batch], primary_key="id")
        for i in range(0, len(documents), batch)
    ]
    for task in tasks:
        result = await index.client.wait_for_task(task.task_uid, timeout_in_ms=None, interval_in_ms=200)
        if result.status != "succeeded":
            raise RuntimeError(f"indexing task {task.task_uid} {result.status}: {result.error}")
    return len(documents) / (time.perf_counter() - started)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def api_params(query: dict[str, Any]) -> dict[str, Any]:
    params = {k: v for k, v in query.items() if k != "ai_related"}
    if "ai_related" in query:
        params["ai_related"] = "true" if query["ai_related"] else "false"
    return params


def paper_query(query: dict[str, Any]) -> PaperQuery:
    wanted = PaperFilter(
        categories=query.get("category", []), status=query.get("status"), ai_related=query.get("ai_related")
    )
    return PaperQuery(
        q=query.get("q", ""),
        filter=wanted,
        sort=query.get("sort", "updated"),
        page=query.get("page", 1),
        size=query.get("size", 20),
    )


def meili_body(query: PaperQuery) -> dict[str, Any]:
    """The search request the query service sends for a list page, as raw JSON (the direct path has no client)."""
    return search_body(query, LIST_FIELDS)


async def measure(settings: InfraSettings, api_url: str, rounds: int) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {"api": [], "meili": [], "floor": []}
    headers = {"Accept-Encoding": "identity", "Authorization": f"Bearer {settings.meili_master_key.get_secret_value()}"}
    search_url = f"{settings.meili_url}/indexes/papers_bench/search"
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as api, httpx.AsyncClient(timeout=30) as meili:
        for query in MIX:  # warm up both paths once
            (await api.get("/api/papers", params=api_params(query))).raise_for_status()
            (await meili.post(search_url, json=meili_body(paper_query(query)), headers=headers)).raise_for_status()
        for _ in range(rounds):
            for query in MIX:
                started = time.perf_counter()
                response = await api.get("/api/papers", params=api_params(query))
                timings["api"].append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
                started = time.perf_counter()
                direct = await meili.post(search_url, json=meili_body(paper_query(query)), headers=headers)
                timings["meili"].append((time.perf_counter() - started) * 1000)
                direct.raise_for_status()
                started = time.perf_counter()  # the fixed cost of any request through the service
                (await api.get("/healthz")).raise_for_status()
                timings["floor"].append((time.perf_counter() - started) * 1000)
    return timings


def start_query_service(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    service = subprocess.Popen(
        [sys.executable, "-m", "papertrail", "query"],
        cwd=ROOT,
        env={**os.environ, **env, "HTTP_PORT": str(port), "LOG_LEVEL": "WARNING"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return service, port
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            service.terminate()
            raise RuntimeError("query service did not become ready")
        time.sleep(0.5)


def run(papers: int, rounds: int) -> dict[str, Any]:
    events = corpus_events()
    documents = replicated_documents(events, papers)
    with tempfile.TemporaryDirectory() as folder:
        stack_settings = stack_on_free_ports(
            Path(folder),
            install_dir=ROOT / ".stack" / "npm",
            start_timeout_s=180,
        )
        stack.up(stack_settings, log=lambda _: None)
        env = stack_settings.environment() | {"INDEX_NAME": "papers_bench", "MONGODB_DATABASE": "papertrail_bench"}
        settings = InfraSettings(
            kafka_bootstrap_servers=env["KAFKA_BOOTSTRAP_SERVERS"],
            mongodb_url=env["MONGODB_URL"],
            meili_url=env["MEILI_URL"],
            meili_master_key=env["MEILI_MASTER_KEY"],
        )
        try:
            rate = asyncio.run(index_all(settings, documents))
            service, port = start_query_service(env)
            try:
                timings = asyncio.run(measure(settings, f"http://127.0.0.1:{port}", rounds))
            finally:
                service.terminate()
                service.wait(timeout=30)
        finally:
            stack.down(stack_settings, log=lambda _: None)
    api, meili, floor = timings["api"], timings["meili"], timings["floor"]
    return {
        "papers": len(documents),
        "distinct_corpus_papers": len(events),
        "index_docs_per_s": rate,
        "queries": len(api),
        "api_p50": percentile(api, 50),
        "api_p99": percentile(api, 99),
        "meili_p50": percentile(meili, 50),
        "meili_p99": percentile(meili, 99),
        "floor_p50": percentile(floor, 50),
        "overhead_p50": (statistics.median(api) - statistics.median(meili)) / statistics.median(meili),
        "load": os.getloadavg()[0],
    }


async def index_all(settings: InfraSettings, documents: list[dict[str, Any]]) -> float:
    client = make_search_client(settings)
    try:
        index = PaperIndex(client, "papers_bench", 600)
        await index.ensure()
        return await index_documents(index, documents)
    finally:
        await client.aclose()


def report(result: dict[str, Any]) -> str:
    return "\n".join(
        [
            "## Query service: search latency",
            "",
            f"`uv run python bench/search_latency.py --papers {result['papers']}` ({datetime.now(UTC):%Y-%m-%d}, "
            f"load average {result['load']:.1f} at the end). {result['papers']:,} documents = the "
            f"{result['distinct_corpus_papers']:,} distinct corpus papers (with their real Chinese summaries) "
            "replicated under distinct ids; a fixed mix of 10 queries (full text, category / AI / status filters, "
            f"the three sorts, deep pages), {result['queries']} timed requests per path. Targets: p99 < 50 ms "
            "through the API, API overhead ≤ 20 %.",
            "",
            "| path | p50 ms | p99 ms |",
            "|---|---:|---:|",
            f"| query API (HTTP, FastAPI, parameter checks) | {result['api_p50']:.1f} | {result['api_p99']:.1f} |",
            f"| Meilisearch directly (same search, raw HTTP) | {result['meili_p50']:.1f} | {result['meili_p99']:.1f} |",
            "",
            f"API overhead at p50: {result['overhead_p50'] * 100:.0f} % "
            f"({result['api_p50'] - result['meili_p50']:.1f} ms); an empty request to the same service "
            f"(`GET /healthz`) takes {result['floor_p50']:.1f} ms at p50. Indexing throughput: "
            f"{result['index_docs_per_s']:,.0f} documents/s (batches of 5,000, all tasks awaited).",
            "",
        ]
    )


def write_section(text: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\nMachine: 2 cores, shared.\n\n"
    heading = "## Query service: search latency"
    if heading in current:
        before, _, after = current.partition(heading)
        rest = after.split("\n## ", 1)
        current = before + ("## " + rest[1] if len(rest) > 1 else "")
    path.write_text(current.rstrip("\n") + "\n\n" + text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20, help="times the query mix is run")
    parser.add_argument("--write-docs", action="store_true", help="replace the section in docs/benchmarks.md")
    args = parser.parse_args()
    result = run(args.papers, args.rounds)
    text = report(result)
    print(text)
    if args.write_docs:
        write_section(text)


if __name__ == "__main__":
    main()
