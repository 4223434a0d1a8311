"""Benchmark: are the vectors' neighbours the right papers? Our embeddings against arxiv-sanity-lite's tf-idf on the
May 2026 corpus, in one run: (1) of each paper's 10 nearest, how many share its primary arXiv category; (2) for each
catalogue subtopic, a "papers like these" follow seeded with 5 papers its keyword rule hits: which of the rule's
other papers it finds, threshold by threshold, scored by the closest seed, by the seeds' centroid, or by the higher
of both; seeded on one subtopic, then on two (3 + 2 seeds). The default threshold of `similar` follows comes out of
(2).

    uv run python bench/embed_quality.py [--vectors PATH] [--also-fp32] [--draws 5]

--vectors: the corpus vectors bench/embed_throughput.py --corpus saved (computed here when missing).
The rule's hits are a noisy truth: a paper the rule misses but the follow finds counts against the follow.
"""

import argparse
import asyncio
import os
import platform
import sys
import time
from collections import defaultdict
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.embed_throughput import DEFAULT_SAVE, fp32_model
from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import MINILM_INT8, EmbeddingSettings, embedding_text
from papertrail.embedding.local_model import LocalEmbedder, LocalModel, packaged_file
from schemas.paper import Paper
from services.query.catalogue.indexer.topic_tags import TopicTagger
from tests.support.corpus import corpus_papers

EMBEDDING_THRESHOLDS = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]
TFIDF_THRESHOLDS = [0.05, 0.08, 0.10, 0.12, 0.15, 0.20, 0.25, 0.30]
SEEDS = 5


def tfidf_vectors(papers: list[Paper]) -> np.ndarray:
    """arxiv-sanity-lite's compute.py (karpathy/arxiv-sanity-lite at 194b7f4): its vectorizer, its text (title,
    abstract, author names), rows of length 1, so a dot product is its cosine."""
    # imported here: tests import this module's neighbours (bench/zh_retrieval.py), and every pytest worker's
    # collection would import scikit-learn and SciPy for nothing
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        input="content",
        encoding="utf-8",
        decode_error="replace",
        strip_accents="unicode",
        lowercase=True,
        analyzer="word",
        stop_words="english",
        token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
        ngram_range=(1, 2),
        max_features=10_000,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=True,
        max_df=0.5,
        min_df=5,
    )
    texts = [" ".join([p.title, p.abstract, " ".join(a.name for a in p.authors)]) for p in papers]
    return vectorizer.fit_transform(texts).astype(np.float32).toarray()


async def engine_vectors(papers: list[Paper], embedder: LocalEmbedder) -> np.ndarray:
    outcomes = await embedder.embed([embedding_text(p.title, p.abstract) for p in papers])
    await embedder.close()
    return np.vstack([o.vector if o.vector is not None else np.zeros(384, np.float32) for o in outcomes])


def load_or_embed(papers: list[Paper], path: Path) -> np.ndarray:
    settings = EmbeddingSettings()
    if path.exists():
        saved = np.load(path)
        if list(saved["ids"]) == [p.id for p in papers] and str(saved["model_key"]) == settings.model_key:
            return saved["vectors"]
    embedder = open_embedder(settings)
    assert isinstance(embedder, LocalEmbedder)
    return asyncio.run(engine_vectors(papers, embedder))


def shared_category_in_top10(vectors: np.ndarray, primary: np.ndarray) -> float:
    """Mean, over papers, of how many of the 10 nearest other papers have the same primary category."""
    total = 0
    for start in range(0, len(vectors), 512):
        scores = vectors[start : start + 512] @ vectors.T
        rows = np.arange(scores.shape[0])
        scores[rows, start + rows] = -np.inf  # not its own neighbour
        nearest = np.argpartition(-scores, 10, axis=1)[:, :10]
        total += int((primary[nearest] == primary[start : start + 512, None]).sum())
    return total / len(vectors)


def subtopic_hits(papers: list[Paper]) -> dict[str, set[int]]:
    tagger = TopicTagger(load_catalogue())
    hits: dict[str, set[int]] = defaultdict(set)
    for i, paper in enumerate(papers):
        for reasons in tagger.of(paper).values():
            for reason in reasons:
                hits[reason["subtopic_id"]].add(i)
    return hits


SCORINGS = ("closest seed", "centroid", "higher of both")


def follow_scores(vectors: np.ndarray, seeds: np.ndarray, how: str) -> np.ndarray:
    closest = (vectors @ vectors[seeds].T).max(axis=1)
    centroid = vectors[seeds].mean(axis=0)
    together = vectors @ (centroid / np.linalg.norm(centroid))
    return {"closest seed": closest, "centroid": together, "higher of both": np.maximum(closest, together)}[how]


