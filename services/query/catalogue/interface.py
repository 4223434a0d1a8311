"""The catalogue as the readers' side reaches it: papers by ids, the paper holding any id, their stored vectors.

Readers' code (services/query/readers) asks the catalogue only through this (and the pure id parsing of
reads/paper_lookup.py), never through the index or the catalogue's repositories, so either may change behind it
(tests/query/test_contexts.py holds it to that).
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from papertrail.domain.search_document import PaperFilter
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.atom import FEED_SIZE, FEED_WORDING, render_atom
from services.query.catalogue.reads.paper_lookup import PaperKey
from services.query.catalogue.reads.papers import public_paper
from services.query.catalogue.repositories import CatalogueRecords, paper_vectors_of

# pure helpers the readers' side shares: a paper's public form, an Atom feed of papers, a vectors read
__all__ = ["FEED_SIZE", "FEED_WORDING", "Catalogue", "paper_vectors_of", "public_paper", "render_atom"]


class Catalogue:
    def __init__(self, index: PaperIndex, records: CatalogueRecords) -> None:
        self._index = index
        self._records = records

    async def by_ids(self, paper_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The indexed papers of these ids (as the search index holds them), by id; ids not indexed are left out."""
        return await self._index.by_ids(list(paper_ids))

    async def holding(self, key: PaperKey) -> dict[str, Any] | None:
        """The paper (its `papers` document) holding this id, if any."""
        return await self._records.papers.paper(key)

    async def vectors_of(self, paper_ids: Sequence[str], model_key: str) -> dict[str, np.ndarray]:
        return await self._records.vectors.vectors_of(paper_ids, model_key)

    async def summarized(self) -> int:
        """How many indexed papers have an AI summary (the only ones holding Chinese words)."""
        return await self._index.count(PaperFilter(summarized_since_ts=0))

    async def embedded(self, paper_ids: list[str]) -> set[str]:
        """Of these papers, those the summarizer has embedded (by any model)."""
        return await self._records.vectors.papers_with_vectors(paper_ids)
