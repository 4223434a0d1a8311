"""The index stage over a real Meilisearch (with its user-provided embedder) and MongoDB: a paper is searchable as
soon as its enriched event is indexed, with or without its vector; a vector that comes later is attached and
changes nothing else; a pending revision keeps the vector its document holds; after a model change the index never
keeps another model's vector; a refusal that is not a document's is raised, not retried one document at a time; and a
paper the index does not hold yet answers from its canonical record."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.search_document import document_id
from papertrail.runtime.collections import PAPER_VECTORS
from papertrail.runtime.collections import PAPERS as PAPERS_COLLECTION
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from schemas.events import PaperEmbedding, PaperEnriched
from schemas.paper import Paper
from services.query.api.routes.papers import PaperDetail
from services.query.catalogue.index import INDEX_REFUSED, IndexRefused, PaperIndex
from services.query.catalogue.indexer.handlers import index_enriched
from services.query.catalogue.indexer.topic_tags import TopicTagger
from services.query.catalogue.reads.paper_lookup import paper_key
from services.query.catalogue.reads.papers import paper_detail
from services.query.catalogue.reads.search import PaperQuery
from services.query.catalogue.repositories import CatalogueRecords
from tests.support.corpus import paper_from_line, read_lines
from tests.support.events import enriched
from tests.support.servers import Servers

pytestmark = pytest.mark.integration

DAY = Path(__file__).parents[2] / "fixtures/corpus/arxiv-daily-2026-05/2026-05-05_AI_enhanced_Chinese.jsonl.gz"
PAPERS = [paper_from_line(line) for line in read_lines([DAY])][:6]
DIMENSIONS = 4
MODEL = f"local/test-model-a/{DIMENSIONS}/256"
OTHER_MODEL = f"local/test-model-b/{DIMENSIONS}/256"
TAGGER = TopicTagger(load_catalogue())


def event(paper: Paper, state: str | None, seq: int = 1, model: str = MODEL, **changes: Any) -> PaperEnriched:
    """The summarizer's event of `paper` at version `seq`, its vector `state` (None: an older producer's)."""
    base = enriched(paper.model_copy(update=changes))
    embedding = PaperEmbedding(model=model, state=state) if state else None  # type: ignore[arg-type]
    return base.model_copy(update={"version": base.version.model_copy(update={"seq": seq}), "embedding": embedding})


def unit(axis: int) -> list[float]:
    return [1.0 if n == axis else 0.0 for n in range(DIMENSIONS)]


@pytest.fixture
async def setup(servers: Servers, scratch_db: AsyncDatabase) -> AsyncIterator[tuple[PaperIndex, CatalogueRecords]]:
    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    name = "papers_indexing_test"
    await client.delete_index_if_exists(name)
    try:
        index = PaperIndex(client, name, 120, DIMENSIONS)
        await index.ensure()
        catalogue = CatalogueRecords.of(scratch_db)
        await catalogue.index_state.save_vectors_model(name, MODEL)  # the index's vectors are this model's (none yet)
        yield index, catalogue
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def store_vector(db: AsyncDatabase, paper: Paper, vector: list[float], model: str = MODEL) -> None:
    """The summarizer's stored vector of the paper."""
    await db[PAPER_VECTORS.name].replace_one(
        {"_id": paper.id},
        {"_id": paper.id, "model": model, "content_hash": "0" * 64, "state": "embedded", "vector": vector,
         "updated_at": datetime.now(UTC)},
        upsert=True,
    )  # fmt: skip


async def index_events(
    index: PaperIndex, catalogue: CatalogueRecords, *events: PaperEnriched, model: str = MODEL
) -> None:
    assert await index_enriched(list(events), index, catalogue, TAGGER, model) == []


async def held(index: PaperIndex, paper: Paper) -> dict[str, Any]:
    """The paper's document with its vectors as Meilisearch holds them."""
    found = await index.index.get_documents(ids=[document_id(paper.id)], retrieve_vectors=True, limit=1)
    assert len(found.results) == 1, f"{paper.id} is not in the index"
    return found.results[0]


def vectors_of(document: dict[str, Any]) -> list[list[float]]:
    return list(document["_vectors"]["paper"]["embeddings"])


async def searchable(index: PaperIndex, paper: Paper) -> bool:
    found = await index.search(PaperQuery(q=paper.title, size=20), attributes=["paper_id"])
    return paper.id in {hit["paper_id"] for hit in found.hits}


async def test_a_new_paper_whose_vector_is_pending_is_searchable_at_once(
    setup: tuple[PaperIndex, CatalogueRecords],
) -> None:
    index, catalogue = setup
    paper = PAPERS[0]
    await index_events(index, catalogue, event(paper, "pending"))
    assert await searchable(index, paper)
    assert vectors_of(await held(index, paper)) == []


async def test_a_new_embedded_paper_is_searchable_with_its_vector(
    setup: tuple[PaperIndex, CatalogueRecords], scratch_db: AsyncDatabase
) -> None:
    index, catalogue = setup
    paper = PAPERS[1]
    await store_vector(scratch_db, paper, unit(1))
    await index_events(index, catalogue, event(paper, "embedded"))
    assert await searchable(index, paper)
    assert vectors_of(await held(index, paper)) == [unit(1)]


