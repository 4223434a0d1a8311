"""A similar follow whose seeds get their vectors is backfilled, whoever read those vectors first, and backfilled again
when another seed gets its vector, over real MongoDB (and Meilisearch for the backfill that matches).

The races fresh clones' CI runs showed (tests/integration/test_similar_follows.py):
- a new paper embedded in an earlier batch than the seeds meets the follow with nothing to compare, so only the
  follow's backfill can match it. Another follow's backfill refreshes the seed vectors too; when it was that refresh
  which found the seeds, the next batch saw nothing new and the follow was never backfilled.
- the seeds got their vectors in different batches: the follow was backfilled, and the new paper scored, by the first
  seed alone, which the paper is not like; when the seed it is like got its vector, nothing scored the paper again.
"""

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from faststream.kafka import TestKafkaBroker
from meilisearch_python_sdk import AsyncClient
from meilisearch_python_sdk.models.settings import MeilisearchSettings
from pymongo import AsyncMongoClient

from papertrail.domain.search_document import FILTERABLE, SEARCHABLE, SORTABLE, paper_document
from papertrail.embedding.embedder import EmbeddingSettings
from papertrail.embedding.similarity import DEFAULT_THRESHOLD
from papertrail.runtime.service import Clients, provide
from schemas import topics
from schemas.events import Follow, FollowChanged, SeedPaper
from schemas.paper_vector import PaperVector
from services.matcher.app import MatcherResources, build_resources, create_app, similar_matches_of
from services.matcher.settings import MatcherSettings
from tests.support.corpus import sample_papers
from tests.support.events import enriched
from tests.support.kafka import broker_of
from tests.support.servers import Servers, free_port
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.integration

SETTINGS = EmbeddingSettings()
SEEDS = ["arxiv:1306.5042", "arxiv:1311.5932"]
PAPERS = sample_papers()
INDEXED = sorted(PAPERS)[:3]  # two seeds and a paper the test makes like the second seed only


@pytest.fixture
async def matcher(servers: Servers) -> AsyncIterator[tuple[Any, MatcherResources]]:
    """The matcher's wiring over real MongoDB, its broker in memory; Meilisearch at an address where nothing listens,
    so a backfill that starts claims its follow in MongoDB and then fails (what this test looks for is the claim)."""
    settings = MatcherSettings(mongodb_url=servers.mongodb_url, meili_url=f"http://127.0.0.1:{free_port()}")
    search = AsyncClient(settings.meili_url, "key", timeout=1)
    try:
        async for wired in _wired(servers, settings, search):
            yield wired
    finally:
        await search.aclose()


@pytest.fixture
async def matcher_over_index(servers: Servers) -> AsyncIterator[tuple[Any, MatcherResources]]:
    """The same wiring over the real Meilisearch, with an index of its own holding the papers of INDEXED."""
    settings = MatcherSettings(
        mongodb_url=servers.mongodb_url,
        meili_url=servers.meili_url,
        meili_master_key=servers.meili_master_key,
        index_name=f"papers_similar_{uuid.uuid4().hex[:8]}",
    )
    search = AsyncClient(servers.meili_url, servers.meili_master_key)
    indexed = MeilisearchSettings(
        searchable_attributes=SEARCHABLE, filterable_attributes=FILTERABLE, sortable_attributes=SORTABLE
    )
    await search.create_index(settings.index_name, primary_key="id", settings=indexed, timeout_in_ms=60_000)
    documents = [paper_document(enriched(PAPERS[paper_id]), {}) for paper_id in INDEXED]
    task = await search.index(settings.index_name).add_documents(documents, primary_key="id")
    await search.wait_for_task(task.task_uid, timeout_in_ms=60_000)
    try:
        async for wired in _wired(servers, settings, search):
            yield wired
    finally:
        await search.index(settings.index_name).delete()
        await search.aclose()


async def _wired(
    servers: Servers, settings: MatcherSettings, search: AsyncClient
) -> AsyncIterator[tuple[Any, MatcherResources]]:
    env = servers.environment()
    broker = broker_of(create_app(settings))
    mongo: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    resources = build_resources(settings, Clients(mongo[env["MONGODB_DATABASE"]], search), broker)
    try:
        async with TestKafkaBroker(broker) as in_memory:
            provide(in_memory.context, resources)
            yield in_memory, resources
    finally:
        await resources.backfills.stop()
        await resources.http.aclose()
        await mongo.close()


