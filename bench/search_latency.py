"""Search latency at scale: N papers (the real corpus replicated under distinct ids) in a fresh Meilisearch
index with paper vectors, a fixed mix of queries with filters and sorts run through the query API and directly
against Meilisearch in the same run (p50 / p99 each, and the API's overhead); the same mix by words and meaning
(semantic=0.5) and by meaning only (semantic=1); similar papers through the API and directly; and the index stage
(paper_vectors read by id, documents written, tasks awaited) with vectors against without, in the same run.

Starts its own local stack (temporary folder, free ports) and a query service process; stops both at the end.
    uv run python bench/search_latency.py [--papers 100000] [--embedded 500] [--rounds 5] [--write-docs]
Targets (issues 7 and 16): p99 < 50 ms through the API, for search and similar papers; API overhead ≤ 20 %;
vectors cost the index stage at most a quarter of its throughput.
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
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from pymongo import AsyncMongoClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papertrail.domain.follows.catalogue import load_catalogue  # noqa: E402
from papertrail.domain.search_document import EMBEDDER, PaperFilter, document_id, paper_document, with_vector  # noqa: E402
from papertrail.embedding.backends import open_embedder  # noqa: E402
from papertrail.embedding.embedder import EmbeddingSettings, embedding_text, l2_normalised  # noqa: E402
from papertrail.runtime.collections import PAPER_VECTORS, PAPERS  # noqa: E402
from papertrail.runtime.search import make_search_client  # noqa: E402
from papertrail.runtime.settings import InfraSettings  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from schemas.events import PaperEnriched, RawRecord  # noqa: E402
from schemas.paper import Paper, PaperVersion  # noqa: E402
from schemas.paper_vector import PaperVector  # noqa: E402
from schemas.summary import Summary  # noqa: E402
from services.normalizer.identity import merge  # noqa: E402
from services.normalizer.parsers.arxiv_json import parse_corpus_line  # noqa: E402
from services.query.catalogue.index import PaperIndex, search_body  # noqa: E402
from services.query.catalogue.indexer.topic_tags import TopicTagger  # noqa: E402
from services.query.catalogue.reads.papers import LIST_FIELDS  # noqa: E402
from services.query.catalogue.reads.search import PaperQuery  # noqa: E402
from services.query.catalogue.repositories import CatalogueRecords  # noqa: E402
from tests.support.servers import free_port, stack_on_free_ports  # noqa: E402

# The shared corpus, of which tests/fixtures/corpus holds an unchanged copy (its ORIGIN.md).
CORPUS = Path(os.environ.get("PAPERTRAIL_CORPUS", ROOT / "tests" / "fixtures" / "corpus" / "arxiv-daily-2026-05"))
INDEX_BATCH = 2000  # the query service's INDEX_BATCH_SIZE default
SIMILAR_SAMPLE = 50  # papers whose similar papers are asked for, each round
EMBEDDING = EmbeddingSettings()  # the default local model, as the services run it
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


def replicas(events: list[PaperEnriched], first: int, count: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """Documents number `first` to `first + count - 1`, one at a time: the papers themselves, then copy k ≥ 1 of every
    paper with id suffix `.r<k>` and times shifted by k days."""
    if not events:
        raise SystemExit(f"no corpus papers in {CORPUS}: set PAPERTRAIL_CORPUS to a folder of *.jsonl.gz")
    tagger = TopicTagger(load_catalogue())
    for n in range(first, first + count):
        k, event = divmod(n, len(events))
        source = events[event]
        paper = source.paper.model_copy(
            update={
                "id": f"{source.paper.id}.r{k}" if k else source.paper.id,
                "first_seen": source.paper.first_seen - timedelta(days=k),
                "updated_at": source.paper.updated_at - timedelta(days=k),
            }
        )
        version = PaperVersion(**{**source.version.model_dump(), "paper_id": paper.id})
        yield n, paper_document(source.model_copy(update={"paper": paper, "version": version}), tagger.of(paper))


def replicated_documents(events: list[PaperEnriched], count: int) -> list[dict[str, Any]]:
    """`count` documents (`replicas`)."""
    return [document for _, document in replicas(events, 0, count)]


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


async def paper_vectors(events: list[PaperEnriched], documents: list[dict[str, Any]], embedded: int) -> list[Any]:
    """A vector per document: the first `embedded` distinct papers embedded by the local model (the summarizer's),
    document i the vector of paper i mod `embedded` moved by a little noise and normalised again, so no two are one
    point (embedding every corpus paper takes ~6 minutes here; the latency depends on the count, not the meaning)."""
    embedder = open_embedder(EMBEDDING)
    try:
        texts = [embedding_text(e.paper.title, e.paper.abstract or "") for e in events[:embedded]]
        base = np.vstack([o.vector for o in await embedder.embed(texts) if o.vector is not None])
    finally:
        await embedder.close()
    noise = np.random.default_rng(16).normal(0, 0.02, (len(documents), base.shape[1])).astype(np.float32)
    return list(l2_normalised(base[np.arange(len(documents)) % len(base)] + noise))


async def store_vectors(db: Any, documents: list[dict[str, Any]], vectors: list[Any]) -> None:
    """`paper_vectors` as the summarizer writes it, for every document."""
    now = datetime.now(UTC)
    batch = [
        PaperVector(paper_id=d["paper_id"], model=EMBEDDING.model_key, content_hash="0" * 64, state="embedded",
                    vector=v, updated_at=now).document()
        for d, v in zip(documents, vectors, strict=True)
    ]  # fmt: skip
    for first in range(0, len(batch), 5000):
        await db[PAPER_VECTORS.name].insert_many(batch[first : first + 5000], ordered=False)


async def index_stage(
    index: PaperIndex, catalogue: CatalogueRecords | None, documents: list[dict[str, Any]]
) -> tuple[float, float]:
    """Documents/s of the indexer's work on batches of INDEX_BATCH, and the share of its time spent reading vectors:
    with the catalogue's records, each batch's vectors read from `paper_vectors` by id and written as `_vectors`; each
    batch's task awaited before the next, as the indexer does."""
    started = time.perf_counter()
    reading = 0.0
    for first in range(0, len(documents), INDEX_BATCH):
        batch = documents[first : first + INDEX_BATCH]
        if catalogue is not None:
            read_started = time.perf_counter()
            vectors = await catalogue.vectors.vectors_of([d["paper_id"] for d in batch], EMBEDDING.model_key)
            batch = [with_vector(d, vectors.get(d["paper_id"])) for d in batch]
            reading += time.perf_counter() - read_started
        await index.upsert(batch)
    elapsed = time.perf_counter() - started
    return len(documents) / elapsed, reading / elapsed


async def measure(settings: InfraSettings, api_url: str, rounds: int, similar_ids: list[str]) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {name: [] for name in TIMED}
    headers = {"Accept-Encoding": "identity", "Authorization": f"Bearer {settings.meili_master_key.get_secret_value()}"}
    search_url = f"{settings.meili_url}/indexes/papers_bench/search"
    similar_url = f"{settings.meili_url}/indexes/papers_bench/similar"

    def similar_body(paper_id: str) -> dict[str, Any]:
        return {"id": document_id(paper_id), "embedder": EMBEDDER, "limit": 10, "showRankingScore": True,
                "attributesToRetrieve": LIST_FIELDS}  # fmt: skip

    async with httpx.AsyncClient(base_url=api_url, timeout=30) as api, httpx.AsyncClient(timeout=30) as meili:

        async def timed(name: str, request: Any) -> None:
            started = time.perf_counter()
            response = await request
            timings[name].append((time.perf_counter() - started) * 1000)
            response.raise_for_status()

        for query in MIX:  # warm up both paths once
            for semantic in (0, 0.5, 1):
                (await api.get("/api/papers", params=api_params(query) | {"semantic": semantic})).raise_for_status()
            (await meili.post(search_url, json=meili_body(paper_query(query)), headers=headers)).raise_for_status()
        (await api.get(f"/api/papers/{similar_ids[0]}/similar")).raise_for_status()
        for _ in range(rounds):
            for query in MIX:
                await timed("api", api.get("/api/papers", params=api_params(query)))
                await timed("meili", meili.post(search_url, json=meili_body(paper_query(query)), headers=headers))
                await timed("hybrid", api.get("/api/papers", params=api_params(query) | {"semantic": 0.5}))
                await timed("semantic", api.get("/api/papers", params=api_params(query) | {"semantic": 1}))
                await timed("floor", api.get("/healthz"))  # the fixed cost of any request through the service
            for paper_id in similar_ids:
                await timed("similar", api.get(f"/api/papers/{paper_id}/similar"))
                await timed("similar_meili", meili.post(similar_url, json=similar_body(paper_id), headers=headers))
    return timings


TIMED = ("api", "meili", "hybrid", "semantic", "floor", "similar", "similar_meili")


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


def run(papers: int, embedded: int, rounds: int) -> dict[str, Any]:
    events = corpus_events()
    documents = replicated_documents(events, papers)
    similar_ids = [e.paper.id for e in events[: min(SIMILAR_SAMPLE, len(events))]]
    vectors = asyncio.run(paper_vectors(events, documents, embedded))
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
            mongodb_database=env["MONGODB_DATABASE"],
        )
        try:
            rates = asyncio.run(index_all(settings, documents, vectors, [e.paper for e in events[: len(similar_ids)]]))
            service, port = start_query_service(env)
            try:
                timings = asyncio.run(measure(settings, f"http://127.0.0.1:{port}", rounds, similar_ids))
            finally:
                service.terminate()
                service.wait(timeout=30)
        finally:
            stack.down(stack_settings, log=lambda _: None)
    result: dict[str, Any] = {
        "papers": len(documents),
        "embedded": embedded,
        "distinct_corpus_papers": len(events),
        "queries": len(timings["api"]),
        "similar_requests": len(timings["similar"]),
        "load": os.getloadavg()[0],
        **rates,
    }
    for name in TIMED:
        result[f"{name}_p50"] = percentile(timings[name], 50)
        result[f"{name}_p99"] = percentile(timings[name], 99)
    result["overhead_p50"] = (statistics.median(timings["api"]) - result["meili_p50"]) / result["meili_p50"]
    return result


