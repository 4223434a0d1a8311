"""Paper vectors in the summarizer, over a real MongoDB-protocol server and the real local model: a paper never waits
for its vector, the sweep embeds it and emits it again, the cache spares a model run, bad text ends `failed` or
embedded (never a crash), and stored papers without a vector of the model are queued."""

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from bson.binary import VECTOR_SUBTYPE, Binary, BinaryVectorDtype
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.text import paper_digest
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import E5_SMALL_Q4, Embedder, EmbeddingSettings, SearchEmbeddingSettings
from papertrail.embedding.paper_vectors import vector_of
from papertrail.runtime.claims import Clock, utc_now
from papertrail.runtime.collections import PAPER_VECTORS, PAPERS
from schemas.events import PaperEnriched
from schemas.paper_vector import PaperVector
from schemas.summary import Summary
from services.summarizer.policy import enriched_event
from services.summarizer.store import (
    MongoTokenBudget,
    NewPapersPublished,
    VectorStore,
    convert_vectors_to_float32,
    search_vectors,
)
from services.summarizer.vectors import PaperVectors, SearchVectors
from tests.support.fake_openai import corpus_event, corpus_lines

pytestmark = pytest.mark.integration

LINES = corpus_lines()
SETTINGS = EmbeddingSettings()
PENDING = Summary(status="pending", error="no model configured")


def same(vector: np.ndarray | None, other: Any) -> bool:
    return vector is not None and other is not None and bool(np.array_equal(vector, other))


@pytest.fixture(scope="module")
def embedder() -> Iterator[Embedder]:
    yield open_embedder(SETTINGS)


@pytest.fixture(scope="module")
def search_embedder() -> Iterator[Embedder]:
    search = SearchEmbeddingSettings(search_embedding_model=E5_SMALL_Q4.id).search_embedding
    assert search is not None
    yield open_embedder(search)


class Harness:
    """PaperVectors over the test database (with search vectors when given their model), and what its sweep
    emitted."""

    def __init__(
        self, db: AsyncDatabase, embedder: Embedder, search: Embedder | None = None, clock: Clock = utc_now
    ) -> None:
        self.db = db
        self.store = VectorStore(db, clock=clock)
        self.search_store = search_vectors(db)
        self.vectors = PaperVectors(self.store, embedder, SearchVectors(self.search_store, search) if search else None)
        self.emitted: list[PaperEnriched] = []

    async def emit(self, events: list[PaperEnriched]) -> None:
        self.emitted += events

    async def handle(self, *lines: dict, **changes: Any) -> list[PaperEnriched]:
        """What the summarizer's handler does: state each paper's vector, hold the pending ones."""
        normalized = [corpus_event(line, **changes) for line in lines]
        states = await self.vectors.states([e.paper for e in normalized])
        events = [enriched_event(e, PENDING, s) for e, s in zip(normalized, states, strict=True)]
        await self.vectors.hold_pending(events)
        return events

    async def sweep(self, batch: int = 8) -> int:
        return await self.vectors.sweep(self.emit, batch)


@pytest.fixture
async def harness(scratch_db: AsyncDatabase, embedder: Embedder) -> AsyncIterator[Harness]:
    harness = Harness(scratch_db, embedder)
    await harness.store.ensure_indexes()
    yield harness


async def test_a_paper_flows_on_pending_and_the_sweep_embeds_and_emits_it_again(harness: Harness) -> None:
    events = await harness.handle(LINES[0], LINES[1])
    assert [e.embedding.state for e in events if e.embedding] == ["pending", "pending"]
    assert await harness.store.backlog() == 2

    assert await harness.sweep() == 2

    assert [e.paper.id for e in harness.emitted] == [e.paper.id for e in events]
    assert {e.embedding.state for e in harness.emitted if e.embedding} == {"embedded"}
    stored = await harness.store.of_papers([e.paper.id for e in events])
    for event in events:
        vector = stored[event.paper.id].vector
        assert vector is not None and vector.shape == (384,)
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-4)
    assert await harness.store.backlog() == 0
    assert await harness.sweep() == 0  # nothing waits: nothing emitted again
    raw = await harness.db[PAPER_VECTORS.name].find_one({"_id": events[0].paper.id})
    assert raw is not None and isinstance(raw["vector"], Binary) and raw["vector"].subtype == VECTOR_SUBTYPE
    assert raw["vector"].as_vector().dtype == BinaryVectorDtype.FLOAT32
    assert len(harness.emitted) == 2


