"""The "papers like these" follows the matcher holds: each follow's seed papers' vectors (read from `paper_vectors`)
and its description's vector (embedded here, with the model the summarizer embeds papers with, once per follow
version), stacked into one seed matrix that scores a whole batch of papers in one product
(papertrail/embedding/similarity.py).

A seed paper without a vector yet (the summarizer embeds in the background) waits: before each batch the missing
seeds are read again, and a follow matches with the vectors it has (its description's, its other seeds'). A follow
that gains a vector is handed out (`gained_vectors`) to be backfilled again: a paper scored while the follow had
fewer vectors is scored by all of them then.
"""

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from papertrail.domain.follows.rules import follow_matched
from papertrail.embedding.embedder import Embedder, embedding_text
from papertrail.embedding.similarity import MatchColumns, SeedMatrix, SimilarFollow, seed_matrix, similar_match_columns
from schemas.events import Follow, FollowMatched, MatchReason
from schemas.unchecked import cycles_unchecked, unchecked
from services.matcher.store import MatchStore

log = logging.getLogger("papertrail.matcher")

DESCRIPTION = "description"  # the label of a follow's description among its seeds (a paper id always has a prefix)


@dataclass(slots=True)  # not frozen: a batch makes ~100,000, and a frozen dataclass takes longer to make
class SimilarHit:
    """One paper like one follow: the follow, the paper and the reason that names the closest seed and the score."""

    follow: Follow
    paper_id: str
    reason: MatchReason


def similar_reason(titles: dict[str, str], seed: str, score: float) -> MatchReason:
    """`similar to "SafeConv: …" (0.74)`: the closest seed paper's title (or the description) and the score. Built
    unchecked: every field comes typed from the scorer and the stored follow, and a batch makes ~100,000 of them."""
    seed_id = None if seed == DESCRIPTION else seed
    return unchecked(
        MatchReason,
        {
            "subtopic": None,
            "subtopic_id": None,
            "term": titles.get(seed, seed) if seed_id else DESCRIPTION,
            "field": "similar",
            "categories": [],
            "seed_id": seed_id,
            "score": round(score, 4),
            "evidence": None,
            "source_version": None,
            "term_zh": None,
            "name_match": None,
        },
    )