async def test_a_pending_revision_keeps_the_vector_and_updates_the_rest(
    setup: tuple[PaperIndex, CatalogueRecords], scratch_db: AsyncDatabase
) -> None:
    index, catalogue = setup
    paper = PAPERS[2]
    await store_vector(scratch_db, paper, unit(2))
    await index_events(index, catalogue, event(paper, "embedded"))
    # the revision's text is not embedded yet; the summarizer's cache of the old text is gone with the new hash
    await scratch_db[PAPER_VECTORS.name].delete_one({"_id": paper.id})
    revised = event(paper, "pending", seq=2, title="A revised title", abstract="A revised abstract.")
    await index_events(index, catalogue, revised)
    document = await held(index, paper)
    assert (document["title"], document["abstract"], document["version_seq"]) == (
        "A revised title",
        "A revised abstract.",
        2,
    )
    assert vectors_of(document) == [unit(2)]


async def test_a_vector_coming_later_is_attached_and_changes_nothing_else(
    setup: tuple[PaperIndex, CatalogueRecords], scratch_db: AsyncDatabase
) -> None:
    index, catalogue = setup
    paper = PAPERS[3]
    first = event(paper, "pending")
    await index_events(index, catalogue, first)
    before = await held(index, paper)
    await store_vector(scratch_db, paper, unit(3))
    await index_events(
        index, catalogue, first.model_copy(update={"embedding": PaperEmbedding(model=MODEL, state="embedded")})
    )
    after = await held(index, paper)
    assert vectors_of(after) == [unit(3)]
    assert {k: v for k, v in after.items() if k != "_vectors"} == {k: v for k, v in before.items() if k != "_vectors"}
    # a paper emitted again for its vector after its next version was indexed: the vector only, not the old text
    revised = event(paper, "pending", seq=2, title="A second version")
    await index_events(index, catalogue, revised)
    await store_vector(scratch_db, paper, unit(0))
    await index_events(
        index, catalogue, first.model_copy(update={"embedding": PaperEmbedding(model=MODEL, state="embedded")})
    )
    latest = await held(index, paper)
    assert (latest["title"], latest["version_seq"]) == ("A second version", 2)
    assert vectors_of(latest) == [unit(0)]


async def test_after_a_model_change_no_document_keeps_the_old_models_vector(
    setup: tuple[PaperIndex, CatalogueRecords], scratch_db: AsyncDatabase
) -> None:
    index, catalogue = setup
    kept, replaced = PAPERS[4], PAPERS[5]
    for paper, axis in ((kept, 0), (replaced, 1)):
        await store_vector(scratch_db, paper, unit(axis))
    await index_events(index, catalogue, event(kept, "embedded"), event(replaced, "embedded"))
    # the service now runs another model: the summarizer has embedded one paper with it so far, and the index's
    # vectors are still the old model's until the stored ones are attached again
    await store_vector(scratch_db, replaced, unit(3), model=OTHER_MODEL)
    await index_events(
        index, catalogue,
        event(kept, "pending", seq=2, model=OTHER_MODEL), event(replaced, "pending", seq=2, model=OTHER_MODEL),
        model=OTHER_MODEL,
    )  # fmt: skip
    assert vectors_of(await held(index, kept)) == []
    assert vectors_of(await held(index, replaced)) == [unit(3)]
    assert await searchable(index, kept) and await searchable(index, replaced)


async def test_a_refusal_not_of_the_documents_is_raised_and_counted_not_retried_one_by_one(
    setup: tuple[PaperIndex, CatalogueRecords], scratch_db: AsyncDatabase
) -> None:
    index, catalogue = setup
    # vectors of another size than the embedder's: every document of the batch would fail alike
    for paper in PAPERS[:3]:
        await store_vector(scratch_db, paper, [1.0] * (DIMENSIONS + 1))
    refused = INDEX_REFUSED._value.get()
    tasks_before = (await index.client.get_tasks(index_ids=[index.name])).total
    with pytest.raises(IndexRefused, match="invalid_vector_dimensions"):
        await index_enriched([event(p, "embedded") for p in PAPERS[:3]], index, catalogue, TAGGER, MODEL)
    assert INDEX_REFUSED._value.get() == refused + 1
    # one task for the batch, none for single documents
    assert (await index.client.get_tasks(index_ids=[index.name])).total == tasks_before + 1


async def test_a_paper_the_index_does_not_hold_yet_answers_from_its_canonical_record(
    setup: tuple[PaperIndex, CatalogueRecords], scratch_db: AsyncDatabase
) -> None:
    index, catalogue = setup
    paper = PAPERS[0]
    await scratch_db[PAPERS_COLLECTION.name].insert_one({**paper.model_dump(), "_id": paper.id})
    held_paper = await catalogue.papers.paper(paper_key(paper.id))
    assert held_paper is not None
    detail = PaperDetail.model_validate(await paper_detail(held_paper, index, catalogue))
    assert (detail.title, detail.abstract) == (paper.title, paper.abstract)
    assert detail.authors == [a.name for a in paper.authors] and detail.authors
    assert detail.categories == paper.categories and detail.categories
    assert detail.ids == paper.ids.model_dump(exclude_none=True)
    assert not detail.searchable
    await index_events(index, catalogue, event(paper, "pending"))
    held_paper = await catalogue.papers.paper(paper_key(paper.id))
    assert held_paper is not None
    assert PaperDetail.model_validate(await paper_detail(held_paper, index, catalogue)).searchable