class WithdrawnWhileEmbedding:
    """The real local model; while it embeds, the papers' withdrawal arrives (the summarizer's handler forgets them)."""

    def __init__(self, embedder: Embedder, vectors: PaperVectors, withdrawn: list[str]) -> None:
        self.embedder, self.vectors, self.withdrawn = embedder, vectors, withdrawn
        self.model_key = embedder.model_key

    async def embed(self, texts: Any, role: Any = "passage") -> Any:
        embedded = await self.embedder.embed(texts, role=role)
        for paper_id in self.withdrawn:
            await self.vectors.forget(paper_id)
        return embedded


async def test_a_paper_withdrawn_while_the_sweep_embeds_it_is_not_emitted_again(harness: Harness) -> None:
    """Emitted, the matcher would match a withdrawn paper anew (test_front_matter_and_picks.py failed so under load)."""
    kept, withdrawn = await harness.handle(LINES[0], LINES[1])
    real = harness.vectors.embedder
    harness.vectors.embedder = WithdrawnWhileEmbedding(real, harness.vectors, [withdrawn.paper.id])  # type: ignore[assignment]
    assert await harness.sweep() == 2
    assert [e.paper.id for e in harness.emitted] == [kept.paper.id]


async def test_the_cache_spares_a_replay_a_metadata_change_and_a_paper_with_the_same_text(harness: Harness) -> None:
    await harness.handle(LINES[2])
    await harness.sweep()
    before = await harness.store.of_papers([f"arxiv:{LINES[2]['id']}"])

    replay = await harness.handle(LINES[2])
    metadata = await harness.handle(LINES[2], kind="updated", comments="accepted at a venue")
    twin = await harness.handle(LINES[2] | {"id": "2605.99999"})

    assert [e.embedding.state for e in replay + metadata + twin if e.embedding] == ["embedded"] * 3
    assert await harness.store.backlog() == 0  # no model run waits for any of them
    after = await harness.store.of_papers([f"arxiv:{LINES[2]['id']}", "arxiv:2605.99999"])
    embedded = before[f"arxiv:{LINES[2]['id']}"].vector
    assert same(after[f"arxiv:{LINES[2]['id']}"].vector, embedded)
    assert same(after["arxiv:2605.99999"].vector, embedded)


async def test_a_changed_abstract_waits_for_a_new_vector(harness: Harness) -> None:
    (first,) = await harness.handle(LINES[3])
    await harness.sweep()
    embedded = (await harness.store.of_papers([first.paper.id]))[first.paper.id]
    (revised,) = await harness.handle(LINES[3] | {"summary": "We study diffusion models for weather forecasts."})
    assert revised.embedding is not None and revised.embedding.state == "pending"
    assert await harness.sweep() == 1
    stored = (await harness.store.of_papers([revised.paper.id]))[revised.paper.id]
    assert stored.state == "embedded" and stored.content_hash != embedded.content_hash
    assert not same(stored.vector, embedded.vector)


async def test_bad_text_ends_failed_or_embedded_never_a_crash(harness: Harness) -> None:
    empty = LINES[4] | {"id": "2605.90001", "title": " ", "summary": ""}
    huge = LINES[4] | {"id": "2605.90002", "summary": "attention " * 5_000}  # 50,000 characters
    chinese = LINES[4] | {
        "id": "2605.90003",
        "title": "大语言模型的检索增强生成",
        "summary": "我们研究检索增强生成。" * 20,
    }
    await harness.handle(empty, huge, chinese)

    assert await harness.sweep() == 3

    stored = await harness.store.of_papers(["arxiv:2605.90001", "arxiv:2605.90002", "arxiv:2605.90003"])
    failed = stored["arxiv:2605.90001"]
    assert failed.state == "failed" and failed.error and "nothing to embed" in failed.error
    assert stored["arxiv:2605.90002"].vector is not None and stored["arxiv:2605.90003"].vector is not None
    states = {e.paper.id: e.embedding.state for e in harness.emitted if e.embedding}
    assert states == {"arxiv:2605.90001": "failed", "arxiv:2605.90002": "embedded", "arxiv:2605.90003": "embedded"}
    (again,) = await harness.handle(empty)  # a failure is cached like a vector: the same text is not tried again
    assert again.embedding is not None and again.embedding.state == "failed"