async def index_all(
    settings: InfraSettings, documents: list[dict[str, Any]], vectors: list[Any], held: list[Paper]
) -> dict[str, float]:
    """The index stage without vectors (an index without an embedder), then with them (the bench's index), on the
    same documents; then the papers whose similar papers are asked for, as the normalizer stores them."""
    client = make_search_client(settings)
    mongo: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(settings.mongodb_url, tz_aware=True)
    db = mongo[settings.mongodb_database]
    try:
        plain = PaperIndex(client, "papers_plain", 1800)
        await plain.ensure()
        without, _ = await index_stage(plain, None, documents)
        await client.delete_index_if_exists("papers_plain")
        await store_vectors(db, documents, vectors)
        index = PaperIndex(client, "papers_bench", 1800, EMBEDDING.embedding_dimensions)
        await index.ensure()
        with_vectors, reading = await index_stage(index, CatalogueRecords.of(db), documents)
        await db[PAPERS.name].insert_many(
            [{"_id": p.id, **p.model_dump(mode="python", exclude={"id"}, exclude_none=True)} for p in held]
        )
        # the vectors are in the index already: the service need not attach them again at its start
        await CatalogueRecords.of(db).index_state.save_vectors_model("papers_bench", EMBEDDING.model_key)
        return {"index_without_per_s": without, "index_with_per_s": with_vectors, "index_reading_share": reading}
    finally:
        await client.aclose()
        await mongo.close()


