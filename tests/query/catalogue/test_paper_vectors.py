"""Paper vectors in the search index, over a real Meilisearch and MongoDB and the real local model: stored vectors
attached without embedding, similar papers topically close with scores, a paper without a vector saying so, and
search by words, meaning or both answering in the mode it says; with search vectors, a Chinese search ranked by the
multilingual model's and an English one by the papers' model's, and the search embedder removed when turned off."""

from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pymongo.asynchronous.database import AsyncDatabase

from bench.zh_retrieval import first_clause
from papertrail.domain.search_document import SEARCH_EMBEDDER, PaperFilter, paper_document, with_vector
from papertrail.domain.text import paper_digest
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import (
    E5_MEANING_MIN_SCORE,
    E5_SMALL_Q4,
    SEARCH_OFF,
    Embedder,
    EmbeddingSettings,
    SearchEmbeddingSettings,
    embedding_text,
)
from papertrail.embedding.query_hubs import hub_corrected, hub_scores, reference_queries
from papertrail.runtime.collections import PAPER_VECTORS, SEARCH_VECTORS
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from schemas.paper import Paper
from schemas.paper_vector import PaperVector
from services.query.catalogue.index import PaperIndex, search_body
from services.query.catalogue.indexer.retag import attach_search_vectors_on_model_change, attach_vectors
from services.query.catalogue.reads.papers import similar_papers
from services.query.catalogue.reads.search import MEANING_MIN_SCORE, PaperListing, SimilarSearch
from services.query.catalogue.repositories import CatalogueRecords
from tests.support.corpus import paper_from_line, read_lines
from tests.support.events import enriched
from tests.support.servers import Servers

pytestmark = pytest.mark.integration

SETTINGS = EmbeddingSettings()
DAY = Path(__file__).parents[2] / "fixtures/corpus/arxiv-daily-2026-05/2026-05-05_AI_enhanced_Chinese.jsonl.gz"
SUBJECTS = ("cs.CV", "cs.CL", "cs.IT", "cs.GT")  # a day's primary categories far enough apart to tell by meaning


def day_papers(per_subject: int = 8) -> list[Paper]:
    """The first papers of each subject in one day's real listing."""
    papers = [paper_from_line(line) for line in read_lines([DAY])]
    return [p for subject in SUBJECTS for p in [q for q in papers if q.categories[0] == subject][:per_subject]]


PAPERS = day_papers()
UNEMBEDDED = PAPERS[1]  # indexed, but the summarizer has not embedded it yet


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return open_embedder(SETTINGS)


@pytest.fixture
async def index(servers: Servers, scratch_db: AsyncDatabase, embedder: Embedder) -> AsyncIterator[PaperIndex]:
    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    name = "papers_vectors_test"
    try:
        paper_index = PaperIndex(client, name, 120, SETTINGS.embedding_dimensions, embedder)
        await paper_index.ensure()
        # indexed as the indexer does before a paper's vector exists: `_vectors.paper` null
        await paper_index.upsert([with_vector(paper_document(enriched(p), {}), None) for p in PAPERS])
        # the summarizer's vectors, made by the real model
        outcomes = await embedder.embed([embedding_text(p.title, p.abstract or "") for p in PAPERS])
        now = datetime.now(UTC)
        await scratch_db[PAPER_VECTORS.name].insert_many(
            [
                {
                    "_id": p.id,
                    "model": SETTINGS.model_key,
                    "content_hash": paper_digest(p),
                    "state": "embedded",
                    "vector": o.vector.tolist(),
                    "updated_at": now,
                }
                for p, o in zip(PAPERS, outcomes, strict=True)
                if p is not UNEMBEDDED and o.vector is not None
            ]
        )
        yield paper_index
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def test_stored_vectors_make_similar_papers_topically_close_with_scores(
    index: PaperIndex, scratch_db: AsyncDatabase
) -> None:
    catalogue = CatalogueRecords.of(scratch_db)
    assert await attach_vectors(index, catalogue, SETTINGS.model_key) == len(PAPERS) - 1

    for seed in (PAPERS[8 * i + 2] for i in range(len(SUBJECTS))):
        found = await similar_papers(index, catalogue, seed.id, SimilarSearch(size=5), SETTINGS.model_key)
        assert found["vector"] == "embedded" and len(found["hits"]) == 5
        assert seed.id not in [hit["paper_id"] for hit in found["hits"]]
        scores = [hit["score"] for hit in found["hits"]]
        assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
        same_subject = Counter(hit["categories"][0] == seed.categories[0] for hit in found["hits"])
        assert same_subject[True] >= 3, f"{seed.id} ({seed.categories[0]}): {found['hits']}"