async def test_stored_papers_without_a_vector_of_the_model_are_queued_and_embedded(harness: Harness) -> None:
    old = corpus_event(LINES[5])  # stored before embeddings existed
    body = old.paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)
    await harness.db[PAPERS.name].insert_one(
        {"_id": old.paper.id, **body, "last_versions": [old.version.model_dump(mode="python")]}
    )
    other_model = PaperVector(
        paper_id=old.paper.id,
        model="local/another/384/256",
        content_hash=paper_digest(old.paper),
        state="failed",
        error="x",
        updated_at=datetime.now(UTC),
    )
    await harness.db[PAPER_VECTORS.name].insert_one(other_model.document())

    assert await harness.sweep() == 0  # queues it
    assert await harness.sweep() == 1  # embeds it

    (emitted,) = harness.emitted
    assert emitted.paper.id == old.paper.id and emitted.kind == "updated"
    assert emitted.embedding is not None and emitted.embedding.state == "embedded"
    assert await harness.sweep() == 0 and not harness.vectors.backfilling


@pytest.fixture
async def searching(scratch_db: AsyncDatabase, embedder: Embedder, search_embedder: Embedder) -> AsyncIterator[Harness]:
    harness = Harness(scratch_db, embedder, search_embedder)
    await harness.store.ensure_indexes()
    await harness.search_store.ensure_indexes()
    yield harness


async def test_with_search_vectors_one_sweep_makes_both_and_emits_the_paper_once(searching: Harness) -> None:
    (event,) = await searching.handle(LINES[0])
    assert event.embedding is not None and event.embedding.state == "pending"

    assert await searching.sweep() == 1

    (emitted,) = searching.emitted
    assert emitted.embedding is not None and emitted.embedding.state == "embedded"
    own = (await searching.store.of_papers([event.paper.id]))[event.paper.id]
    search = (await searching.search_store.of_papers([event.paper.id]))[event.paper.id]
    assert own.model == searching.vectors.model and search.model == searching.vectors.kinds[1].model
    assert own.model != search.model and search.vector is not None and search.vector.shape == (384,)
    assert not same(own.vector, search.vector)
    # the same text again: both from the cache, nothing waits
    (again,) = await searching.handle(LINES[0])
    assert again.embedding is not None and again.embedding.state == "embedded"
    assert await searching.store.backlog() == 0

    await searching.vectors.forget(event.paper.id)  # withdrawn: both vectors go
    assert not await searching.store.of_papers([event.paper.id])
    assert not await searching.search_store.of_papers([event.paper.id])


async def test_a_paper_with_its_vector_but_no_search_vector_waits_for_the_search_vector_alone(
    searching: Harness, embedder: Embedder
) -> None:
    without = Harness(searching.db, embedder)  # the summarizer before search vectors were turned on
    await without.handle(LINES[1])
    await without.sweep()
    stored = (await searching.store.of_papers([corpus_event(LINES[1]).paper.id]))[corpus_event(LINES[1]).paper.id]

    (event,) = await searching.handle(LINES[1])  # a metadata update, once they are on

    assert event.embedding is not None and event.embedding.state == "embedded"  # the matcher need not wait
    assert await searching.store.backlog() == 1  # the paper waits for its search vector
    assert await searching.sweep() == 1
    (emitted,) = searching.emitted
    assert emitted.embedding is not None and emitted.embedding.state == "embedded"
    # its vector was not made again; its search vector was
    kept = (await searching.store.of_papers([event.paper.id]))[event.paper.id]
    assert kept.updated_at == stored.updated_at
    assert (await searching.search_store.of_papers([event.paper.id]))[event.paper.id].state == "embedded"


async def test_stored_papers_without_a_search_vector_are_queued_once_search_vectors_are_on(
    searching: Harness, embedder: Embedder
) -> None:
    without = Harness(searching.db, embedder)
    old = corpus_event(LINES[2])
    body = old.paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)
    await searching.db[PAPERS.name].insert_one(
        {"_id": old.paper.id, **body, "last_versions": [old.version.model_dump(mode="python")]}
    )
    assert await without.sweep() == 0 and await without.sweep() == 1  # queued, then its vector made

    assert await searching.sweep() == 0  # queues it for its search vector
    assert await searching.sweep() == 1
    (emitted,) = searching.emitted
    assert emitted.paper.id == old.paper.id and emitted.embedding is not None
    assert emitted.embedding.state == "embedded"
    assert (await searching.search_store.of_papers([old.paper.id]))[old.paper.id].state == "embedded"
    assert await searching.sweep() == 0 and await searching.sweep() == 0
    assert not searching.vectors.backfilling


