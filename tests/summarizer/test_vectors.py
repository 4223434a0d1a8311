"""Paper vectors in the summarizer, over a real MongoDB-protocol server and the real local model: a paper never waits
for its vector, the sweep embeds it and emits it again, the cache spares a model run, bad text ends `failed` or
embedded (never a crash), and stored papers without a vector of the model are queued."""

from collections.abc import AsyncIterator, Iterator
from typing import Any

import numpy as np
import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.collections import PAPER_VECTORS, PAPERS
from papertrail.embedders import open_embedder
from papertrail.embedding import Embedder, EmbeddingSettings
from papertrail.paper_vectors import vector_of
from schemas.events import PaperEnriched
from schemas.summary import Summary
from services.summarizer.policy import enriched_event
from services.summarizer.store import MongoTokenBudget, VectorStore
from services.summarizer.vectors import PaperVectors
from tests.fake_openai import corpus_event, corpus_lines

pytestmark = pytest.mark.integration

LINES = corpus_lines()
SETTINGS = EmbeddingSettings()
PENDING = Summary(status="pending", error="no model configured")


@pytest.fixture(scope="module")
def embedder() -> Iterator[Embedder]:
    yield open_embedder(SETTINGS)


class Harness:
    """PaperVectors over the test database, and what its sweep emitted."""

    def __init__(self, db: AsyncDatabase, embedder: Embedder) -> None:
        self.db = db
        self.store = VectorStore(db)
        self.vectors = PaperVectors(self.store, embedder)
        self.emitted: list[PaperEnriched] = []

    async def emit(self, event: PaperEnriched) -> None:
        self.emitted.append(event)

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
        vector = vector_of(stored[event.paper.id], SETTINGS.model_key)
        assert vector is not None and vector.shape == (384,)
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-4)
    assert await harness.store.backlog() == 0
    assert await harness.sweep() == 0  # nothing waits: nothing emitted again
    assert len(harness.emitted) == 2


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
    assert after[f"arxiv:{LINES[2]['id']}"]["vector"] == before[f"arxiv:{LINES[2]['id']}"]["vector"]
    assert after["arxiv:2605.99999"]["vector"] == before[f"arxiv:{LINES[2]['id']}"]["vector"]


async def test_a_changed_abstract_waits_for_a_new_vector(harness: Harness) -> None:
    (first,) = await harness.handle(LINES[3])
    await harness.sweep()
    embedded = (await harness.store.of_papers([first.paper.id]))[first.paper.id]
    (revised,) = await harness.handle(LINES[3] | {"summary": "We study diffusion models for weather forecasts."})
    assert revised.embedding is not None and revised.embedding.state == "pending"
    assert await harness.sweep() == 1
    stored = (await harness.store.of_papers([revised.paper.id]))[revised.paper.id]
    assert stored["state"] == "embedded" and stored["content_hash"] != embedded["content_hash"]
    assert stored["vector"] != embedded["vector"]


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
    assert stored["arxiv:2605.90001"]["state"] == "failed" and "nothing to embed" in stored["arxiv:2605.90001"]["error"]
    assert vector_of(stored["arxiv:2605.90002"], SETTINGS.model_key) is not None
    assert vector_of(stored["arxiv:2605.90003"], SETTINGS.model_key) is not None
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
    other_model = {"_id": old.paper.id, "model": "local/another/384/256", "state": "failed", "error": "x"}
    await harness.db[PAPER_VECTORS.name].insert_one(other_model)

    assert await harness.sweep() == 0  # queues it
    assert await harness.sweep() == 1  # embeds it

    (emitted,) = harness.emitted
    assert emitted.paper.id == old.paper.id and emitted.kind == "updated"
    assert emitted.embedding is not None and emitted.embedding.state == "embedded"
    assert await harness.sweep() == 0 and not harness.vectors.backfilling


async def test_the_endpoint_token_budget_is_shared_by_every_instance(scratch_db: AsyncDatabase) -> None:
    one, other = MongoTokenBudget(VectorStore(scratch_db)), MongoTokenBudget(VectorStore(scratch_db))
    await one.spend("2026-12-01", 1_000)
    await other.spend("2026-12-01", 500)
    await other.spend("2026-12-02", 7)
    assert await one.used("2026-12-01") == await other.used("2026-12-01") == 1_500
    assert await one.used("2026-12-02") == 7 and await one.used("2026-11-30") == 0