async def test_similar_papers_take_the_search_filters(index: PaperIndex, scratch_db: AsyncDatabase) -> None:
    catalogue = CatalogueRecords.of(scratch_db)
    await attach_vectors(index, catalogue, SETTINGS.model_key)
    only_cl = SimilarSearch(size=10, category=["cs.CL"])
    found = await similar_papers(index, catalogue, PAPERS[2].id, only_cl, SETTINGS.model_key)
    assert found["hits"] and {hit["categories"][0] for hit in found["hits"]} == {"cs.CL"}


async def test_a_paper_without_a_vector_says_so(index: PaperIndex, scratch_db: AsyncDatabase) -> None:
    catalogue = CatalogueRecords.of(scratch_db)
    await attach_vectors(index, catalogue, SETTINGS.model_key)
    found = await similar_papers(index, catalogue, UNEMBEDDED.id, SimilarSearch(), SETTINGS.model_key)
    assert found == {"paper_id": UNEMBEDDED.id, "vector": "pending", "model": SETTINGS.model_key, "hits": []}
    # and it is never among another paper's similar papers, having no vector in the index
    others = await similar_papers(index, catalogue, PAPERS[0].id, SimilarSearch(size=50), SETTINGS.model_key)
    assert UNEMBEDDED.id not in [hit["paper_id"] for hit in others["hits"]]
    # stored but not in the index yet (its event on its way): Meilisearch finds nothing, and that is no error
    await scratch_db[PAPER_VECTORS.name].insert_one(
        {"_id": UNEMBEDDED.id, "model": SETTINGS.model_key, "content_hash": "0", "state": "embedded", "vector": [0.1]}
    )
    racing = await similar_papers(index, catalogue, UNEMBEDDED.id, SimilarSearch(), SETTINGS.model_key)
    assert racing["vector"] == "embedded" and racing["hits"] == []


async def test_search_by_words_meaning_or_both_says_which(index: PaperIndex, scratch_db: AsyncDatabase) -> None:
    await attach_vectors(index, CatalogueRecords.of(scratch_db), SETTINGS.model_key)
    # words the papers do not use, a subject they do treat
    question = "photographs and pictures understood by machines"
    words = await index.search(PaperListing(q=question).query())
    meaning = await index.search(PaperListing(q=question, semantic=1).query())
    both = await index.search(PaperListing(q=question, semantic=0.5, category=["cs.CV", "cs.GT"]).query())
    assert (words.mode, meaning.mode, both.mode) == ("keyword", "semantic", "hybrid")
    assert meaning.hits and Counter(h["categories"][0] for h in meaning.hits[:5])["cs.CV"] >= 3
    assert {h["categories"][0] for h in both.hits} <= {"cs.CV", "cs.GT"}
    assert (await index.search(PaperListing(semantic=1).query())).mode == "keyword"  # no text: browsing
    assert await index.count(PaperFilter()) == len(PAPERS)
    # meaning counts the papers at least MEANING_MIN_SCORE close, not every paper (all have some closeness)
    scored = await index._post(
        "search",
        search_body(
            PaperListing(q=question, semantic=1).query(),
            ["paper_id"],
            await index._query_vector(question, index.meaning_for(question)),
        )
        | {"showRankingScore": True},
    )
    assert all(hit["_rankingScore"] >= MEANING_MIN_SCORE for hit in scored["hits"])
    assert 0 < meaning.total < len(PAPERS)


