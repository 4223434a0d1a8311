"""Benchmark: Chinese queries through the search the site runs (find_papers over a real Meilisearch: words, the
fallback to meaning, the 50 closest), on the May 2026 corpus.

Two measures, each on two indexes of the same papers: `english`, the papers as a run without a summary model holds
them (title and abstract), and `summarized`, with the corpus's Chinese TL;DR and 导读 as their AI summary (another
system wrote them, as our summarizer would):

- the first clause of a paper's Chinese TL;DR as the query (bench/zh_retrieval.py's queries), searched by meaning
  (`semantic=1`): recall@10 and MRR of that paper (on `summarized` the query is a piece of the paper's own TL;DR, so
  only the English index measures the model);
- hand-picked Chinese queries (bench/zh_queries.json, with how they were drawn and labelled) searched as the page's
  search box sends them (`semantic=0`: by words, by meaning when no paper holds the words): the share of the first
  10 papers (or of fewer, when it lists fewer) labelled relevant, how many results the search says it found, and
  which search answered.

    uv run python bench/zh_search.py [--papers 1500] [--queries 300] [--dump]

Every paper is embedded once by the default search model (multilingual-e5-small-q4, as a passage) and indexed with
that vector as `_vectors.paper_multilingual`; queries are embedded by the index's own code. `--dump` prints every
query's first 10 titles (to label new queries) and writes nothing.
"""

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.zh_retrieval import corpus, first_clause
from papertrail.domain.search_document import EMBEDDER, SEARCH_EMBEDDER, document_id, paper_fields, with_vector
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import E5_SMALL_Q4, SearchEmbeddingSettings, embedding_text
from papertrail.embedding.query_hubs import reference_queries
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from papertrail_tools.stack import meilisearch_binary
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.papers import find_papers
from services.query.catalogue.reads.search import PaperListing
from tests.support.corpus import SHARED_CORPUS, read_lines
from tests.support.servers import free_port

ROOT = Path(__file__).resolve().parents[1]
LABELS = Path(__file__).with_name("zh_queries.json")
GUIDE = ("motivation", "method", "result", "conclusion")
KEY = "bench-master-key-0123456789"


