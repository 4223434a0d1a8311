"""Scoring a batch of new papers against every "papers like these" follow in one matrix product. No I/O.

A follow is a few seed vectors (its seed papers, its description) and a threshold. A paper's score is the higher of
its cosine with the seeds' centroid (the seeds taken together: measured best for follows on one subject) and with
the closest seed (a follow seeded on two subjects keeps both); it matches when the score reaches the threshold, and
the reason names the closest seed. docs/benchmarks.md has the recall of each way and the default threshold.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from papertrail.embedding.embedder import DEFAULT_LOCAL_MODEL, l2_normalised

# The threshold a `similar` follow gets unless its reader chooses, for the default local model: measured on the May
# 2026 corpus (docs/benchmarks.md; MiniLM: 0.60 has the best F1 against the catalogue's rules but sends a follow ~12
# papers a day, 0.65 keeps nearly that F1 with a third of the papers; e5 reaches as many papers at its own figure).
# A service on another model takes EmbeddingSettings.similar_threshold.
DEFAULT_THRESHOLD = DEFAULT_LOCAL_MODEL.similar_threshold

# Cosines held at once (papers × seeds): 2^24 float32 is 64 MiB, whatever the number of follows.
MAX_CELLS = 1 << 24


@dataclass(frozen=True, slots=True)
class SimilarFollow:
    """One follow as the scorer sees it: seeds as (label, vector of length 1), e.g. ("arxiv:2605.01234", v)."""

    follow_id: str
    seeds: Sequence[tuple[str, np.ndarray]]
    threshold: float


@dataclass(slots=True)  # not frozen, not a named tuple: both take longer to make, and a batch makes ~100,000
class SimilarMatch:
    """One paper matching one follow."""

    paper_id: str
    follow_id: str
    seed: str  # the label of the closest seed
    score: float  # the higher of the cosines with the seeds' centroid and with the closest seed


@dataclass(frozen=True)
class SeedMatrix:
    """Every follow's seeds stacked, follow by follow: built once when follows change, used for every batch."""

    follow_ids: np.ndarray  # (follows,) str objects, ordered by their number of seeds
    thresholds: np.ndarray  # (follows, 1) float32
    groups: tuple[tuple[int, int, int], ...]  # (first follow, follows, seeds each): follows with as many seeds
    rows: np.ndarray  # (follows, most seeds of a follow): each follow's seed rows, padded with its first
    labels: np.ndarray  # (seeds,) str objects
    vectors: np.ndarray  # (seeds, dimensions) float32, follow after follow
    centroids: np.ndarray  # (follows, dimensions) float32: each follow's seeds averaged, length 1

    def __len__(self) -> int:
        return len(self.follow_ids)


def seed_matrix(follows: Iterable[SimilarFollow], dimensions: int) -> SeedMatrix:
    """Stack the follows' seeds, follows with as many seeds together (the seeds of a group of follows are then one
    block of rows, whose best per follow is one reshape and one max); a follow without seeds can match nothing and is
    left out."""
    kept = sorted((f for f in follows if f.seeds), key=lambda f: len(f.seeds))
    sizes = np.array([len(f.seeds) for f in kept], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64) if len(kept) else np.zeros(0, np.int64)
    rows = np.repeat(starts[:, None], sizes.max(initial=1), axis=1)
    for i, (start, size) in enumerate(zip(starts, sizes, strict=True)):
        rows[i, :size] = np.arange(start, start + size)
    firsts = np.flatnonzero(np.diff(sizes, prepend=-1))
    counts = np.diff(np.append(firsts, len(kept)))
    vectors = [np.asarray(vector, dtype=np.float32) for f in kept for _, vector in f.seeds]
    for vector in vectors:
        if vector.shape != (dimensions,):
            raise ValueError(f"a seed vector of shape {vector.shape} among vectors of {dimensions}")
    stacked = np.vstack(vectors) if vectors else np.zeros((0, dimensions), dtype=np.float32)
    return SeedMatrix(
        follow_ids=np.array([f.follow_id for f in kept], dtype=object),
        thresholds=np.array([[f.threshold] for f in kept], dtype=np.float32).reshape(-1, 1),
        groups=tuple((int(f), int(n), int(sizes[f])) for f, n in zip(firsts, counts, strict=True)),
        rows=rows,
        labels=np.array([label for f in kept for label, _ in f.seeds], dtype=object),
        vectors=stacked,
        centroids=l2_normalised(np.add.reduceat(stacked, starts, axis=0))
        if len(kept)
        else np.zeros((0, dimensions), dtype=np.float32),
    )


class MatchColumns(NamedTuple):
    """Matches as four lists, one item per match: what `similar_matches` makes its records of. A caller that turns
    every match into something else anyway (the matcher: a reason and an event) zips these and skips the records."""

    paper_ids: list[str]
    follow_ids: list[str]
    seeds: list[str]  # the label of the closest seed
    scores: list[float]


def similar_matches(seeds: SeedMatrix, paper_ids: Sequence[str], papers: np.ndarray) -> list[SimilarMatch]:
    """Every (paper, follow) whose score reaches the follow's threshold, papers in order, then follows in seed-matrix
    order. `papers` are vectors of length 1, one row per id."""
    return list(map(SimilarMatch, *similar_match_columns(seeds, paper_ids, papers)))


def similar_match_columns(seeds: SeedMatrix, paper_ids: Sequence[str], papers: np.ndarray) -> MatchColumns:
    """`similar_matches` as columns."""
    matches = MatchColumns([], [], [], [])
    if not len(seeds) or not len(paper_ids):
        return matches
    papers = np.asarray(papers, dtype=np.float32)
    ids = np.array(paper_ids, dtype=object)
    step = max(1, MAX_CELLS // len(seeds.labels))
    for first in range(0, len(paper_ids), step):
        # seeds × papers: a group's seeds are one block of rows, (follows, seeds each, papers) once reshaped
        scores = seeds.vectors @ papers[first : first + step].T
        best = np.empty((len(seeds), scores.shape[1]), dtype=np.float32)  # each follow's closest seed, then the score
        for first_follow, count, size in seeds.groups:
            start = seeds.rows[first_follow, 0]
            best[first_follow : first_follow + count] = (
                scores[start : start + count * size].reshape(count, size, -1).max(1)
            )
        best = np.maximum(best, seeds.centroids @ papers[first : first + step].T)
        hit_papers, hit_follows = np.nonzero((best >= seeds.thresholds).T)  # paper by paper
        candidates = seeds.rows[hit_follows]  # (hits, most seeds): the padding repeats a seed, argmax keeps the first
        closest = candidates[np.arange(len(hit_follows)), scores[candidates, hit_papers[:, None]].argmax(axis=1)]
        matches.paper_ids.extend(ids[first + hit_papers].tolist())
        matches.follow_ids.extend(seeds.follow_ids[hit_follows].tolist())
        matches.seeds.extend(seeds.labels[closest].tolist())
        matches.scores.extend(best[hit_follows, hit_papers].tolist())
    return matches