def _similar(follow_id: str, seeds_of: list[str] = SEEDS) -> Follow:
    seeds = [SeedPaper(paper_id=seed, title=f"seed {seed}") for seed in seeds_of]
    return Follow(
        id=f"{follow_id}-{uuid.uuid4().hex[:8]}",
        user_id="ana",
        kind="similar",
        name="spreading",
        seeds=seeds,
        threshold=DEFAULT_THRESHOLD,  # as the API stores it
        created_at=datetime.now(UTC),
    )


async def _give_vectors(resources: MatcherResources, vectors_of: dict[str, np.ndarray] | None = None) -> None:
    if vectors_of is None:
        made = np.random.default_rng(7).standard_normal((len(SEEDS), SETTINGS.embedding_dimensions))
        vectors_of = dict(zip(SEEDS, made.astype(np.float32), strict=True))
    for paper_id, vector in vectors_of.items():
        stored = PaperVector(
            paper_id=paper_id,
            model=SETTINGS.model_key,
            content_hash="0" * 64,
            state="embedded",
            vector=vector,
            updated_at=datetime.now(UTC),
        )
        await resources.store.reads.vectors.replace_one({"_id": paper_id}, stored.model_dump(), upsert=True)


async def test_a_follow_whose_seeds_another_refresh_found_is_still_backfilled(
    matcher: tuple[Any, MatcherResources],
) -> None:
    broker, resources = matcher
    like = _similar("like-spreading")
    changed = FollowChanged(
        action="created", follow_id=like.id, user_id="ana", follow=like, changed_at=datetime.now(UTC)
    )
    await broker.publish(changed, topics.FOLLOWS_CHANGED)
    assert not resources.similar.ready(like.id)  # no seed has a vector: no backfill yet
    assert await resources.store.backfills.backfills.find_one({"_id": like.id}) is None

    await _give_vectors(resources)
    await resources.similar.refresh()  # what another follow's backfill does before it claims (Backfiller.vectors_of)
    assert resources.similar.ready(like.id)

    await similar_matches_of(resources, [], datetime.now(UTC))  # the next batch of embedded papers
    claimed = await wait_until_async(
        lambda: resources.store.backfills.backfills.find_one({"_id": like.id}), within=30, what="the follow's backfill"
    )
    assert claimed is not None
    assert resources.similar.gained_vectors() == []  # handed out once


def _axis(i: int) -> np.ndarray:
    vector = np.zeros(SETTINGS.embedding_dimensions, dtype=np.float32)
    vector[i] = 1.0
    return vector


async def test_a_follow_is_backfilled_again_when_another_seed_gets_its_vector(
    matcher_over_index: tuple[Any, MatcherResources],
) -> None:
    broker, resources = matcher_over_index
    first, second, paper = INDEXED
    like = _similar("like-the-second", [first, second])
    changed = FollowChanged(
        action="created", follow_id=like.id, user_id="ana", follow=like, changed_at=datetime.now(UTC)
    )
    await _give_vectors(resources, {first: _axis(0), paper: _axis(1)})  # the paper is nothing like the first seed
    await broker.publish(changed, topics.FOLLOWS_CHANGED)

    def backfill(state: str, vectors: int) -> Any:
        return resources.store.backfills.backfills.find_one({"_id": like.id, "state": state, "vectors": vectors})

    assert await wait_until_async(lambda: backfill("done", 1), within=30, what="the backfill by the first seed")
    assert await resources.store.matches.matches.count_documents({"follow_id": like.id}) == 0

    await _give_vectors(resources, {second: _axis(1)})  # the seed the paper is like
    await similar_matches_of(resources, [], datetime.now(UTC))  # the next batch of embedded papers
    assert await wait_until_async(lambda: backfill("done", 2), within=30, what="the backfill by both seeds")
    matched = await resources.store.matches.matches.find_one({"follow_id": like.id, "paper_id": paper})
    assert matched is not None and matched["reasons"][0]["seed_id"] == second

    # a restart with nothing new leaves the follow as it is: its backfill had every vector it has
    assert not await resources.store.backfills.claim_backfill(
        like.id, datetime.now(UTC), resources.backfills.stale_after, 2
    )