@contextmanager
def meilisearch(folder: Path):  # type: ignore[no-untyped-def]
    """A Meilisearch of the local stack's pinned binary on a free port, its data in `folder / "data"`: its URL and
    process id."""
    port = free_port()
    binary = meilisearch_binary(ROOT / ".stack" / "npm")
    process = subprocess.Popen(
        [str(binary), "--db-path", str(folder / "data"), "--http-addr", f"127.0.0.1:{port}", "--master-key", KEY,
         "--no-analytics", "--env", "development"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def summaries() -> dict[str, dict[str, str]]:
    """The corpus's Chinese summary of each paper (its first listing), as a search document's fields hold one."""
    found: dict[str, dict[str, str]] = {}
    for record in read_lines(sorted(SHARED_CORPUS.glob("*.jsonl.gz"))):
        ai = record.get("AI") or {}
        if f"arxiv:{record['id']}" not in found and ai.get("tldr"):
            found[f"arxiv:{record['id']}"] = {"tldr_zh": ai["tldr"], **{f"{p}_zh": ai.get(p) or "" for p in GUIDE}}
    return found


def documents(papers: list, vectors: np.ndarray, chinese: dict[str, dict[str, str]] | None) -> list[dict[str, Any]]:
    docs = []
    for paper, vector in zip(papers, vectors, strict=True):
        doc = {"id": document_id(paper.id), **paper_fields(paper), "updated_ts": 0}
        if chinese is not None and paper.id in chinese:
            zh = chinese[paper.id]
            doc |= {"tldr_zh": zh["tldr_zh"], "summary": {k: v for k, v in zh.items() if k != "tldr_zh"}}
        docs.append(with_vector(with_vector(doc, None, EMBEDDER), vector, SEARCH_EMBEDDER))
    return docs


async def run(args: argparse.Namespace) -> None:
    papers, tldrs = corpus()
    papers, tldrs = papers[: args.papers], tldrs[: args.papers]
    chinese = summaries()
    labelled = json.loads(LABELS.read_text(encoding="utf-8"))
    with_tldr = np.array([i for i, t in enumerate(tldrs) if first_clause(t)])
    targets = np.sort(np.random.default_rng(0).choice(with_tldr, min(args.queries, len(with_tldr)), replace=False))
    search = SearchEmbeddingSettings(search_embedding_model=E5_SMALL_Q4.id).search_embedding
    assert search is not None
    embedder = open_embedder(search)
    cache = Path(tempfile.gettempdir()) / f"zh_search_{E5_SMALL_Q4.id}_{len(papers)}.npy"
    if cache.exists():  # a second run (after --dump) reuses the first's vectors: embedding is most of the time
        vectors = np.load(cache)
    else:
        started = time.perf_counter()
        texts = [embedding_text(p.title, p.abstract) for p in papers]
        outcomes = [o for i in range(0, len(texts), 64) for o in await embedder.embed(texts[i : i + 64], "passage")]
        vectors = np.vstack([o.vector if o.vector is not None else np.zeros(E5_SMALL_Q4.dimensions) for o in outcomes])
        np.save(cache, vectors)
        print(f"{len(papers)} papers embedded by {E5_SMALL_Q4.id} in {time.perf_counter() - started:.0f} s")
    infra = InfraSettings(meili_url="http://unused", meili_master_key=KEY)
    with tempfile.TemporaryDirectory() as folder, meilisearch(Path(folder)) as (url, _):
        client = make_search_client(infra.model_copy(update={"meili_url": url}))
        results: dict[str, dict[str, Any]] = {}
        for name, zh in (("english", None), ("summarized", chinese)):
            hubs = reference_queries(E5_SMALL_Q4.id)
            margin = E5_SMALL_Q4.meaning_floor_margin
            # by cosine over the fixed floor (before), hub-corrected, then as the site ranks: with the floor that
            # follows a short query's closest paper
            for n, (reference, floor_margin, variant) in enumerate(
                ((None, 0.0, ""), (hubs, 0.0, ", hub-corrected"), (hubs, margin, ", hub-corrected, relative floor"))
            ):
                index = PaperIndex(
                    client, f"bench_{name}", task_timeout_s=600, vector_dimensions=E5_SMALL_Q4.dimensions,
                    query_embedder=None, search_dimensions=E5_SMALL_Q4.dimensions,
                    search_embedder=embedder, search_min_score=E5_SMALL_Q4.meaning_min_score,
                    search_floor_margin=floor_margin, search_hub_reference=reference,
                )  # fmt: skip
                if n == 0:
                    await index.ensure()
                    docs = documents(papers, vectors, zh)
                    for first in range(0, len(docs), 500):
                        await index.upsert(docs[first : first + 500])
                label = name + variant
                results[label] = await measure(index, papers, tldrs, targets, labelled["queries"], args.dump)
        await client.aclose()
    if not args.dump:
        report(results, len(papers), len(targets))


async def measure(index: PaperIndex, papers: list, tldrs: list[str], targets: np.ndarray, picked: list[dict],
                  dump: bool) -> dict[str, Any]:  # fmt: skip
    ranks = []
    for i in targets:
        found = await find_papers(index, PaperListing(q=first_clause(tldrs[i]), semantic=1, size=50).query())
        ids = [hit["paper_id"] for hit in found["hits"]]
        ranks.append(ids.index(papers[i].id) + 1 if papers[i].id in ids else None)
    shares, rows, listed = [], [], Counter[str]()
    for query in picked:
        found = await find_papers(index, PaperListing(q=query["q"], size=10).query())
        ids = [hit["paper_id"] for hit in found["hits"]]
        if dump:
            print(f"\n{index.name} {query['q']} ({found['mode']}, {found['total']})")
            for hit in found["hits"]:
                print(f"  {hit['paper_id']}  {hit['title'][:110]}")
            continue
        unlabelled = [p for p in ids if p not in query["relevant"] and p not in query["not_relevant"]]
        if unlabelled:
            raise SystemExit(f"{query['q']}: unlabelled results {unlabelled}; run with --dump and label them")
        relevant = sum(p in query["relevant"] for p in ids)
        listed.update(ids)
        shares.append(relevant / len(ids) if ids else 0.0)
        rows.append((query["q"], found["mode"], found["total"], f"{relevant} of {len(ids)}"))
    found_at = np.array([r if r is not None else 10**6 for r in ranks])
    return {
        "recall10": float((found_at <= 10).mean()),
        "mrr": float(np.mean([1 / r if r is not None else 0 for r in ranks])),
        "precision10": float(np.mean(shares)) if shares else float("nan"),  # relevant among those listed, ≤ 10
        "rows": rows,
        "most_listed": max(listed.values(), default=0),  # of the hand-picked queries, most first-10s one paper is in
    }


def report(results: dict[str, dict[str, Any]], papers: int, queries: int) -> None:
    print(f"\nload at the end {os.getloadavg()[0]:.1f}")
    print(f"\nTL;DR first clauses ({queries} papers' own) by meaning, the 50 closest of {papers:,} papers:")
    print("| index | recall@10 | MRR |\n|---|---|---|")
    for name, got in results.items():
        print(f"| {name} | {got['recall10']:.3f} | {got['mrr']:.3f} |")
    print("\nhand-picked queries as the search box sends them (by words; by meaning when no paper holds them):")
    print("| query | " + " | ".join(f"{n}: answered by, found, relevant of the first 10" for n in results) + " |")
    print("|---|" + "---|" * len(results))
    names = list(results)
    for n, (q, *_) in enumerate(results[names[0]]["rows"]):
        cells = [f"{results[name]['rows'][n][1]}, {results[name]['rows'][n][2]}, {results[name]['rows'][n][3]}"
                 for name in names]  # fmt: skip
        print(f"| {q} | " + " | ".join(cells) + " |")
    print(
        "| share relevant of those listed, mean | "
        + " | ".join(f"{results[name]['precision10']:.2f}" for name in names)
        + " |"
    )
    most = " | ".join(str(results[name]["most_listed"]) for name in names)
    print(f"| most queries one paper is listed for | {most} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=1500, help="the first N corpus papers")
    parser.add_argument("--queries", type=int, default=300, help="papers sampled for a TL;DR query each")
    parser.add_argument("--dump", action="store_true", help="print the hand-picked queries' first 10 titles")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d %H:%M')} UTC, {platform.machine()}, {os.cpu_count()} cores, load {load:.1f}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