async def test_search_vectors_of_an_earlier_cut_are_made_again_and_the_papers_vectors_kept(
    searching: Harness, embedder: Embedder
) -> None:
    earlier = SearchEmbeddingSettings(search_embedding_model=E5_SMALL_Q4.id, search_embedding_max_tokens=256)
    assert earlier.search_embedding is not None
    before = Harness(searching.db, embedder, open_embedder(earlier.search_embedding))  # search vectors of 256 tokens
    line = max(LINES, key=lambda line: len(line["summary"]))  # an abstract longer than either cut
    old = corpus_event(line)
    body = old.paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)
    await searching.db[PAPERS.name].insert_one(
        {"_id": old.paper.id, **body, "last_versions": [old.version.model_dump(mode="python")]}
    )
    assert await before.sweep() == 0 and await before.sweep() == 1  # queued, then both vectors made
    vector = (await searching.store.of_papers([old.paper.id]))[old.paper.id]
    at_256 = (await searching.search_store.of_papers([old.paper.id]))[old.paper.id]

    assert await searching.sweep() == 0  # queues it: its search vector is of another cut, so another model's
    assert await searching.sweep() == 1
    made = (await searching.search_store.of_papers([old.paper.id]))[old.paper.id]
    assert made.model == searching.vectors.kinds[1].model != at_256.model and made.state == "embedded"
    assert made.vector is not None and at_256.vector is not None and not same(made.vector, at_256.vector)
    kept = (await searching.store.of_papers([old.paper.id]))[old.paper.id]
    assert kept.updated_at == vector.updated_at and same(kept.vector, vector.vector)  # MiniLM's is not made again
    assert await searching.sweep() == 0 and not searching.vectors.backfilling


async def test_the_endpoint_token_budget_is_shared_by_every_instance(scratch_db: AsyncDatabase) -> None:
    one, other = MongoTokenBudget(VectorStore(scratch_db)), MongoTokenBudget(VectorStore(scratch_db))
    await one.spend("2026-12-01", 1_000)
    await other.spend("2026-12-01", 500)
    await other.spend("2026-12-02", 7)
    assert await one.used("2026-12-01") == await other.used("2026-12-01") == 1_500
    assert await one.used("2026-12-02") == 7 and await one.used("2026-11-30") == 0


async def test_vectors_stored_as_arrays_of_doubles_are_read_and_converted_to_float32(scratch_db: AsyncDatabase) -> None:
    """Vectors written before PaperVector (BSON arrays of doubles) are read as they are, and the conversion rewrites
    them as binary float32 with the same values, once; failures and binary vectors are left alone."""
    now = datetime.now(UTC).replace(microsecond=0)
    values = [[0.6, 0.8, 0.0], [1 / 3, -0.25, 0.125]]
    old: list[dict[str, Any]] = [
        {"_id": f"arxiv:2605.0000{i}", "model": SETTINGS.model_key, "content_hash": f"{i}" * 64, "state": "embedded",
         "vector": v, "updated_at": now}
        for i, v in enumerate(values)
    ]  # fmt: skip
    failed = PaperVector(paper_id="arxiv:2605.00009", model=SETTINGS.model_key, content_hash="9" * 64,
                         state="failed", error="nothing to embed", updated_at=now)  # fmt: skip
    binary = PaperVector(paper_id="arxiv:2605.00008", model=SETTINGS.model_key, content_hash="8" * 64,
                         state="embedded", vector=np.array([1.0, 0.0, 0.0]), updated_at=now)  # fmt: skip
    collection = scratch_db[PAPER_VECTORS.name]
    await collection.insert_many([*old, failed.document(), binary.document()])
    store = VectorStore(scratch_db)

    before = await store.of_papers([d["_id"] for d in old])
    for doc, v in zip(old, values, strict=True):
        assert same(before[doc["_id"]].vector, np.array(v, dtype=np.float32))
        assert same(vector_of(doc, SETTINGS.model_key), np.array(v, dtype=np.float32))

    assert await convert_vectors_to_float32(scratch_db) == 2
    assert await convert_vectors_to_float32(scratch_db) == 0  # done: nothing left to convert

    for doc, v in zip(old, values, strict=True):
        raw = await collection.find_one({"_id": doc["_id"]})
        assert raw is not None and isinstance(raw["vector"], Binary) and raw["vector"].subtype == VECTOR_SUBTYPE
        assert same(vector_of(raw, SETTINGS.model_key), np.array(v, dtype=np.float32))
        assert {k: raw[k] for k in raw if k != "vector"} == {k: doc[k] for k in doc if k != "vector"}
    assert await collection.find_one({"_id": failed.paper_id}) == failed.document()
    assert same((await store.of_papers([binary.paper_id]))[binary.paper_id].vector, binary.vector)