async def test_a_search_by_meaning_lists_the_closest_papers_and_counts_those(
    index: PaperIndex, scratch_db: AsyncDatabase
) -> None:
    """Every paper has some closeness to any text: a search by meaning alone lists the k closest (50 on the site),
    counted, paged and faceted as those k, not every paper above the floor."""
    await attach_vectors(index, CatalogueRecords.of(scratch_db), SETTINGS.model_key)
    question = "photographs and pictures understood by machines"
    above_floor = await index.search(replace(PaperListing(q=question, semantic=1).query(), meaning_top_k=len(PAPERS)))
    assert above_floor.total > 5  # the floor alone lets more through than the five asked for below
    closest = replace(PaperListing(q=question, semantic=1, size=3).query(), meaning_top_k=5)
    first, second = await index.search(closest), await index.search(replace(closest, page=2))
    assert first.total == second.total == 5 and first.closest == 5
    ranked = [hit["paper_id"] for hit in above_floor.hits]
    assert [hit["paper_id"] for hit in first.hits + second.hits] == ranked[:5]
    assert sum(first.facets["status"].values()) == 5
    # a filter's own facet counts the k closest without it (what choosing another value would list)
    in_cv = await index.search(
        replace(PaperListing(q=question, semantic=1, category=["cs.CV"]).query(), meaning_top_k=5)
    )
    assert sum(in_cv.facets["status"].values()) == in_cv.total <= 5
    assert sum(in_cv.facets["categories"].values()) >= 5
    hybrid = await index.search(PaperListing(q=question, semantic=0.5, category=["cs.CV"]).query())
    assert sum(hybrid.facets["categories"].values()) >= hybrid.total > 0, hybrid.facets
    # words and a blend of both are not cut to k
    assert (
        await index.search(replace(PaperListing(q=question, semantic=0.5).query(), meaning_top_k=5))
    ).closest is None


LINES = {f"arxiv:{line['id']}": line for line in read_lines([DAY])}
SEARCHED = PAPERS[::2]  # 16 papers, 4 of each subject: e5 costs ~0.2 CPU-s a paper
SEARCH = SearchEmbeddingSettings(search_embedding_model=E5_SMALL_Q4.id).search_embedding


@pytest.fixture(scope="module")
def search_embedder() -> Embedder:
    assert SEARCH is not None
    return open_embedder(SEARCH)


def search_vectors_index(client: Any, name: str, search_embedder: Embedder, **search: Any) -> PaperIndex:
    """An index searched by e5's search vectors alone (no query model for the papers' vectors), as configured."""
    assert SEARCH is not None
    return PaperIndex(client, name, 120, SETTINGS.embedding_dimensions, None,
                      search_dimensions=SEARCH.embedding_dimensions, search_embedder=search_embedder,
                      search_min_score=SEARCH.meaning_min_score, **search)  # fmt: skip


