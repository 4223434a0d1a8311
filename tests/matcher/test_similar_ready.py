"""A similar follow whose seeds get their vectors is backfilled, whoever read those vectors first, over real MongoDB.

The race a fresh clone's CI run showed (tests/integration/test_similar_follows.py, one run in three): a new paper
embedded in an earlier batch than the seeds meets the follow with nothing to compare, so only the follow's backfill
can match it. Another follow's backfill refreshes the seed vectors too; when it was that refresh which found the
seeds, the next batch saw nothing new and the follow was never backfilled."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from faststream.kafka import TestKafkaBroker
from meilisearch_python_sdk import AsyncClient
from pymongo import AsyncMongoClient

from papertrail.embedding import EmbeddingSettings
from papertrail.service import Clients, provide
from schemas import topics
from schemas.events import Follow, FollowChanged, SeedPaper
from schemas.paper_vector import PaperVector
from services.matcher.app import MatcherResources, build_resources, create_app, similar_matches_of
from services.matcher.settings import MatcherSettings
from tests.conftest import Servers, broker_of, free_port, wait_until_async

pytestmark = pytest.mark.integration

SETTINGS = EmbeddingSettings()
SEEDS = ["arxiv:1306.5042", "arxiv:1311.5932"]


@pytest.fixture
async def matcher(servers: Servers) -> AsyncIterator[tuple[Any, MatcherResources]]:
    """The matcher's wiring over real MongoDB, its broker in memory; Meilisearch at an address where nothing listens,
    so a backfill that starts claims its follow in MongoDB and then fails (what this test looks for is the claim)."""
    env = servers.environment()
    settings = MatcherSettings(mongodb_url=servers.mongodb_url, meili_url=f"http://127.0.0.1:{free_port()}")
    broker = broker_of(create_app(settings))
    mongo: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    search = AsyncClient(settings.meili_url, "key", timeout=1)
    resources = build_resources(settings, Clients(mongo[env["MONGODB_DATABASE"]], search), broker)
    try:
        async with TestKafkaBroker(broker) as in_memory:
            provide(in_memory.context, resources)
            yield in_memory, resources
    finally:
        await resources.backfills.stop()
        await resources.http.aclose()
        await search.aclose()
        await mongo.close()


def _similar(follow_id: str) -> Follow:
    seeds = [SeedPaper(paper_id=seed, title=f"seed {seed}") for seed in SEEDS]
    return Follow(
        id=follow_id, user_id="ana", kind="similar", name="spreading", seeds=seeds, created_at=datetime.now(UTC)
    )


async def _give_vectors(resources: MatcherResources) -> None:
    vectors = np.random.default_rng(7).standard_normal((len(SEEDS), SETTINGS.embedding_dimensions)).astype(np.float32)
    for seed, vector in zip(SEEDS, vectors, strict=True):
        stored = PaperVector(
            paper_id=seed,
            model=SETTINGS.model_key,
            content_hash="0" * 64,
            state="embedded",
            vector=vector,
            updated_at=datetime.now(UTC),
        )
        await resources.store.vectors.replace_one({"_id": seed}, stored.model_dump(), upsert=True)


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
    assert await resources.store.backfills.find_one({"_id": like.id}) is None

    await _give_vectors(resources)
    await resources.similar.refresh()  # what another follow's backfill does before it scores (Backfiller.run_similar)
    assert resources.similar.ready(like.id)

    await similar_matches_of(resources, [], datetime.now(UTC))  # the next batch of embedded papers
    claimed = await wait_until_async(
        lambda: resources.store.backfills.find_one({"_id": like.id}), within=30, what="the follow's backfill"
    )
    assert claimed is not None
    assert resources.similar.became_ready() == []  # handed out once
