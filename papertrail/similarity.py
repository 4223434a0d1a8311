"""Scoring a batch of new papers against every "papers like these" follow in one matrix product. No I/O.

A follow is a few seed vectors (its seed papers, its description) and a threshold; a paper matches when its cosine
with the closest seed reaches the threshold, and the reason names that seed. Closest seed rather than the seeds'
centroid: a follow seeded with papers on two subjects keeps both (docs/benchmarks.md has the measured recall of
each way).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

# Cosines held at once (papers × seeds): 2^24 float32 is 64 MiB, whatever the number of follows.
MAX_CELLS = 1 << 24


@dataclass(frozen=True, slots=True)
class SimilarFollow:
    """One follow as the scorer sees it: seeds as (label, vector of length 1), e.g. ("arxiv:2605.01234", v)."""

    follow_id: str
    seeds: Sequence[tuple[str, np.ndarray]]
    threshold: float


@dataclass(frozen=True, slots=True)
class SimilarMatch:
    paper_id: str
    follow_id: str
    seed: str  # the label of the closest seed
    score: float  # cosine with that seed


@dataclass(frozen=True)
class SeedMatrix:
    """Every follow's seeds stacked, follow by follow: built once when follows change, used for every batch."""

    follow_ids: tuple[str, ...]
    thresholds: np.ndarray  # (follows,) float32
    starts: np.ndarray  # (follows,) the first seed row of each follow
    labels: tuple[str, ...]  # (seeds,)
    vectors: np.ndarray  # (seeds, dimensions) float32

    def __len__(self) -> int:
        return len(self.follow_ids)


def seed_matrix(follows: Iterable[SimilarFollow], dimensions: int) -> SeedMatrix:
    """Stack the follows' seeds; a follow without seeds is left out (it can match nothing)."""
    kept = [f for f in follows if f.seeds]
    sizes = np.array([len(f.seeds) for f in kept], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])) if len(kept) else np.zeros(0, dtype=np.int64)
    rows = [np.asarray(vector, dtype=np.float32) for f in kept for _, vector in f.seeds]
    for row in rows:
        if row.shape != (dimensions,):
            raise ValueError(f"a seed vector of shape {row.shape} among vectors of {dimensions}")
    return SeedMatrix(
        follow_ids=tuple(f.follow_id for f in kept),
        thresholds=np.array([f.threshold for f in kept], dtype=np.float32),
        starts=starts.astype(np.int64),
        labels=tuple(label for f in kept for label, _ in f.seeds),
        vectors=np.vstack(rows) if rows else np.zeros((0, dimensions), dtype=np.float32),
    )


def similar_matches(seeds: SeedMatrix, paper_ids: Sequence[str], papers: np.ndarray) -> list[SimilarMatch]:
    """Every (paper, follow) whose closest seed scores at least the follow's threshold, papers in order, follows in
    seed-matrix order. `papers` are vectors of length 1, one row per id."""
    if not len(seeds) or not len(paper_ids):
        return []
    papers = np.asarray(papers, dtype=np.float32)
    ends = np.append(seeds.starts[1:], len(seeds.labels))
    step = max(1, MAX_CELLS // len(seeds.labels))
    matches: list[SimilarMatch] = []
    for first in range(0, len(paper_ids), step):
        scores = papers[first : first + step] @ seeds.vectors.T  # (papers, seeds)
        best = np.maximum.reduceat(scores, seeds.starts, axis=1)  # (papers, follows): each follow's closest seed
        for p, f in zip(*np.nonzero(best >= seeds.thresholds), strict=True):
            start = seeds.starts[f]
            closest = start + int(np.argmax(scores[p, start : ends[f]]))
            matches.append(
                SimilarMatch(paper_ids[first + p], seeds.follow_ids[f], seeds.labels[closest], float(best[p, f]))
            )
    return matches
