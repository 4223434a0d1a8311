"""The Meilisearch `papers` index: settings kept in code, documents written and tasks awaited, searches."""

import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import orjson
from meilisearch_python_sdk import AsyncClient
from meilisearch_python_sdk.errors import MeilisearchApiError
from meilisearch_python_sdk.models.settings import (
    LocalizedAttributes,
    MeilisearchSettings,
    Pagination,
    UserProvidedEmbedder,
)
from prometheus_client import Counter, Histogram

from papertrail.domain.search_document import (
    CHINESE_FIELDS,
    EMBEDDER,
    FILTERABLE,
    INSTITUTION_FACET,
    SEARCH_EMBEDDER,
    SEARCHABLE,
    SORTABLE,
    VENUE_FACETS,
    PaperFilter,
    document_id,
)
from papertrail.domain.text import has_cjk
from papertrail.embedding.embedder import Embedder, embedding_text, l2_normalised, meaning_floor
from papertrail.embedding.query_hubs import hub_corrected, hub_scores
from papertrail.runtime.kafka import DependencyRefused, UnprocessableMessage
from services.query.catalogue.indexer.writes import DIGEST, HeldDocument
from services.query.catalogue.reads.search import MEANING_MIN_SCORE, PaperQuery, SearchMode

FACETS = ["categories", "sources", "status", "ai_related", "year", "venue", *VENUE_FACETS, INSTITUTION_FACET]
# Meilisearch counts hits exactly only up to maxTotalHits (default 1,000): totals ("found 44,471 papers") and the
# overview's counts need the exact figure. Raising it costs nothing measurable here (bench/search_latency.py).
MAX_TOTAL_HITS = 10_000_000
# Papers a search embeds itself, on its own time, to find papers like them while they wait for their vectors.
EMBEDDED_HERE = 5
# `sort` first: a chosen time orders every match of a query (Meilisearch's default puts it after words, typo,
# proximity and attribute, where it only breaks ties: a query of several words came back in one order whatever the
# sort); without a sort (relevance) the rule does nothing and the words rank as by default.
RANKING_RULES = ["sort", "words", "typo", "proximity", "attribute", "exactness"]
SEARCH_SECONDS = Histogram(
    "papertrail_search_seconds",
    "One Meilisearch search (or similar-papers request) as the query service sees it (request sent → answer parsed).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)

INDEX_REFUSED = Counter(
    "papertrail_index_refused_total",
    "Index writes Meilisearch refused for a reason not of the documents (a setting, the embedder; the log line "
    "says which): the batch is redelivered until an operator fixes it.",
)
# Meilisearch's task error codes that name one bad document: only then is a failed batch retried one document at a
# time, so the bad one is parked and the rest indexed. Any other failure (the embedder's dimensions, a missing
# index, a full disk) would fail every document alike: it is the index's, and retrying one by one only hides it.
DOCUMENT_FAULTS = frozenset(
    {
        "invalid_document_id",
        "missing_document_id",
        "invalid_document_fields",
        "invalid_document_geo_field",
        "invalid_document_geojson_field",
        "document_fields_limit_reached",
        "max_fields_limit_exceeded",
    }
)
log = logging.getLogger("papertrail.query")


class DocumentRefused(UnprocessableMessage):
    """Meilisearch refused a document for a fault of its own (its id, a field): the record is parked."""


class IndexRefused(DependencyRefused):
    """Meilisearch refused a write for a reason that is not the documents' (a setting, the embedder): the batch is
    redelivered until an operator fixes the cause; `papertrail_index_refused_total` counts it, IndexWritesRefused
    alerts on it."""


@dataclass(slots=True)
class SearchPage:
    """One page of a search: the exact total, the hits as Meilisearch returned them, facet counts, and which search
    answered (keyword, hybrid, semantic)."""

    total: int
    hits: list[dict[str, Any]]
    facets: dict[str, dict[str, int]]
    mode: SearchMode = "keyword"
    min_score: float | None = None  # a search by meaning: the closeness a paper needed to match
    closest: int | None = None  # a search by meaning alone: at most this many closest papers were listed


@dataclass(frozen=True, slots=True)
class Meaning:
    """How the index is searched by meaning with one of its embedders: the embedder's name in the index, the model
    that embeds a query's text (as the papers' vectors of that embedder were made), and the score a match needs."""

    embedder: str
    query_embedder: Embedder
    min_score: float
    floor_margin: float = 0.0  # how far below min_score a search by meaning alone may follow its closest paper


def search_body(
    query: PaperQuery,
    attributes: list[str] | None = None,
    vector: list[float] | None = None,
    embedder: str = EMBEDDER,
    min_score: float = MEANING_MIN_SCORE,
) -> dict[str, Any]:
    """The Meilisearch search request for a query, with facet counts; `attributes` limits the fields returned;
    `vector`, the query text's by the model of `embedder`, makes it a hybrid search weighted by `query.semantic`,
    matching papers at least `min_score` close."""
    body: dict[str, Any] = {
        "q": query.q or None,
        "filter": query.filters() or None,
        "sort": query.sort_by(),
        "page": query.page,
        "hitsPerPage": query.size,
        "facets": FACETS,
    }
    if query.matching:
        body["matchingStrategy"] = query.matching
    if attributes is not None:
        body["attributesToRetrieve"] = attributes
    if vector is not None:
        body["vector"] = vector
        body["hybrid"] = {"embedder": embedder, "semanticRatio": query.semantic}
        # every paper has some closeness to any text: only those this close are matches (and counted)
        body["rankingScoreThreshold"] = min_score
    return body


def _without_own_filter(wanted: PaperFilter) -> list[tuple[str, PaperFilter]]:
    """Each facet whose own filter is set, with the filter that leaves it out (year has no filter of its own)."""
    unfiltered = [
        ("categories", bool(wanted.categories), replace(wanted, categories=())),
        ("sources", bool(wanted.sources), replace(wanted, sources=())),
        ("status", wanted.status is not None, replace(wanted, status=None)),
        ("ai_related", wanted.ai_related is not None, replace(wanted, ai_related=None)),
        ("venue", wanted.venue is not None, replace(wanted, venue=None)),
        (INSTITUTION_FACET, wanted.institution is not None, replace(wanted, institution=None)),
    ]
    return [(facet, cleared) for facet, is_set, cleared in unfiltered if is_set]


# A Chinese search by meaning alone reads this many times its closest papers by cosine and keeps the closest once
# each one's closeness to Chinese queries in general is taken off (papertrail/embedding/query_hubs)
HUB_POOL = 3


def _vector_of(hit: dict[str, Any], embedder: str) -> list[float] | None:
    """The hit's vector for `embedder` as Meilisearch returns it with retrieveVectors: {"embeddings": [[…]]}."""
    held = (hit.get("_vectors") or {}).get(embedder) or {}
    embeddings = held.get("embeddings") if isinstance(held, dict) else held
    if not embeddings:
        return None
    first = embeddings[0]
    return list(first) if isinstance(first, list) else list(embeddings)


class NoVectors(Exception):
    """A search by meaning where the index holds no vectors (EMBEDDING_DIMENSIONS unset) or the query text cannot be
    embedded; the message says which."""


class PaperIndex:
    def __init__(
        self,
        client: AsyncClient,
        name: str,
        task_timeout_s: float,
        vector_dimensions: int = 0,
        query_embedder: Embedder | None = None,
        *,
        min_score: float = MEANING_MIN_SCORE,
        search_dimensions: int = 0,
        search_embedder: Embedder | None = None,
        search_min_score: float = MEANING_MIN_SCORE,
        search_floor_margin: float = 0.0,
        search_hub_reference: np.ndarray | None = None,
    ) -> None:
        self.client = client
        self.query_embedder = query_embedder  # embeds the text of a search by meaning: the papers' model
        self._embedders = tuple(embedder for embedder in (query_embedder, search_embedder) if embedder is not None)
        self.min_score = min_score  # the papers' model's closeness a match by meaning needs
        self.name = name
        self.index = client.index(name)
        self.task_timeout_ms = int(task_timeout_s * 1000)
        self.vector_dimensions = vector_dimensions  # of the user-provided embedder; 0: the index holds no vectors
        # the search vectors' embedder (SEARCH_EMBEDDING_MODEL); 0: off, and the index has no such embedder
        self.search_dimensions = search_dimensions
        self.search_meaning = (
            Meaning(SEARCH_EMBEDDER, search_embedder, search_min_score, search_floor_margin)
            if search_embedder and search_dimensions
            else None
        )
        # the search model's reference queries (papertrail/embedding/query_hubs): a Chinese search by meaning alone
        # ranks its closest papers by cosine less each paper's closeness to Chinese queries in general; None: by cosine
        self.search_hub_reference = search_hub_reference if self.search_meaning is not None else None

    async def ensure(self) -> None:
        """Create the index if missing and apply the settings kept in code; safe to repeat. The search vectors'
        embedder is there while they are on, and removed (with its vectors) when they are turned off."""
        embedders: dict[str, UserProvidedEmbedder] | None = (
            {EMBEDDER: UserProvidedEmbedder(dimensions=self.vector_dimensions)} if self.vector_dimensions else None
        )
        if embedders is not None and self.search_dimensions:
            embedders[SEARCH_EMBEDDER] = UserProvidedEmbedder(dimensions=self.search_dimensions)
        settings = MeilisearchSettings(
            searchable_attributes=SEARCHABLE,
            filterable_attributes=FILTERABLE,
            sortable_attributes=SORTABLE,
            ranking_rules=RANKING_RULES,
            pagination=Pagination(max_total_hits=MAX_TOTAL_HITS),
            embedders=embedders,
            localized_attributes=[LocalizedAttributes(attribute_patterns=CHINESE_FIELDS, locales=["cmn"])],
        )
        if await self.client.get_raw_index(self.name) is None:
            # two starting at once: the later creation task fails harmlessly, and its settings still apply
            await self.client.create_index(
                self.name, primary_key="id", settings=settings, timeout_in_ms=self.task_timeout_ms
            )
        else:  # not created again: every start would leave a failed task (index_already_exists) in the task list
            task = await self.index.update_settings(settings)
            result = await self.client.wait_for_task(task.task_uid, timeout_in_ms=self.task_timeout_ms)
            if result.status != "succeeded":  # e.g. an embedder its documents have no vectors for: serve as it is
                log.warning("the search index kept its former settings", extra={
                    "index": self.name, "task": task.task_uid, "reason": result.error})  # fmt: skip
        if not self.search_dimensions:
            await self._remove_embedder(SEARCH_EMBEDDER)

    async def close(self) -> None:
        """Close the models that embed the text of searches (the index's client is its opener's)."""
        for embedder in self._embedders:
            await embedder.close()

    async def _remove_embedder(self, name: str) -> None:
        """Remove an embedder the settings no longer name: a user-provided one would refuse every new document
        without its vector."""
        held = await self.index.get_embedders()
        if held is None or name not in (held.embedders or {}):
            return
        response = await self.client.http_client.patch(
            f"indexes/{self.name}/settings/embedders",
            content=orjson.dumps({name: None}),
            headers={"Content-Type": "application/json"},
        )
        if response.status_code >= 400:
            raise MeilisearchApiError(f"removing embedder {name} from {self.name} failed", response)
        await self._wait(int(orjson.loads(response.content)["taskUid"]))

    async def upsert(self, documents: list[dict[str, Any]]) -> None:
        """Add or update documents (fields merge: a partial document changes only its fields) and wait until
        Meilisearch has applied them."""
        if not documents:  # a batch whose every record was parked: no task to wait for
            return
        task = await self.index.update_documents(documents, primary_key="id")
        await self._wait(task.task_uid)

    async def upsert_isolating_failures(self, documents: list[dict[str, Any]]) -> list[tuple[int, Exception]]:
        """Upsert a batch; if Meilisearch refuses a document of it (DocumentRefused), retry one by one and return
        (position, error) of those refused. A refusal that is not a document's (IndexRefused) is raised at once."""
        try:
            await self.upsert(documents)
            return []
        except DocumentRefused:
            pass
        failures: list[tuple[int, Exception]] = []
        for position, document in enumerate(documents):
            try:
                await self.upsert([document])
            except DocumentRefused as error:
                failures.append((position, error))
        return failures

    async def held_documents(self, paper_ids: Sequence[str]) -> dict[str, HeldDocument]:
        """Of these papers, those the index holds, each with its document's version seq and fields digest."""
        if not paper_ids:
            return {}
        wanted = list(dict.fromkeys(document_id(p) for p in paper_ids))
        fields = ["paper_id", "version_seq", DIGEST]
        found = await self.index.get_documents(ids=wanted, fields=fields, limit=len(wanted))
        return {
            doc["paper_id"]: HeldDocument(int(doc.get("version_seq") or 0), doc.get(DIGEST))
            for doc in found.results
            if "paper_id" in doc
        }

    async def remove(self, paper_ids: list[str]) -> None:
        """Delete the papers' documents (a missing one is no error) and wait until Meilisearch has applied it."""
        task = await self.index.delete_documents([document_id(p) for p in paper_ids])
        await self._wait(task.task_uid)

    async def count(self, wanted: PaperFilter) -> int:
        """Exact number of documents matching the filter."""
        body = {"filter": wanted.clauses() or None, "page": 1, "hitsPerPage": 0, "attributesToRetrieve": ["paper_id"]}
        return (await self._search(body)).total

    async def facet(self, wanted: PaperFilter, facet: str) -> dict[str, int]:
        """How many documents matching the filter hold each value of `facet`."""
        body = {"filter": wanted.clauses() or None, "page": 1, "hitsPerPage": 0, "facets": [facet]}
        return (await self._search(body)).facets.get(facet, {})

    async def institution_entries(self, words: str = "", wanted: PaperFilter | None = None) -> dict[str, int]:
        """How many papers of the filter hold each institution entry (search_document.INSTITUTION_FACET), among
        those whose institutions' names hold every one of `words`, when given."""
        body: dict[str, Any] = {"filter": (wanted or PaperFilter()).clauses() or None, "page": 1, "hitsPerPage": 0,
                                "facets": [INSTITUTION_FACET]}  # fmt: skip
        if words.strip():
            body |= {"q": words.strip(), "attributesToSearchOn": ["institutions"], "matchingStrategy": "all"}
        return (await self._search(body)).facets.get(INSTITUTION_FACET, {})

    async def pages(
        self, fields: list[str], page_size: int = 1000, where: str | None = None
    ) -> AsyncIterator[list[dict[str, Any]]]:
        """Every document (only `fields` of it), or those the filter expression `where` keeps, a page at a time, in
        the index's own order."""
        offset = 0
        while True:
            page = await self.index.get_documents(offset=offset, limit=page_size, fields=fields, filter=where)
            yield page.results
            offset += len(page.results)
            if len(page.results) < page_size:
                return

    async def by_ids(self, paper_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Documents for these paper ids (missing ones are left out)."""
        if not paper_ids:
            return {}
        filters = PaperFilter(paper_ids=paper_ids).clauses()
        body = {"filter": filters, "page": 1, "hitsPerPage": len(paper_ids), "attributesToRetrieve": ["*"]}
        results = await self._search(body)
        return {hit["paper_id"]: hit for hit in results.hits}

    async def _wait(self, task_uid: int) -> None:
        result = await self.client.wait_for_task(task_uid, timeout_in_ms=self.task_timeout_ms)
        if result.status == "succeeded":
            return
        code = str((result.error or {}).get("code", result.status))
        reason = f"Meilisearch task {task_uid} {result.status}: {result.error}"
        if code in DOCUMENT_FAULTS:
            raise DocumentRefused(reason)
        INDEX_REFUSED.inc()
        log.error("the search index refused a write: not the documents' fault, fix the cause", extra={
            "index": self.name, "code": code, "reason": reason})  # fmt: skip
        raise IndexRefused(reason)

    async def search(self, query: PaperQuery, attributes: list[str] | None = None) -> SearchPage:
        """Run the query with facet counts; `attributes` limits the fields returned (lists need far less than a
        paper page). A query with weight on meaning has its text embedded here, by the papers' model."""
        mode = query.mode
        meaning = self.meaning_for(query.q) if mode != "keyword" else None
        vector = await self._query_vector(query.q, meaning) if meaning else None
        embedder, min_score = (meaning.embedder, meaning.min_score) if meaning else (EMBEDDER, self.min_score)
        margin = meaning.floor_margin if meaning else 0.0

        async def run(wanted: PaperQuery, fields: list[str] | None, facets: list[str] = FACETS) -> SearchPage:
            if wanted.closest is None:
                found = await self._search(
                    search_body(wanted, fields, vector, embedder, min_score) | {"facets": facets}
                )
                found.min_score = min_score
                return found
            # by meaning alone: among the closest papers only, counted as such
            closest, floor = await self._closest(wanted, vector, embedder, min_score, margin)
            if not closest:
                return SearchPage(0, [], {}, min_score=floor)
            found = await among_closest(wanted, fields, facets, closest, floor)
            found.min_score = floor
            return found

        async def among_closest(
            wanted: PaperQuery, fields: list[str] | None, facets: list[str], closest: list[str], min_score: float
        ) -> SearchPage:
            among = replace(wanted, filter=replace(wanted.filter, paper_ids=closest))
            if wanted.sort != "relevance" or embedder != SEARCH_EMBEDDER or self.search_hub_reference is None:
                return await self._search(search_body(among, fields, vector, embedder, min_score) | {"facets": facets})
            # ranked by the hub-corrected closeness: the whole list at once (at most `closest`), the page cut here
            every = replace(among, page=1, size=len(closest))
            found = await self._search(search_body(every, fields, vector, embedder, min_score) | {"facets": facets})
            place = {paper_id: n for n, paper_id in enumerate(closest)}
            ranked = sorted(found.hits, key=lambda hit: place.get(hit.get("paper_id", ""), len(place)))
            first = (wanted.page - 1) * wanted.size
            return SearchPage(found.total, ranked[first : first + wanted.size], found.facets)

        found = await run(query, attributes)
        found.mode = mode
        found.min_score = found.min_score if meaning else None
        found.closest = query.closest
        # Disjunctive facets: a facet whose filter is set is counted without it (with category=cs.CV, "cs.AI (16)"
        # is what choosing cs.AI instead finds), every other filter kept.
        for facet, unfiltered in _without_own_filter(query.filter):
            # one hit with a vector: Meilisearch counts no facets for a search with meaning that asks for none
            alone = replace(query, filter=unfiltered, page=1, size=0 if vector is None else 1)
            found.facets[facet] = (await run(alone, ["paper_id"], [facet])).facets.get(facet, {})
        return found

    async def _closest(
        self, query: PaperQuery, vector: list[float] | None, embedder: str, min_score: float, margin: float = 0.0
    ) -> tuple[list[str], float]:
        """The ids of the query's `closest` papers by meaning (its filters applied), the closest first, and the score
        they needed (`meaning_floor`: the floor, or less for a query whose closest paper lies near it). By the search
        vectors with a hub reference: of the HUB_POOL × `closest` nearest by cosine, those nearest once each paper's
        closeness to Chinese queries in general is taken off (papertrail/embedding/query_hubs)."""
        wanted = query.closest or 0
        reference = self.search_hub_reference if embedder == SEARCH_EMBEDDER else None
        top = replace(query, sort="relevance", page=1, size=wanted if reference is None else wanted * HUB_POOL)
        body = search_body(top, ["paper_id"], vector, embedder, min_score - margin) | {"facets": None}
        # the floor is applied here, on the scores: as a rankingScoreThreshold that few papers reach, Meilisearch
        # scores every vector before it answers (1.2 s at 25,000 papers; docs/benchmarks.md)
        del body["rankingScoreThreshold"]
        if reference is not None:
            body |= {"retrieveVectors": True}
        hits = (await self._search(body | {"showRankingScore": True})).hits
        floor = meaning_floor(float(hits[0]["_rankingScore"]), min_score, margin) if hits else min_score
        hits = [hit for hit in hits if float(hit["_rankingScore"]) >= floor]
        if reference is None:
            return [hit["paper_id"] for hit in hits[:wanted]], floor
        held = [hit for hit in hits if _vector_of(hit, embedder) is not None]
        if not held:
            return [], floor
        hubs = hub_scores(np.array([_vector_of(hit, embedder) for hit in held], dtype=np.float32), reference)
        cosines = np.array([2 * float(hit["_rankingScore"]) - 1 for hit in held])  # Meilisearch's (1 + cos) / 2
        order = np.argsort(-hub_corrected(cosines, hubs), kind="stable")
        return [held[i]["paper_id"] for i in order[:wanted]], floor

    def meaning_for(self, text: str) -> Meaning:
        """How a text is searched by meaning: one holding CJK characters by the search vectors' multilingual model
        (when the index has them), any other by the papers' own model, as today."""
        if self.search_meaning is not None and has_cjk(text):
            return self.search_meaning
        if self.query_embedder is None or not self.vector_dimensions:
            raise NoVectors("this index holds no paper vectors: search by meaning is off (semantic=0 searches words)")
        return Meaning(EMBEDDER, self.query_embedder, self.min_score)

    @property
    def searches_chinese(self) -> bool:
        """Whether a Chinese text is searched by the search vectors' multilingual model."""
        return self.search_meaning is not None

    async def _query_vector(self, text: str, meaning: Meaning) -> list[float]:
        (outcome,) = await meaning.query_embedder.embed([text], role="query")
        if outcome.vector is None:
            raise NoVectors(f"the query cannot be embedded: {outcome.failure or outcome.unavailable}")
        return [float(x) for x in outcome.vector]

    async def similar(
        self, paper_id: str, wanted: PaperFilter, size: int, attributes: list[str]
    ) -> list[dict[str, Any]]:
        """The papers closest in meaning to this one (itself left out), closest first, each with its
        `_rankingScore` (the cosine of the two vectors, mapped to 0..1); none when it has no vector."""
        body = {
            "id": document_id(paper_id),
            "embedder": EMBEDDER,
            "filter": wanted.clauses() or None,
            "limit": size,
            "showRankingScore": True,
            "attributesToRetrieve": attributes,
        }
        return list((await self._post("similar", body))["hits"])

    async def like_these(
        self, paper_ids: Sequence[str], wanted: PaperFilter, size: int, attributes: list[str]
    ) -> list[dict[str, Any]]:
        """The papers closest in meaning to these taken together — to the centroid of their vectors, as a "papers like
        these" follow scores its seeds (papertrail/embedding/similarity.py) — themselves left out, closest first. While
        none of them has its vector yet (a backfill still embedding), the first few are embedded here by the papers'
        model, from the text their vectors are made of; none when that cannot be done either."""
        if not paper_ids or not self.vector_dimensions:
            return []
        held = await self._search(
            {
                "filter": PaperFilter(paper_ids=paper_ids).clauses(),
                "limit": len(paper_ids),
                "attributesToRetrieve": ["paper_id", "title", "abstract"],
                "retrieveVectors": True,
            }
        )
        vectors = [vector for hit in held.hits if (vector := _vector_of(hit, EMBEDDER)) is not None]
        if not vectors and self.query_embedder is not None:
            texts = [embedding_text(hit["title"] or "", hit.get("abstract") or "") for hit in held.hits]
            outcomes = await self.query_embedder.embed(texts[:EMBEDDED_HERE])
            vectors = [outcome.vector.tolist() for outcome in outcomes if outcome.vector is not None]
        if not vectors:
            return []
        (centroid,) = l2_normalised(l2_normalised(np.array(vectors)).mean(axis=0, keepdims=True))
        body = {
            "vector": centroid.tolist(),
            "hybrid": {"embedder": EMBEDDER, "semanticRatio": 1.0},
            "filter": wanted.clauses() or None,
            "limit": size + len(paper_ids),
            "attributesToRetrieve": attributes,
        }
        these = set(paper_ids)
        return [hit for hit in (await self._search(body)).hits if hit["paper_id"] not in these][:size]

    async def _search(self, body: dict[str, Any]) -> SearchPage:
        # Raw HTTP and orjson rather than the SDK's result model: hits go to the caller as plain dicts, and the
        # model round trip was most of the API's time on top of Meilisearch's own (docs/benchmarks.md).
        found = await self._post("search", body)
        return SearchPage(found.get("totalHits") or 0, found["hits"], found.get("facetDistribution") or {})

    async def _post(self, action: str, body: dict[str, Any]) -> dict[str, Any]:
        with SEARCH_SECONDS.time():
            response = await self.client.http_client.post(
                f"indexes/{self.name}/{action}",
                content=orjson.dumps(body),
                headers={"Content-Type": "application/json"},
            )
            if response.status_code >= 400:
                raise MeilisearchApiError(f"{action} in {self.name} failed", response)
            found: dict[str, Any] = orjson.loads(response.content)
        return found

    async def get(self, paper_id: str) -> dict[str, Any] | None:
        try:
            return await self.index.get_document(document_id(paper_id))
        except MeilisearchApiError as exc:
            if exc.status_code == 404:
                return None
            raise
