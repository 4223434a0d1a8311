"""Meilisearch at the size of all of CS, measured at steps: the index of the query service (its settings, both
embedders: MiniLM's `paper` and e5's `paper_multilingual`) filled with the real corpus replicated under distinct ids,
each document with both vectors, and at each step (e.g. 100,000 and 200,000 papers):

- the indexing rate of that step (batches of INDEX_BATCH documents, each task awaited, as the indexer writes);
- the index's size on disk and Meilisearch's memory: resident now, its own (RssAnon: mostly indexing buffers, which
  Meilisearch lets grow to 2/3 of the machine's memory by default) and of its mapped files (RssFile: the index's
  pages, reclaimable), and its peak (VmHWM);
- search latency p50 / p99 straight to Meilisearch (raw HTTP, the bodies the query service sends): by words (the
  search_latency mix, with facets), and the vector search of a search by meaning alone with MiniLM's vector and with
  e5's (the 150 closest ids, cut at the closeness floor by the query service; and, as before, with the floor sent as
  `rankingScoreThreshold`; the query vectors made beforehand, so the figure is the index's, not the query's
  embedding).

Vectors: the first `--embedded` distinct corpus papers embedded by both models, document i that vector of paper
i mod `--embedded` moved by a little noise and normalised (embedding every replica would take days here; the cost of
the graph depends on the count of vectors, not on their meaning). Starts its own Meilisearch (the local stack's
pinned binary, temporary folder); stops it at the end.

    uv run python bench/index_scale.py [--steps 100000 200000] [--embedded 200] [--rounds 10]
"""

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.search_latency import INDEX_BATCH, MIX, corpus_events, paper_query, percentile, replicas  # noqa: E402
from bench.zh_search import KEY, meilisearch  # noqa: E402
from papertrail.domain.search_document import EMBEDDER, SEARCH_EMBEDDER, with_vector  # noqa: E402
from papertrail.embedding.backends import open_embedder  # noqa: E402
from papertrail.embedding.embedder import (  # noqa: E402
    E5_SMALL_Q4,
    MINILM_INT8,
    EmbeddingSettings,
    SearchEmbeddingSettings,
    embedding_text,
    l2_normalised,
)
from papertrail.runtime.search import make_search_client  # noqa: E402
from papertrail.runtime.settings import InfraSettings  # noqa: E402
from schemas.events import PaperEnriched  # noqa: E402
from services.query.catalogue.index import HUB_POOL, PaperIndex, search_body  # noqa: E402
from services.query.catalogue.reads.papers import LIST_FIELDS  # noqa: E402

NAME = "papers"
# Chinese and English subjects as readers type them; e5 embeds both, MiniLM the English ones
MEANING_QUERIES = ["diffusion model acceleration", "retrieval augmented generation", "graph neural networks",
                   "大模型推理", "扩散模型加速", "多模态大模型幻觉", "三维高斯泼溅", "联邦学习隐私"]  # fmt: skip