async def test_a_chinese_search_ranks_the_search_vectors_and_an_english_one_the_papers_vectors(
    servers: Servers, scratch_db: AsyncDatabase, embedder: Embedder, search_embedder: Embedder
) -> None:
    assert SEARCH is not None
    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    name = "papers_search_vectors_test"
    catalogue = CatalogueRecords.of(scratch_db)
    try:
        index = PaperIndex(client, name, 120, SETTINGS.embedding_dimensions, embedder,
                           search_dimensions=SEARCH.embedding_dimensions, search_embedder=search_embedder,
                           search_min_score=SEARCH.meaning_min_score)  # fmt: skip
        await index.ensure()
        documents = [with_vector(paper_document(enriched(p), {}), None) for p in SEARCHED]
        await index.upsert([with_vector(d, None, SEARCH_EMBEDDER) for d in documents])
        texts = [embedding_text(p.title, p.abstract or "") for p in SEARCHED]
        now = datetime.now(UTC)
        for collection, model, made in (
            (PAPER_VECTORS, SETTINGS.model_key, embedder),
            (SEARCH_VECTORS, SEARCH.model_key, search_embedder),
        ):
            outcomes = await made.embed(texts)
            await scratch_db[collection.name].insert_many(
                [
                    PaperVector(
                        paper_id=p.id,
                        model=model,
                        content_hash=paper_digest(p),
                        state="embedded",
                        vector=o.vector,
                        updated_at=now,
                    ).document()
                    for p, o in zip(SEARCHED, outcomes, strict=True)
                ]
            )
        await attach_vectors(index, catalogue, SETTINGS.model_key)
        await attach_search_vectors_on_model_change(index, catalogue, SEARCH.model_key)
        assert await catalogue.index_state.search_vectors_model(name) == SEARCH.model_key

        ranks = []
        for paper in SEARCHED[:8]:
            question = first_clause(LINES[paper.id]["AI"]["tldr"])
            found = await index.search(PaperListing(q=question, semantic=1).query())
            assert found.mode == "semantic" and found.min_score == E5_MEANING_MIN_SCORE
            ids = [hit["paper_id"] for hit in found.hits]
            ranks.append(ids.index(paper.id) + 1 if paper.id in ids else None)
        assert sum(rank is not None and rank <= 3 for rank in ranks) >= 6, ranks
        question = "photographs and pictures understood by machines"
        english = await index.search(PaperListing(q=question, semantic=1).query())
        assert english.mode == "semantic" and english.min_score == MEANING_MIN_SCORE  # MiniLM's, as before

        # turned off: the embedder goes with its vectors, and a document naming only the papers' embedder is taken
        off = PaperIndex(client, name, 120, SETTINGS.embedding_dimensions, embedder)
        await off.ensure()
        held = await client.index(name).get_embedders()
        assert held is not None and SEARCH_EMBEDDER not in (held.embedders or {})
        await off.upsert([with_vector(paper_document(enriched(PAPERS[1]), {}), None)])
        await attach_search_vectors_on_model_change(off, catalogue, SEARCH_OFF)
        assert await catalogue.index_state.search_vectors_model(name) == SEARCH_OFF
        chinese = PaperListing(q=first_clause(LINES[SEARCHED[0].id]["AI"]["tldr"]), semantic=1)
        assert (await off.search(chinese.query())).min_score == MEANING_MIN_SCORE  # by MiniLM, as before
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def test_a_chinese_search_by_meaning_ranks_a_paper_close_to_every_chinese_query_below_one_close_to_this(
    servers: Servers, search_embedder: Embedder
) -> None:
    """A hub (a paper near the Chinese reference queries in general) that is a little closer to the query by cosine
    than another paper comes second once its hub score is taken off, on every page; without a reference, first."""
    assert SEARCH is not None
    reference = reference_queries(SEARCH.embedding_model)
    assert reference is not None and reference.shape == (400, SEARCH.embedding_dimensions)
    (outcome,) = await search_embedder.embed(["三维高斯泼溅"], "query")
    assert outcome.vector is not None
    query = np.asarray(outcome.vector) / np.linalg.norm(outcome.vector)
    chinese_queries = reference.mean(axis=0) / np.linalg.norm(reference.mean(axis=0))
    elsewhere = np.random.default_rng(0).standard_normal(query.shape[0])
    for direction in (query, chinese_queries):  # a direction near neither the query nor Chinese queries in general
        elsewhere -= (elsewhere @ direction) * direction
    hub, particular = (
        v / np.linalg.norm(v) for v in (query + chinese_queries, query + 0.4 * elsewhere / np.linalg.norm(elsewhere))
    )
    cosines = np.array([query @ hub, query @ particular])
    hubs = hub_scores(np.vstack([hub, particular]), reference)
    assert cosines[0] > cosines[1] and hub_corrected(cosines, hubs).argmax() == 1  # the case this test is about
    assert min(cosines) > 2 * SEARCH.meaning_min_score - 1  # both pass the closeness floor

    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    name = "papers_search_hubs_test"
    try:
        by_cosine, corrected = (
            search_vectors_index(client, name, search_embedder, search_hub_reference=held) for held in (None, reference)
        )
        await by_cosine.ensure()
        papers = {"hub": PAPERS[0], "particular": PAPERS[2]}
        await by_cosine.upsert([
            with_vector(with_vector(paper_document(enriched(papers[kind]), {}), None), vector, SEARCH_EMBEDDER)
            for kind, vector in (("hub", hub), ("particular", particular))
        ])  # fmt: skip
        wanted = PaperListing(q="三维高斯泼溅", semantic=1, sort="relevance")
        first = [hit["paper_id"] for hit in (await by_cosine.search(wanted.query())).hits]
        assert first == [papers["hub"].id, papers["particular"].id]
        found = await corrected.search(wanted.query())
        assert [hit["paper_id"] for hit in found.hits] == [papers["particular"].id, papers["hub"].id]
        assert found.total == 2 and found.mode == "semantic"
        second_page = await corrected.search(wanted.model_copy(update={"page": 2, "size": 1}).query())
        assert [hit["paper_id"] for hit in second_page.hits] == [papers["hub"].id] and second_page.total == 2
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def test_a_short_chinese_query_lists_its_closest_papers_just_below_the_floor_and_a_close_one_keeps_it(
    servers: Servers, search_embedder: Embedder
) -> None:
    """A short query lies less close to everything: papers a little under the model's floor, behind a closest one
    also under it, are listed; a query whose closest paper clears the floor by more than the margin keeps it."""
    assert SEARCH is not None
    (outcome,) = await search_embedder.embed(["三维高斯泼溅"], "query")
    assert outcome.vector is not None
    query = np.asarray(outcome.vector) / np.linalg.norm(outcome.vector)
    rng = np.random.default_rng(1)

    def at(cosine: float) -> np.ndarray:
        """A unit vector at this cosine to the query."""
        aside = rng.standard_normal(query.shape[0])
        aside -= (aside @ query) * query
        return cosine * query + np.sqrt(1 - cosine**2) * aside / np.linalg.norm(aside)

    floor = 2 * SEARCH.meaning_min_score - 1  # e5's floor as a cosine
    margin = 2 * SEARCH.meaning_floor_margin
    assert margin > 0
    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    name = "papers_search_floor_test"
    try:
        fixed, relative = (
            search_vectors_index(client, name, search_embedder, search_floor_margin=held)
            for held in (0.0, SEARCH.meaning_floor_margin)
        )
        await fixed.ensure()
        short = {  # the closest under the floor, one within the margin behind it, one past the floor less the margin
            PAPERS[0].id: floor - margin / 3, PAPERS[2].id: floor - margin * 2 / 3, PAPERS[4].id: floor - margin * 1.5
        }  # fmt: skip
        papers = {p.id: p for p in PAPERS[:6:2]}
        await fixed.upsert([
            with_vector(with_vector(paper_document(enriched(papers[i]), {}), None), at(c), SEARCH_EMBEDDER)
            for i, c in short.items()
        ])  # fmt: skip
        wanted = PaperListing(q="三维高斯泼溅", semantic=1, sort="relevance").query()
        assert (await fixed.search(wanted)).total == 0  # the floor alone: nothing
        sent: list[dict[str, Any]] = []
        searched = relative._search

        async def recorded(body: dict[str, Any]) -> Any:
            sent.append(body)
            return await searched(body)

        relative._search = recorded  # type: ignore[method-assign]
        found = await relative.search(wanted)
        # the closest are read without a threshold (one few papers reach makes Meilisearch score every vector), and
        # the floor is applied to their scores: the paper past it is still left out (below)
        assert "rankingScoreThreshold" not in sent[0] and sent[0].get("vector")
        assert [hit["paper_id"] for hit in found.hits] == [PAPERS[0].id, PAPERS[2].id] and found.total == 2
        assert found.min_score is not None and found.min_score < SEARCH.meaning_min_score  # the page says so

        # a closest paper well past the floor: the one under it stays out
        await fixed.upsert([
            with_vector(with_vector(paper_document(enriched(PAPERS[6]), {}), None), at(floor + margin * 2),
                        SEARCH_EMBEDDER)
        ])  # fmt: skip
        found = await relative.search(wanted)
        assert [hit["paper_id"] for hit in found.hits] == [PAPERS[6].id] and found.min_score == SEARCH.meaning_min_score
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()