def report(result: dict[str, Any]) -> str:
    r = result
    cost = 1 - r["index_with_per_s"] / r["index_without_per_s"]
    return "\n".join(
        [
            "## Query service: search latency with paper vectors",
            "",
            f"`uv run python bench/search_latency.py --papers {r['papers']} --embedded {r['embedded']}` "
            f"({datetime.now(UTC):%Y-%m-%d}, load average {r['load']:.1f} at the end). {r['papers']:,} documents = "
            f"the {r['distinct_corpus_papers']:,} distinct corpus papers (with their real Chinese summaries) "
            "replicated under distinct ids, each with a 384-dimension vector: the first "
            f"{r['embedded']:,} papers embedded by the local model, document i the vector of paper i mod "
            f"{r['embedded']:,} plus a little noise (embedding every corpus paper takes ~6 minutes here; latency "
            "depends on the number of vectors, not on their meaning). A fixed mix of 10 queries (full text, "
            "category / AI / status filters, the three sorts, deep pages), "
            f"{r['queries']} timed requests per path; similar papers (10) of {SIMILAR_SAMPLE} papers, "
            f"{r['similar_requests']} timed requests per path. Targets: p99 < 50 ms through the API, API overhead "
            "≤ 20 %.",
            "",
            "| path | p50 ms | p99 ms |",
            "|---|---:|---:|",
            f"| query API, by words (`semantic=0`) | {r['api_p50']:.1f} | {r['api_p99']:.1f} |",
            f"| Meilisearch directly (same search, raw HTTP) | {r['meili_p50']:.1f} | {r['meili_p99']:.1f} |",
            f"| query API, words and meaning (`semantic=0.5`) | {r['hybrid_p50']:.1f} | {r['hybrid_p99']:.1f} |",
            f"| query API, meaning only (`semantic=1`) | {r['semantic_p50']:.1f} | {r['semantic_p99']:.1f} |",
            f"| query API, `GET /api/papers/{{id}}/similar` | {r['similar_p50']:.1f} | {r['similar_p99']:.1f} |",
            f"| Meilisearch directly, `/similar` | {r['similar_meili_p50']:.1f} | {r['similar_meili_p99']:.1f} |",
            "",
            f"API overhead at p50: {r['overhead_p50'] * 100:.0f} % "
            f"({r['api_p50'] - r['meili_p50']:.1f} ms); an empty request to the same service "
            f"(`GET /healthz`) takes {r['floor_p50']:.1f} ms at p50. The hybrid search costs "
            f"{r['hybrid_p50'] - r['api_p50']:.1f} ms more than words alone at p50 "
            f"({r['hybrid_p99'] - r['api_p99']:.1f} ms at p99): the query text's embedding on the query service's CPU "
            "plus Meilisearch's vector search and the blend.",
            "",
            f"Index stage, same documents, same run (batches of {INDEX_BATCH:,}, each task awaited, as the indexer "
            f"does): {r['index_without_per_s']:,.0f} documents/s without vectors, {r['index_with_per_s']:,.0f} with "
            f"them (each batch's vectors read from `paper_vectors` by id, written as `_vectors`): vectors cost "
            f"{cost * 100:.0f} % of the throughput (target: at most 25 %); reading the vectors from MongoDB and "
            f"adding them to the documents took {r['index_reading_share'] * 100:.0f} % of the stage's time, the rest "
            "is Meilisearch storing the vectors and building their graph.",
            "",
        ]
    )


def write_section(text: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\nMachine: 2 cores, shared.\n\n"
    heading = "## Query service: search latency with paper vectors"
    if heading in current:
        before, _, after = current.partition(heading)
        rest = after.split("\n## ", 1)
        current = before + ("## " + rest[1] if len(rest) > 1 else "")
    path.write_text(current.rstrip("\n") + "\n\n" + text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--embedded", type=int, default=500, help="distinct papers the local model embeds")
    parser.add_argument("--rounds", type=int, default=20, help="times the query mix is run")
    parser.add_argument("--write-docs", action="store_true", help="replace the section in docs/benchmarks.md")
    args = parser.parse_args()
    result = run(args.papers, args.embedded, args.rounds)
    text = report(result)
    print(text)
    if args.write_docs:
        write_section(text)


if __name__ == "__main__":
    main()