async def base_vectors(events: list[PaperEnriched], embedded: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Both models' vectors of the first `embedded` papers, and the meaning queries' vectors of each."""
    texts = [embedding_text(e.paper.title, e.paper.abstract or "") for e in events[:embedded]]
    search = SearchEmbeddingSettings(search_embedding_model=E5_SMALL_Q4.id).search_embedding
    assert search is not None
    made: list[np.ndarray] = []
    queries: dict[str, Any] = {}
    for name, settings in ((EMBEDDER, EmbeddingSettings(embedding_threads=2)), (SEARCH_EMBEDDER, search)):
        embedder = open_embedder(settings.model_copy(update={"embedding_threads": 2}))
        try:
            made.append(np.vstack([o.vector for o in await embedder.embed(texts) if o.vector is not None]))
            asked = [q for q in MEANING_QUERIES if name == SEARCH_EMBEDDER or q.isascii()]
            outcomes = await embedder.embed(asked, role="query")
            queries[name] = [
                (q, [float(x) for x in o.vector]) for q, o in zip(asked, outcomes, strict=True) if o.vector is not None
            ]
        finally:
            await embedder.close()
    return made[0], made[1], queries


def near(base: np.ndarray, numbers: range, seed: int) -> np.ndarray:
    """Document n's vector: paper n mod len(base)'s, moved by a little noise, length 1."""
    noise = np.random.default_rng([seed, numbers.start]).normal(0, 0.02, (len(numbers), base.shape[1]))
    return l2_normalised((base[np.array(numbers) % len(base)] + noise).astype(np.float32))


def memory_kib(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    return {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith(("Vm", "Rss"))}


def size_on_disk(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


async def latencies(url: str, queries: dict[str, Any], rounds: int) -> dict[str, tuple[float, float, int]]:
    """p50 / p99 ms and the count of requests per path, straight to Meilisearch."""
    bodies: dict[str, list[dict[str, Any]]] = {"words": []}
    for mix in MIX:
        bodies["words"].append(search_body(paper_query(mix), LIST_FIELDS))
    for name, asked in queries.items():
        floor = E5_SMALL_Q4.meaning_min_score - E5_SMALL_Q4.meaning_floor_margin
        floor = floor if name == SEARCH_EMBEDDER else MINILM_INT8.meaning_min_score
        for _, vector in asked:
            # the first of a search by meaning alone's two requests: the HUB_POOL × 50 closest ids, cut at the floor
            # by the query service (the second, among those ids, costs what a filtered search by words does); and
            # the same with the floor sent as Meilisearch's rankingScoreThreshold, as before
            query = paper_query({"q": "", "sort": "relevance", "size": HUB_POOL * 50})
            body = search_body(query, ["paper_id"], vector, name, floor) | {"facets": None, "showRankingScore": True}
            body |= {"hybrid": {"embedder": name, "semanticRatio": 1.0}}
            bodies.setdefault(f"{name}, threshold", []).append(body)
            bodies.setdefault(name, []).append({k: v for k, v in body.items() if k != "rankingScoreThreshold"})
    times: dict[str, list[float]] = {path: [] for path in bodies}
    headers = {"Authorization": f"Bearer {KEY}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
        for body in (b for bs in bodies.values() for b in bs):  # warm-up, untimed
            (await http.post(f"/indexes/{NAME}/search", json=body)).raise_for_status()
        for _ in range(rounds):
            for path, each in bodies.items():
                for body in each:
                    started = time.perf_counter()
                    (await http.post(f"/indexes/{NAME}/search", json=body)).raise_for_status()
                    times[path].append((time.perf_counter() - started) * 1000)
    return {path: (percentile(t, 50), percentile(t, 99), len(t)) for path, t in times.items()}


async def run(args: argparse.Namespace) -> None:
    events = corpus_events()
    print(f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; {len(events):,} corpus papers")
    started = time.perf_counter()
    minilm, e5, queries = await base_vectors(events, args.embedded)
    print(f"{args.embedded} papers embedded by both models in {time.perf_counter() - started:.0f} s")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        with meilisearch(Path(folder)) as (url, pid):
            infra = InfraSettings(meili_url=url, meili_master_key=KEY)
            client = make_search_client(infra)
            index = PaperIndex(client, NAME, task_timeout_s=3600, vector_dimensions=minilm.shape[1],
                               search_dimensions=e5.shape[1])  # fmt: skip
            await index.ensure()
            held = 0
            print(
                "| papers | indexing docs/s (this step) | on disk | Meilisearch resident anon + file / peak "
                "| words p50 / p99 ms | MiniLM meaning | e5 meaning | MiniLM meaning, floor as threshold "
                "| e5, floor as threshold | load |"
            )
            print("|---:|---:|---:|---:|---|---|---|---|---|---:|")
            for step in args.steps:
                step_started = time.perf_counter()
                for first in range(held, step, INDEX_BATCH):
                    numbers = range(first, min(first + INDEX_BATCH, step))
                    paper_vectors, search_vectors = near(minilm, numbers, 1), near(e5, numbers, 2)
                    documents = [
                        with_vector(with_vector(doc, paper_vectors[n - first]), search_vectors[n - first],
                                    SEARCH_EMBEDDER)
                        for n, doc in replicas(events, numbers.start, len(numbers))
                    ]  # fmt: skip
                    await index.upsert(documents)
                rate = (step - held) / (time.perf_counter() - step_started)
                held = step
                memory = memory_kib(pid)
                timed = await latencies(url, queries, args.rounds)
                paths = ("words", EMBEDDER, SEARCH_EMBEDDER, f"{EMBEDDER}, threshold", f"{SEARCH_EMBEDDER}, threshold")
                cells = [f"{timed[p][0]:.1f} / {timed[p][1]:.1f}" for p in paths]
                resident = "{:.2f} + {:.2f} / {:.2f} GiB".format(
                    *(memory[field] / 2**20 for field in ("RssAnon", "RssFile", "VmHWM"))
                )
                print(f"| {step:,} | {rate:.0f} | {size_on_disk(data) / 2**30:.2f} GiB | {resident} | "
                      + " | ".join(cells) + f" | {os.getloadavg()[0]:.1f} |", flush=True)  # fmt: skip
            await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[100_000, 200_000], help="papers held at each step")
    parser.add_argument("--embedded", type=int, default=200, help="distinct papers both models embed")
    parser.add_argument("--rounds", type=int, default=10, help="times each query is timed at each step")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
