"""Backfill of a new follow: papers already held (the query service's Meilisearch index) that satisfy it.

Meilisearch finds candidates — one search per positive term (phrase search, every word required), one filter
on the author key, for a venue follow one on the papers accepted (at its venue), for an institution follow one on
its ROR id (the documents' `institution_ids`) — restricted to papers ingested
in the last BACKFILL_DAYS days and to the follow's categories; the matcher's own rules then decide, so a candidate
Meilisearch returns loosely never becomes a match the live path would not make. Author follows read the
candidates' authors (affiliations, ORCID, source ids) from `papers`, which the Meilisearch documents flatten; venue
follows read the candidates' claims, published record and version from there too, institution follows their
authors' institutions.
"""

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from meilisearch_python_sdk import AsyncClient

from papertrail.domain.follows.compiled import CompiledFollow, PaperText, chinese
from papertrail.domain.follows.rules import match_one
from papertrail.domain.search_document import SUMMARY_ZH, PaperFilter
from papertrail.domain.text import has_cjk
from papertrail.domain.venues.catalogue import default_index
from papertrail.embedding.similarity import seed_matrix, similar_match_columns
from schemas.events import MatchReason
from schemas.paper import Author
from services.matcher.matching.similar import SimilarFollows
from services.matcher.store import VECTORS_PER_READ, MatcherRecords

RETRIEVE = ["paper_id", "title", "abstract", "authors", "author_keys", "categories", "title_zh", "summary"]
# where a term in Chinese is looked for: the Chinese title, TL;DR and 导读 (PaperText reads them so too)
CHINESE_SEARCHED = ["title_zh", "tldr_zh", *SUMMARY_ZH]


def search_query(term_key: str) -> str:
    """A term key as a Meilisearch query: a phrase search, or the words with the last one as a prefix; a term in
    Chinese as its words, every one required (Meilisearch cuts it into words as the rules do; a quoted one the rules
    then want whole)."""
    if has_cjk(term_key):
        return term_key.removesuffix("*")
    return term_key[:-1] if term_key.endswith("*") else f'"{term_key}"'


def searched_on(term_key: str) -> list[str]:
    return CHINESE_SEARCHED if has_cjk(term_key) else ["title", "abstract"]


class SeedsWithoutVectors(LookupError):
    """A similar follow has no vector to be scored by yet: its backfill runs once one of its seeds has one."""