class SimilarFollows:
    """Every `similar` follow with the vectors it is scored by. `refresh` before scoring reads the seed vectors that
    were missing and embeds new descriptions; the seed matrix is rebuilt only when something changed."""

    def __init__(self, store: MatchStore, model_key: str, dimensions: int, open_embedder: Callable[[], Embedder]):
        self.store = store
        self.model_key = model_key
        self.dimensions = dimensions
        self._open_embedder = open_embedder
        self._embedder: Embedder | None = None  # opened on the first description: loading a model costs memory
        self.follows: dict[str, Follow] = {}
        self.seed_titles: dict[str, dict[str, str]] = {}  # follow id → its seeds' ids → their titles
        self.seed_vectors: dict[str, np.ndarray] = {}  # seed paper id → its vector, shared by the follows it seeds
        self.descriptions: dict[str, tuple[str, np.ndarray]] = {}  # follow id → (its description, the vector)
        self.failed_descriptions: set[tuple[str, str]] = set()  # the model cannot embed these: not tried again
        self._matrix: SeedMatrix | None = None
        # follows that got a vector in a refresh, until `gained_vectors` hands them out: any caller may refresh (a
        # backfill does), so whoever starts backfills must not depend on having made that refresh itself
        self._gained: set[str] = set()

    def upsert(self, follow: Follow) -> None:
        self.follows[follow.id] = follow
        self.seed_titles[follow.id] = {seed.paper_id: seed.title for seed in follow.seeds}
        if follow.id in self.descriptions and self.descriptions[follow.id][0] != follow.description:
            del self.descriptions[follow.id]  # a new version of the follow: its new description is embedded
        self._matrix = None

    def remove(self, follow_id: str) -> None:
        if self.follows.pop(follow_id, None) is not None:
            del self.seed_titles[follow_id]
            self.descriptions.pop(follow_id, None)
            self._matrix = None

    def __len__(self) -> int:
        return len(self.follows)

    def waiting_seeds(self) -> set[str]:
        return {s.paper_id for f in self.follows.values() for s in f.seeds if s.paper_id not in self.seed_vectors}

    def vector_count(self, follow_id: str) -> int:
        """How many vectors the follow is scored by: its seeds' that have one, and its description's."""
        follow = self.follows.get(follow_id)
        return 0 if follow is None else len(self._seeds_of(follow))

    def ready(self, follow_id: str) -> bool:
        """The follow has a vector to be scored by: a seed's or its description's."""
        return self.vector_count(follow_id) > 0

    async def refresh(self) -> None:
        """Read the vectors of waiting seeds and embed new descriptions; a follow that has more vectors now than
        before is kept for `gained_vectors`."""
        waiting = self.waiting_seeds()
        todo = [
            (follow.id, follow.description)
            for follow in self.follows.values()
            if follow.description
            and follow.id not in self.descriptions
            and (follow.id, follow.description) not in self.failed_descriptions
        ]
        if not waiting and not todo:
            return
        before = {follow_id: self.vector_count(follow_id) for follow_id in self.follows}
        if waiting:
            found = await self.store.paper_vectors(sorted(waiting), self.model_key)
            if found:
                self.seed_vectors |= found
                self._matrix = None
        if todo:
            await self._embed_descriptions(todo)
        self._gained |= {f for f in self.follows if self.vector_count(f) > before.get(f, 0)}

    def gained_vectors(self) -> list[str]:
        """The follows still held that got a vector since the last call, their first or one more: their backfill
        runs now, or again, with every vector they have."""
        gained, self._gained = sorted(self._gained & self.follows.keys()), set()
        return gained

    async def _embed_descriptions(self, todo: list[tuple[str, str]]) -> None:
        if self._embedder is None:
            self._embedder = self._open_embedder()
        # a description is embedded as a paper's abstract without a title, so it lies among the papers' vectors
        outcomes = await self._embedder.embed([embedding_text("", text) for _, text in todo])
        for key, outcome in zip(todo, outcomes, strict=True):
            if outcome.vector is not None:
                self.descriptions[key[0]] = (key[1], outcome.vector)
                self._matrix = None
            elif outcome.failure is not None:
                self.failed_descriptions.add(key)
                log.warning(
                    "a follow's description cannot be embedded", extra={"follow_id": key[0], "error": outcome.failure}
                )
            else:  # the endpoint is down or its budget spent: tried again before the next batch
                log.warning("description not embedded yet", extra={"follow_id": key[0], "error": outcome.unavailable})

    def _seeds_of(self, follow: Follow) -> list[tuple[str, np.ndarray]]:
        seeds = [(s.paper_id, self.seed_vectors[s.paper_id]) for s in follow.seeds if s.paper_id in self.seed_vectors]
        if follow.description and follow.id in self.descriptions:
            seeds.append((DESCRIPTION, self.descriptions[follow.id][1]))
        return seeds

    def matrix(self) -> SeedMatrix:
        if self._matrix is None:
            self._matrix = seed_matrix(self.scored(self.follows.values()), self.dimensions)
        return self._matrix

    def scored(self, follows: Iterable[Follow]) -> list[SimilarFollow]:
        return [SimilarFollow(f.id, self._seeds_of(f), f.threshold or 0.0) for f in follows]

    def hits(self, matches: MatchColumns) -> list[SimilarHit]:
        """The matches as hits with their reasons; a seed paper is no news to the follow it seeds, and is left out."""
        follows, seed_titles = self.follows, self.seed_titles
        return [
            SimilarHit(follow, paper_id, similar_reason(titles, seed, score))
            for paper_id, follow_id, seed, score in zip(*matches, strict=True)
            if (follow := follows.get(follow_id)) is not None and paper_id not in (titles := seed_titles[follow_id])
        ]

    def events(self, matches: MatchColumns, titles: dict[str, str], at: datetime) -> list[FollowMatched]:
        """`hits` made follows.matched.v1 events straight away (papers' ids → titles): a batch makes ~100,000, so
        with no record in between, and with the cyclic garbage collector paused (they hold no cycles, and it would
        walk them again and again as they pile up: it doubled the time)."""
        follows, seed_titles = self.follows, self.seed_titles
        with cycles_unchecked():
            return [
                follow_matched(follow, paper_id, titles[paper_id], [similar_reason(seeds, seed, score)], at)
                for paper_id, follow_id, seed, score in zip(*matches, strict=True)
                if (follow := follows.get(follow_id)) is not None and paper_id not in (seeds := seed_titles[follow_id])
            ]

    async def matched(self, titles: dict[str, str], at: datetime) -> list[FollowMatched]:
        """The events of every (follow, paper) of these embedded papers (ids → titles) whose score reaches the
        follow's threshold, with the vectors the follows have (`refresh` first to read those that were missing)."""
        if not self.follows or not titles:
            return []
        vectors = await self.store.paper_vectors(list(titles), self.model_key)
        held = [paper_id for paper_id in titles if paper_id in vectors]
        if not held:
            return []
        return self.events(
            similar_match_columns(self.matrix(), held, np.vstack([vectors[p] for p in held])), titles, at
        )

    async def close(self) -> None:
        if self._embedder is not None:
            await self._embedder.close()
