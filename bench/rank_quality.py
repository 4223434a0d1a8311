"""Benchmark: does a reader's ranked feed (services/query/recommender/ranking.py) put the papers they want first?
Simulated readers on the May 2026 corpus, in one run, against newest-first and arxiv-sanity-lite's tf-idf SVM; then the
time to retrain a reader with 1,000 saved papers and to score one day's papers for 1,000 readers.

    uv run python bench/rank_quality.py [--vectors PATH] [--readers-per-split 60] [--window 7]

A simulated reader comes from the topic catalogue (services/matcher/topics.toml, its keyword rules): before a split
day they save 10 papers one subtopic's rule hits and dismiss 10 that another's hits; the papers first listed in the
`--window` days from the split day are the feed, and the truth is which of them the first subtopic's rule hits.
Precision@20 of each ranking of the feed:
  (a) ranked feed: ranking.train on the embeddings (saves, dismissals, 1,000 background papers from before the split);
  (b) newest first: the feed's last day, in listing order;
  (c) arxiv-sanity-lite's svm_rank (karpathy/arxiv-sanity-lite at 194b7f4, serve.py): LinearSVC(class_weight=
      "balanced", C=0.01, tol=1e-6, max_iter=10000) on its tf-idf of every paper in the database (those before the
      split and the feed), the saved papers labelled 1 and all others 0; sanity-lite has no "dismiss", so dismissed
      papers are zeros like the rest.
Also, to tell the features from the learner: (d) the same LinearSVC recipe on the embeddings, (e) ranking.train's
recipe on the tf-idf, and ranking.train with other background weights and C. The rule hits are a lexical truth (see
docs/benchmarks.md on embed_quality): it favours tf-idf.
--vectors: the corpus vectors bench/embed_throughput.py --corpus saved (computed here when missing).
"""

import argparse
import gzip
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.svm import LinearSVC

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.embed_quality import load_or_embed, subtopic_hits, tfidf_vectors
from bench.embed_throughput import DEFAULT_SAVE
from papertrail.embedding.embedder import EmbeddingSettings, embedding_text
from services.query.recommender import ranking
from tests.support.corpus import SHARED_CORPUS, corpus_papers

SAVES = DISMISSALS = 10
TOP = 20
BACKGROUND = 1000
# The hybrid view: the words of title + abstract hashed (no vocabulary to keep as the corpus grows), beside the
# embedding; HASHED_WEIGHT scales the word block against the unit-length embedding.
HASHED_FEATURES = 2**12
HASHED_WEIGHT = 1.0
SPLIT_DAYS = (10, 14, 18, 22)  # index of the split day among the corpus's listing days


def first_listing(folder: Path) -> tuple[dict[str, int], dict[str, int]]:
    """Each paper's first listing day (index) and its place in that day's listing."""
    day_of: dict[str, int] = {}
    place: dict[str, int] = {}
    for day, path in enumerate(sorted(folder.glob("*.jsonl.gz"))):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for n, line in enumerate(lines):
                if line.strip():
                    paper_id = f"arxiv:{json.loads(line)['id']}"
                    if paper_id not in day_of:
                        day_of[paper_id], place[paper_id] = day, n
    return day_of, place