def seed_draws(hits: dict[str, set[int]], draws: int, subjects: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(seeds, the rule's other papers) of each follow: 5 seeds from one subtopic, or from two (3 + 2; then the
    others are both subtopics' papers), over `draws` draws."""
    follows = []
    names = sorted(hits)
    for draw in range(draws):
        rng = np.random.default_rng(draw)
        for i, subtopic in enumerate(names):
            chosen = [subtopic] if subjects == 1 else [subtopic, names[(i + 1 + draw) % len(names)]]
            counts = [SEEDS] if subjects == 1 else [3, 2]
            members = [np.array(sorted(hits[s])) for s in chosen]
            picks = [rng.choice(m, n, replace=False) for m, n in zip(members, counts, strict=True)]
            seeds = np.unique(np.concatenate(picks))
            follows.append((seeds, np.setdiff1d(np.unique(np.concatenate(members)), seeds)))
    return follows


def seeded_follows(
    vectors: np.ndarray, follows: list[tuple[np.ndarray, np.ndarray]], how: str, thresholds: list[float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Pooled over the follows: found (rule papers reached), matched (all papers reached) and rule papers, per
    threshold; and the mean R-precision (of the rule's n other papers, how many rank in the top n)."""
    found = np.zeros(len(thresholds))
    matched = np.zeros(len(thresholds))
    relevant = 0
    r_precision = []
    limits = np.array(thresholds, dtype=np.float32)
    for seeds, others in follows:
        scores = follow_scores(vectors, seeds, how)
        scores[seeds] = -np.inf  # the seeds themselves are no news
        reached = scores[:, None] >= limits
        found += reached[others].sum(axis=0)
        matched += reached.sum(axis=0)
        relevant += len(others)
        top = np.argpartition(-scores, len(others))[: len(others)]
        r_precision.append(len(np.intersect1d(top, others)) / len(others))
    return found, matched, np.full(len(thresholds), relevant), float(np.mean(r_precision))


def report_follows(
    name: str, vectors: np.ndarray, follows: list[tuple[np.ndarray, np.ndarray]], thresholds: list[float]
) -> None:
    for how in SCORINGS:
        found, matched, relevant, r_precision = seeded_follows(vectors, follows, how, thresholds)
        print(f"\n{name}, scored by the {how}: R-precision {r_precision:.3f}")
        print(f"{'threshold':>9} {'recall':>7} {'precision':>9} {'F1':>5} {'papers/follow':>13}")
        for t, f, m, r in zip(thresholds, found, matched, relevant, strict=True):
            recall, precision = f / r, f / m if m else 0.0
            f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
            print(f"{t:>9.2f} {recall:>7.3f} {precision:>9.3f} {f1:>5.3f} {m / len(follows):>13.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=DEFAULT_SAVE)
    parser.add_argument("--also-fp32", action="store_true", help="also embed the corpus with the fp32 weights")
    parser.add_argument("--draws", type=int, default=5, help="draws of 5 seeds per subtopic")
    args = parser.parse_args()

    print(f"{date.today()}, machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    papers = corpus_papers()
    primary = np.array([p.categories[0] if p.categories else "" for p in papers])
    shares = np.unique(primary, return_counts=True)[1] / len(papers)
    chance = float(((shares * (len(papers) * shares - 1)) / (len(papers) - 1)).sum() * 10)
    methods: dict[str, np.ndarray] = {}
    started = time.perf_counter()
    methods["tf-idf (arxiv-sanity-lite)"] = tfidf_vectors(papers)
    print(f"tf-idf fitted in {time.perf_counter() - started:.1f} s")
    methods[f"embeddings ({MINILM_INT8.id})"] = load_or_embed(papers, args.vectors)
    if args.also_fp32:
        tokenizer = packaged_file(MINILM_INT8.tokenizer)
        model = LocalModel(fp32_model(), tokenizer, dimensions=384, max_tokens=256)
        fp32 = LocalEmbedder(model, EmbeddingSettings())
        methods["embeddings (all-MiniLM-L6-v2 fp32)"] = asyncio.run(engine_vectors(papers, fp32))

    print(
        f"\n{len(papers)} papers, {len(set(primary))} primary categories; by chance {chance:.2f} of 10 would share it"
    )
    print(f"{'method':<40} {'of the 10 nearest, same primary category':>42}")
    for name, vectors in methods.items():
        print(f"{name:<40} {shared_category_in_top10(vectors, primary):>42.2f}")

    hits = {s: members for s, members in subtopic_hits(papers).items() if len(members) >= 2 * SEEDS}
    sizes = sorted(len(m) for m in hits.values())
    print(
        f"\nsubtopics with at least {2 * SEEDS} rule hits: {len(hits)} (hits: median {sizes[len(sizes) // 2]}, "
        f"{sizes[0]}..{sizes[-1]}); {args.draws} draws of {SEEDS} seeds each"
    )
    for subjects in (1, 2):
        follows = seed_draws(hits, args.draws, subjects)
        print(f"\n### follows seeded on {subjects} subtopic{'s' if subjects > 1 else ''}: {len(follows)} follows")
        for name, vectors in methods.items():
            thresholds = TFIDF_THRESHOLDS if name.startswith("tf-idf") else EMBEDDING_THRESHOLDS
            report_follows(name, vectors, follows, thresholds)


if __name__ == "__main__":
    main()
