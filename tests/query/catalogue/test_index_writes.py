"""What the index stage writes for a batch, without servers: a new pending paper opts out of vectors, a vector coming
later is a vector-only partial update, a pending event keeps the vector a document holds (not after a model change),
an event older than the held document writes none of its fields; a refusal not of the documents is redelivered, one of
a document parked. (Meilisearch's side: test_indexing.py.)"""

from datetime import UTC, datetime

import numpy as np

from papertrail.domain.search_document import EMBEDDER, SEARCH_EMBEDDER, document_id
from papertrail.runtime.kafka import UnprocessableMessage, is_transient
from schemas.events import PaperEmbedding, PaperEnriched
from services.query.catalogue.index import DocumentRefused, IndexRefused
from services.query.catalogue.indexer.writes import DIGEST, HeldDocument, SearchVectorWrites, index_writes
from tests.support.corpus import PAPER
from tests.support.events import enriched

MODEL = "local/test-model/4/256"
VECTOR = np.asarray([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
NOW = datetime(2026, 12, 7, tzinfo=UTC)


def event(state: str, seq: int = 1, base: PaperEnriched | None = None) -> PaperEnriched:
    base = base or enriched(PAPER)
    version = base.version.model_copy(update={"seq": seq})
    return base.model_copy(update={"version": version, "embedding": PaperEmbedding(model=MODEL, state=state)})  # type: ignore[arg-type]


def held_after(first: PaperEnriched) -> dict[str, HeldDocument]:
    (document,) = index_writes([first], [{}], {}, {}, True, now=NOW)
    assert document is not None
    return {PAPER.id: HeldDocument(first.version.seq, document[DIGEST])}


def test_a_new_pending_paper_is_written_whole_and_opts_out_of_vectors() -> None:
    (document,) = index_writes([event("pending")], [{}], {}, {}, True, now=NOW)
    assert document is not None
    assert document["title"] == PAPER.title and document["_vectors"] == {EMBEDDER: None}


def test_a_vector_coming_later_is_written_alone() -> None:
    first = event("pending")
    again = first.model_copy(update={"embedding": PaperEmbedding(model=MODEL, state="embedded")})
    (write,) = index_writes([again], [{}], held_after(first), {PAPER.id: VECTOR}, True, now=NOW)
    assert write == {"id": document_id(PAPER.id), "_vectors": {EMBEDDER: VECTOR.tolist()}}


def test_the_same_pending_event_again_writes_nothing() -> None:
    first = event("pending")
    assert index_writes([first], [{}], held_after(first), {}, True, now=NOW) == [None]


def test_a_pending_revision_keeps_the_held_vector_unless_the_model_changed() -> None:
    first = event("embedded")
    revision = event("pending", seq=2, base=enriched(PAPER.model_copy(update={"title": "Revised"})))
    (kept,) = index_writes([revision], [{}], held_after(first), {}, True, now=NOW)
    assert kept is not None and kept["title"] == "Revised" and "_vectors" not in kept
    (dropped,) = index_writes([revision], [{}], held_after(first), {}, False, now=NOW)
    assert dropped is not None and dropped["_vectors"] == {EMBEDDER: None}


SEARCH_VECTOR = np.asarray([0.0, 1.0, 0.0, 0.0], dtype=np.float32)


def test_with_search_vectors_a_new_paper_opts_out_of_both_embedders_until_it_has_them() -> None:
    (document,) = index_writes([event("pending")], [{}], {}, {}, True, SearchVectorWrites({}, True), now=NOW)
    assert document is not None and document["_vectors"] == {EMBEDDER: None, SEARCH_EMBEDDER: None}
    both = event("embedded")
    search = SearchVectorWrites({PAPER.id: SEARCH_VECTOR}, True)
    (write,) = index_writes([both], [{}], held_after(event("pending")), {PAPER.id: VECTOR}, True, search, now=NOW)
    assert write == {
        "id": document_id(PAPER.id),
        "_vectors": {EMBEDDER: VECTOR.tolist(), SEARCH_EMBEDDER: SEARCH_VECTOR.tolist()},
    }


def test_a_held_search_vector_is_kept_while_none_is_stored_unless_it_may_be_another_models() -> None:
    # the papers' vector is settled, the search vector not yet (the sweep emits the paper again once it is)
    first = event("embedded")
    revision = event("embedded", seq=2, base=enriched(PAPER.model_copy(update={"title": "Revised"})))
    (kept,) = index_writes(
        [revision], [{}], held_after(first), {PAPER.id: VECTOR}, True, SearchVectorWrites({}, True), now=NOW
    )
    assert kept is not None and kept["_vectors"] == {EMBEDDER: VECTOR.tolist()}
    search = SearchVectorWrites({}, holds_ours=False)  # the search model changed: the held one may be the old one's
    (dropped,) = index_writes([revision], [{}], held_after(first), {PAPER.id: VECTOR}, True, search, now=NOW)
    assert dropped is not None and dropped["_vectors"] == {EMBEDDER: VECTOR.tolist(), SEARCH_EMBEDDER: None}


def test_without_search_vectors_the_documents_name_no_search_embedder() -> None:
    (document,) = index_writes([event("embedded")], [{}], {}, {PAPER.id: VECTOR}, True, None, now=NOW)
    assert document is not None and document["_vectors"] == {EMBEDDER: VECTOR.tolist()}


def test_a_paper_twice_in_a_batch_keeps_the_vector_its_first_event_wrote() -> None:
    embedded, revision = event("embedded"), event("pending", seq=2)
    first, second = index_writes([embedded, revision], [{}, {}], {}, {PAPER.id: VECTOR}, True, now=NOW)
    assert first is not None and first["_vectors"] == {EMBEDDER: VECTOR.tolist()}
    assert second is not None and second["_vectors"] == {EMBEDDER: VECTOR.tolist()}  # the stored one, again
    _, later = index_writes([embedded, revision], [{}, {}], {}, {}, True, now=NOW)
    assert later is not None and "_vectors" not in later  # none stored: the first event's null is kept


def test_an_event_older_than_the_held_document_writes_only_its_vector() -> None:
    newer = event("pending", seq=3)
    held = {PAPER.id: HeldDocument(3, "another digest")}
    (write,) = index_writes([event("embedded", seq=2, base=newer)], [{}], held, {PAPER.id: VECTOR}, True, now=NOW)
    assert write == {"id": document_id(PAPER.id), "_vectors": {EMBEDDER: VECTOR.tolist()}}
    assert index_writes([event("pending", seq=2, base=newer)], [{}], held, {}, True, now=NOW) == [None]


def test_a_refusal_not_of_the_documents_is_redelivered_and_one_of_a_document_is_parked() -> None:
    assert is_transient(IndexRefused("Meilisearch task 7 failed: invalid_vector_dimensions"))
    assert isinstance(DocumentRefused("Meilisearch task 8 failed: invalid_document_id"), UnprocessableMessage)
    assert not is_transient(DocumentRefused("Meilisearch task 8 failed: invalid_document_id"))