def sanity_svm(features: sparse.csr_matrix | np.ndarray, positives: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """arxiv-sanity-lite's svm_rank over `pool` (indices): its LinearSVC, saved papers 1, the rest of the pool 0."""
    labels = np.zeros(len(pool))
    labels[np.isin(pool, positives)] = 1
    svm = LinearSVC(class_weight="balanced", verbose=False, max_iter=10000, tol=1e-6, C=0.01)
    svm.fit(features[pool], labels)
    return svm.decision_function(features)


def precision_at(order: np.ndarray, relevant: set[int]) -> float:
    return sum(int(i) in relevant for i in order[:TOP]) / TOP


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=DEFAULT_SAVE)
    parser.add_argument("--readers-per-split", type=int, default=60)
    parser.add_argument("--window", type=int, default=7, help="days of papers in the feed after the split day")
    parser.add_argument("--hashed-weight", type=float, default=HASHED_WEIGHT, help="the word block's scale in (f)")
    parser.add_argument("--min-feed-hits", type=int, default=10, help="feed papers the saved subtopic must hit")
    args = parser.parse_args()

    print(f"{date.today()}, machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    papers = corpus_papers()
    vectors = load_or_embed(papers, args.vectors)
    started = time.perf_counter()
    tfidf = sparse.csr_matrix(tfidf_vectors(papers))
    print(f"{len(papers)} papers; tf-idf fitted in {time.perf_counter() - started:.1f} s")
    day_of, place = first_listing(SHARED_CORPUS)
    days = np.array([day_of[p.id] for p in papers])
    places = np.array([place[p.id] for p in papers])
    hits = subtopic_hits(papers)
    model_key = EmbeddingSettings().model_key

    def ours(background_weight: float, c: float, features: np.ndarray) -> Callable[..., np.ndarray]:
        def rank(
            saves: np.ndarray, dismissals: np.ndarray, background: np.ndarray, feed: np.ndarray, pool: np.ndarray
        ) -> np.ndarray:
            ranking.BACKGROUND_WEIGHT, ranking.C = background_weight, c
            model = ranking.train(features[saves], features[dismissals], features[background], model_key=model_key)
            assert model is not None
            return ranking.scores(model, features[feed])

        return rank

    dense_tfidf = tfidf.toarray()
    hasher = HashingVectorizer(n_features=HASHED_FEATURES, alternate_sign=False, stop_words="english", norm="l2")
    hashed = hasher.transform([embedding_text(p.title, p.abstract) for p in papers]).toarray().astype(np.float32)
    hybrid = np.hstack([vectors, args.hashed_weight * hashed]).astype(np.float32)
    methods: dict[str, Callable[..., np.ndarray]] = {
        "(a) ranked feed: ranking.train on embeddings": ours(ranking.BACKGROUND_WEIGHT, ranking.C, vectors),
        "(c) arxiv-sanity-lite: tf-idf + its SVM": lambda s, d, b, feed, pool: sanity_svm(tfidf, s, pool)[feed],
        "(d) its SVM on embeddings": lambda s, d, b, feed, pool: sanity_svm(vectors, s, pool)[feed],
        "(e) ranking.train on tf-idf": ours(ranking.BACKGROUND_WEIGHT, ranking.C, dense_tfidf),
        "(f) ranking.train on embeddings + hashed words": ours(ranking.BACKGROUND_WEIGHT, ranking.C, hybrid),
        "ranking.train, background weight 1": ours(1.0, ranking.C, vectors),
        "ranking.train, background weight 0.1": ours(0.1, ranking.C, vectors),
        "ranking.train, C=0.1": ours(ranking.BACKGROUND_WEIGHT, 0.1, vectors),
        "ranking.train, C=10": ours(ranking.BACKGROUND_WEIGHT, 10.0, vectors),
    }
    results: dict[str, list[float]] = {name: [] for name in methods}
    results["(b) newest first"] = []
    results["best possible"] = []
    seconds: dict[str, float] = dict.fromkeys(methods, 0.0)
    readers = 0
    rng = np.random.default_rng(17)
    subtopics = sorted(hits)
    for split in SPLIT_DAYS:
        before = np.flatnonzero(days < split)
        feed = np.flatnonzero((days >= split) & (days < split + args.window))
        pool = np.concatenate([before, feed])
        newest = feed[np.lexsort((places[feed], -days[feed]))]
        eligible = [
            s
            for s in subtopics
            if len(hits[s] & set(before)) >= 2 * SAVES and len(hits[s] & set(feed)) >= args.min_feed_hits
        ]
        for _ in range(args.readers_per_split):
            liked, disliked = rng.choice(eligible, 2, replace=False)
            saves_from = np.array(sorted((hits[liked] - hits[disliked]) & set(before)))
            dismiss_from = np.array(sorted((hits[disliked] - hits[liked]) & set(before)))
            if len(saves_from) < SAVES or len(dismiss_from) < DISMISSALS:
                continue
            saves = rng.choice(saves_from, SAVES, replace=False)
            dismissals = rng.choice(dismiss_from, DISMISSALS, replace=False)
            others = np.setdiff1d(before, np.concatenate([saves, dismissals]))
            background = rng.choice(others, min(BACKGROUND, len(others)), replace=False)
            relevant = hits[liked] & set(feed)
            readers += 1
            results["(b) newest first"].append(precision_at(newest, relevant))
            results["best possible"].append(min(len(relevant), TOP) / TOP)
            for name, rank in methods.items():
                started = time.perf_counter()
                feed_scores = rank(saves, dismissals, background, feed, pool=pool)
                seconds[name] += time.perf_counter() - started
                results[name].append(precision_at(feed[np.argsort(-feed_scores, kind="stable")], relevant))

    print(
        f"\n{readers} simulated readers ({len(SPLIT_DAYS)} split days, {args.window}-day feeds of "
        f"{np.mean([((days >= s) & (days < s + args.window)).sum() for s in SPLIT_DAYS]):.0f} papers on average); "
        f"saved subtopic hits ≥ {args.min_feed_hits} feed papers"
    )
    print(f"{'ranking':<46} {'precision@20':>12} {'±95%':>6} {'s/reader':>9}")
    for name, values in sorted(results.items(), key=lambda kv: kv[0]):
        spread = 1.96 * np.std(values) / np.sqrt(len(values))
        per_reader = f"{seconds[name] / readers:.3f}" if name in seconds else ""
        print(f"{name:<46} {np.mean(values):>12.3f} {spread:>6.3f} {per_reader:>9}")

    # Retraining a reader who saved 1,000 papers: their saves, 100 dismissals and the background, capped as in train.
    ranking.BACKGROUND_WEIGHT, ranking.C = 0.25, 1.0
    order = rng.permutation(len(papers))
    saved, dismissed, background = order[:1000], order[1000:1100], order[1100 : 1100 + ranking.MAX_BACKGROUND]
    times = []
    for _ in range(5):
        started = time.perf_counter()
        ranking.train(vectors[saved], vectors[dismissed], vectors[background], model_key=model_key)
        times.append(time.perf_counter() - started)
    print(
        f"\nretraining, 1,000 saved + 100 dismissed + {len(background)} background: median {np.median(times):.3f} s, "
        f"max {max(times):.3f} s (5 runs)"
    )

    # 1,000 readers' models (each 10 saves, 10 dismissals, 1,000 background) against the biggest day's new papers.
    models, saved_of = [], []
    for _ in range(1000):
        picks = rng.choice(len(papers), 20 + BACKGROUND, replace=False)
        model = ranking.train(vectors[picks[:10]], vectors[picks[10:20]], vectors[picks[20:]], model_key=model_key)
        assert model is not None
        models.append(model)
        saved_of.append([(papers[i].title, vectors[i]) for i in picks[:10]])
    biggest = int(np.bincount(days).argmax())
    today = np.flatnonzero(days == biggest)
    ids = [papers[i].id for i in today]
    started = time.perf_counter()
    matrix = ranking.scores_of_readers(models, vectors[today])
    product = time.perf_counter() - started
    started = time.perf_counter()
    feeds = [ranking.ranked(m, ids, vectors[today], s, TOP) for m, s in zip(models, saved_of, strict=True)]
    each = time.perf_counter() - started
    assert matrix.shape == (1000, len(today)) and all(len(f) == TOP for f in feeds)
    print(
        f"scoring {len(today)} papers (the biggest day) for 1,000 readers: {product * 1000:.1f} ms as one matrix "
        f"product; {each:.2f} s reader by reader with the top {TOP} and their reasons ({each:.2f} ms per reader)"
    )


if __name__ == "__main__":
    main()