class Counted:
    """The real local model, and every text it was given (one sweep's model call per kind of vector)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder, self.model_key, self.dimensions = embedder, embedder.model_key, embedder.dimensions
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str], role: Any = "passage") -> Any:
        self.texts += texts
        return await self.embedder.embed(texts, role=role)

    async def close(self) -> None:
        pass


def distinct_papers(count: int) -> list[dict[str, Any]]:
    """Corpus papers under new ids, each title marked, so that no two share a text (the cache would spare a run)."""
    return [
        LINES[n % len(LINES)] | {"id": f"2605.95{n:03d}", "title": f"{LINES[n % len(LINES)]['title']} ({n})"}
        for n in range(count)
    ]


async def drain(harness: Harness, batch: int) -> None:
    while await harness.sweep(batch):
        pass


async def test_two_replicas_sweeps_embed_each_waiting_paper_once(scratch_db: AsyncDatabase, embedder: Embedder) -> None:
    """Two summarizer replicas (KEDA scales them) sweep one `embedding_pending`: each claims its own batches."""
    model = Counted(embedder)
    first, second = Harness(scratch_db, model), Harness(scratch_db, model)  # type: ignore[arg-type]
    await first.store.ensure_indexes()
    held = await first.handle(*distinct_papers(12))
    assert await first.store.backlog() == 12

    await asyncio.gather(drain(first, 3), drain(second, 3))

    assert sorted(model.texts) == sorted(set(model.texts)) and len(model.texts) == 12  # each paper's text once
    emitted = [e.paper.id for e in first.emitted + second.emitted]
    assert sorted(emitted) == sorted(e.paper.id for e in held)
    assert await first.store.backlog() == 0


async def test_papers_claimed_by_a_sweep_that_died_are_swept_again_once_the_claim_runs_out(
    scratch_db: AsyncDatabase, embedder: Embedder
) -> None:
    now = datetime(2026, 12, 7, 9, tzinfo=UTC)

    def clock() -> datetime:
        return now

    survivor = Harness(scratch_db, embedder, clock=clock)
    await survivor.store.ensure_indexes()
    held = await survivor.handle(*distinct_papers(4))
    # another replica's sweep claimed three of them and died (never released them)
    died = await VectorStore(scratch_db, clock=clock).claim("replica-b:1:dead", 3, survivor.vectors.claim)
    assert len(died) == 3

    assert await survivor.sweep() == 1  # the one nobody claimed
    now += survivor.vectors.claim - timedelta(seconds=1)
    assert await survivor.sweep() == 0  # still claimed
    now += timedelta(seconds=2)
    assert await survivor.sweep() == 3  # the claim ran out: taken again

    assert sorted(e.paper.id for e in survivor.emitted) == sorted(e.paper.id for e in held)
    assert await survivor.store.backlog() == 0


async def test_a_paper_announced_again_keeps_its_first_time(scratch_db: AsyncDatabase) -> None:
    """papers_announced is written as one insert per batch; a redelivered batch's papers keep when they were first
    announced, and the new ones among them are recorded."""
    announced = NewPapersPublished(scratch_db)
    first, later = datetime(2026, 12, 7, 9, tzinfo=UTC), datetime(2026, 12, 7, 10, tzinfo=UTC)
    await announced.record(["arxiv:2605.00001"], now=first)
    await announced.record(["arxiv:2605.00001", "arxiv:2605.00002"], now=later)
    at = {d["_id"]: d["at"] async for d in scratch_db["papers_announced"].find({})}
    assert at == {"arxiv:2605.00001": first, "arxiv:2605.00002": later}
    assert await announced.not_announced(["arxiv:2605.00001", "arxiv:2605.00003"]) == {"arxiv:2605.00003"}