class Backfiller:
    def __init__(
        self,
        client: AsyncClient,
        index_name: str,
        store: MatcherRecords,
        days: int,
        max_hits_per_term: int,
        similar: SimilarFollows,
        max_similar_papers: int,
    ) -> None:
        self.index = client.index(index_name)
        self.store = store
        self.days = days
        self.max_hits = max_hits_per_term
        self.similar = similar
        self.max_similar_papers = max_similar_papers

    def held(self, compiled: CompiledFollow, now: datetime) -> PaperFilter:
        """Papers ingested in the backfill window, in the follow's categories."""
        since = int((now - timedelta(days=self.days)).timestamp())
        return PaperFilter(categories=compiled.follow.categories, dated_by="ingested", since_ts=since)

    async def candidates(self, compiled: CompiledFollow, now: datetime) -> dict[str, dict[str, Any]]:
        held = self.held(compiled, now)
        found: dict[str, dict[str, Any]] = {}
        searches: list[tuple[str | None, list[str] | None, PaperFilter]] = []
        if compiled.author is not None:
            searches.append((None, None, replace(held, author_key=compiled.author.key)))
        # an unquoted Chinese term whole: Meilisearch cuts it into the words the rule wants, and wants them all
        terms = sorted({t for rule in compiled.rules for t in rule.expression.written_terms})
        searches.extend((search_query(t), searched_on(t), held) for t in terms)
        for query, fields, wanted in searches:
            results = await self.index.search(
                query,
                filter=wanted.clauses(),
                limit=self.max_hits,
                attributes_to_retrieve=RETRIEVE,
                attributes_to_search_on=fields,
                matching_strategy="all",
            )
            for hit in results.hits:
                found.setdefault(hit["paper_id"], hit)
        return found

    async def vectors_of(self, compiled: CompiledFollow) -> int | None:
        """How many vectors a similar follow is scored by now (its backfill runs again once it has more); None for a
        follow of another kind."""
        if compiled.follow.kind != "similar":
            return None
        await self.similar.refresh()
        return self.similar.vector_count(compiled.follow.id)

    async def run(self, compiled: CompiledFollow, now: datetime | None = None) -> tuple[int, list]:
        """(papers checked, [(paper id, title, reasons)]) for every held paper the follow matches."""
        now = now or datetime.now(UTC)
        if compiled.follow.kind == "similar":
            return await self.run_similar(compiled, now)
        if compiled.venue is not None:
            return await self.run_venue(compiled, now)
        if compiled.institution is not None:
            return await self.run_institution(compiled, now)
        started = time.perf_counter()
        docs = await self.candidates(compiled, now)
        full_authors = await self.store.reads.paper_authors(list(docs)) if compiled.author is not None else {}
        matched: list[tuple[str, str, list[MatchReason]]] = []
        for paper_id, doc in docs.items():
            names, keys = doc.get("authors", []), doc.get("author_keys", [])
            authors = full_authors.get(paper_id) or [
                Author(name=name, key=key) for name, key in zip(names, keys, strict=False)
            ]
            title_zh, summary_zh = chinese({"title_zh": doc.get("title_zh"), **(doc.get("summary") or {})})
            text = PaperText.build(
                paper_id,
                doc.get("title", ""),
                doc.get("abstract", ""),
                doc.get("categories", []),
                authors,
                title_zh=title_zh,
                summary_zh=summary_zh,
            )
            reasons = match_one(compiled, text)
            if reasons:
                matched.append((paper_id, doc.get("title", ""), reasons))
        self.last_seconds = time.perf_counter() - started
        return len(docs), matched

    async def run_venue(self, compiled: CompiledFollow, now: datetime) -> tuple[int, list]:
        """The window's newest accepted papers (at the follow's venue, when it names one), decided by the matcher's
        rules on the stored papers."""
        started = time.perf_counter()
        rule = compiled.venue
        assert rule is not None
        venue = default_index().venues.get(rule.venue_key) if rule.venue_key else None
        wanted = replace(self.held(compiled, now), accepted=True, venue=venue.acronym if venue else None)
        return await self.run_on_stored(compiled, wanted, started)

    async def run_institution(self, compiled: CompiledFollow, now: datetime) -> tuple[int, list]:
        """The window's newest papers with an author at the follow's institution, decided by the matcher's rules on
        the stored papers."""
        started = time.perf_counter()
        rule = compiled.institution
        assert rule is not None
        return await self.run_on_stored(compiled, replace(self.held(compiled, now), institution=rule.ror), started)

    async def run_on_stored(self, compiled: CompiledFollow, wanted: PaperFilter, started: float) -> tuple[int, list]:
        """The newest papers the filter finds, read as the normalizer stored them and decided by the rules."""
        results = await self.index.search(
            "",
            filter=wanted.clauses(),
            sort=["ingested_ts:desc"],
            limit=self.max_hits,
            attributes_to_retrieve=["paper_id"],
        )
        papers = await self.store.reads.held_papers([hit["paper_id"] for hit in results.hits])
        matched: list[tuple[str, str, list[MatchReason]]] = []
        for paper in papers.values():
            if reasons := match_one(compiled, PaperText.of(paper)):
                matched.append((paper.id, paper.title, reasons))
        self.last_seconds = time.perf_counter() - started
        return len(papers), matched

    async def run_similar(self, compiled: CompiledFollow, now: datetime) -> tuple[int, list]:
        """The newest papers of the window that have a vector, scored against the similar follow's seeds (with the
        vectors `vectors_of` just refreshed: the runner asks it first, for the claim)."""
        started = time.perf_counter()
        follow = compiled.follow
        scored = self.similar.scored([follow])
        if not scored[0].seeds:
            raise SeedsWithoutVectors(f"no seed of follow {follow.id} has a vector yet")
        seeds = seed_matrix(scored, self.similar.dimensions)
        results = await self.index.search(
            "",
            filter=self.held(compiled, now).clauses(),
            sort=["ingested_ts:desc"],
            limit=self.max_similar_papers,
            attributes_to_retrieve=["paper_id", "title"],
        )
        titles = {hit["paper_id"]: hit.get("title", "") for hit in results.hits}
        ids, checked = list(titles), 0
        matched: list[tuple[str, str, list[MatchReason]]] = []
        for first in range(0, len(ids), VECTORS_PER_READ):
            vectors = await self.store.reads.paper_vectors(
                ids[first : first + VECTORS_PER_READ], self.similar.model_key
            )
            held = list(vectors)
            checked += len(held)
            if held:
                found = similar_match_columns(seeds, held, np.vstack([vectors[p] for p in held]))
                matched += [(hit.paper_id, titles[hit.paper_id], [hit.reason]) for hit in self.similar.hits(found)]
        self.last_seconds = time.perf_counter() - started
        return checked, matched
