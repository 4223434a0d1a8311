"""The matcher's app on FastStream's in-memory broker, no servers: follows.changed.v1 keeps the follow index in step,
a follow that does not compile is parked on follows.changed.v1.dlq, and papers no follow wants are matched without
a write or an announcement. (Recording, announcing, backfills and webhooks run against real servers:
tests/integration/test_matcher.py, test_delivery.py.)"""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage
from meilisearch_python_sdk import AsyncClient
from prometheus_client import REGISTRY
from pymongo import AsyncMongoClient

from papertrail.runtime.kafka import dead_letter_topic
from papertrail.runtime.service import Clients, provide
from schemas import topics
from schemas.events import FollowChanged
from services.matcher.app import MatcherResources, build_resources, create_app
from services.matcher.settings import MatcherSettings
from tests.support.events import enriched
from tests.support.kafka import broker_of
from tests.support.matching import PAPERS, follow
from tests.support.servers import free_port


@dataclass
class Seen:
    matched: list[Any] = field(default_factory=list)
    parked: list[Any] = field(default_factory=list)


@pytest.fixture
async def memory() -> AsyncIterator[tuple[Any, MatcherResources, Seen]]:
    """The app's broker in memory, its resources over MongoDB and Meilisearch addresses where nothing listens (a
    handler that touched either would fail), and what reached follows.matched.v1 and follows.changed.v1.dlq."""
    settings = MatcherSettings(
        mongodb_url=f"mongodb://127.0.0.1:{free_port()}", meili_url=f"http://127.0.0.1:{free_port()}"
    )
    broker = broker_of(create_app(settings))
    seen = Seen()
    broker.subscriber(topics.FOLLOWS_MATCHED)(lambda body: seen.matched.append(body))

    @broker.subscriber(dead_letter_topic(topics.FOLLOWS_CHANGED))
    async def parked(message: KafkaMessage) -> None:
        seen.parked.append(message)

    mongo: AsyncMongoClient = AsyncMongoClient(settings.mongodb_url, serverSelectionTimeoutMS=300)
    search = AsyncClient(settings.meili_url, "key", timeout=1)
    resources = build_resources(settings, Clients(mongo["unused"], search), broker)  # the lifespan's wiring
    try:
        async with TestKafkaBroker(broker) as in_memory:
            provide(in_memory.context, resources)
            yield in_memory, resources, seen
    finally:
        await resources.http.aclose()
        await search.aclose()
        await mongo.close()


def _changed(action: str, follow_id: str, query: str | None = None) -> FollowChanged:
    followed = follow(follow_id, query) if query else None
    return FollowChanged(
        action=action,
        follow_id=follow_id,
        user_id="someone",
        follow=followed,
        changed_at=datetime.now(UTC),  # type: ignore[arg-type]
    )


async def test_follow_changes_keep_the_index_in_step(memory: tuple[Any, MatcherResources, Seen]) -> None:
    broker, resources, seen = memory
    await broker.publish(_changed("updated", "f1", '"language model"'), topics.FOLLOWS_CHANGED)
    await broker.publish(_changed("updated", "f2", "retrieval"), topics.FOLLOWS_CHANGED)
    assert set(resources.follow_index.follows) == {"f1", "f2"}
    assert REGISTRY.get_sample_value("papertrail_matcher_follows", {"kind": "keyword"}) == 2
    forgotten: list[str] = []

    async def forget_follow(follow_id: str) -> int:  # the store's side: tests/integration/test_matcher.py
        forgotten.append(follow_id)
        return 0

    resources.store.matches.forget_follow = forget_follow  # type: ignore[method-assign]
    await broker.publish(_changed("deleted", "f1"), topics.FOLLOWS_CHANGED)
    assert set(resources.follow_index.follows) == {"f2"}
    assert forgotten == ["f1"]  # its matches go: a batch may have matched it since the reader unfollowed
    assert seen.parked == []


async def test_a_follow_that_does_not_compile_is_parked(memory: tuple[Any, MatcherResources, Seen]) -> None:
    broker, resources, seen = memory
    await broker.publish(_changed("updated", "f3", "NOT survey"), topics.FOLLOWS_CHANGED)
    assert "f3" not in resources.follow_index.follows
    assert len(seen.parked) == 1 and "contain none of its terms" in seen.parked[0].headers["x-dlq-reason"]


async def test_papers_no_follow_wants_are_matched_without_a_write(memory: tuple[Any, MatcherResources, Seen]) -> None:
    broker, _, seen = memory
    await broker.publish(_changed("updated", "f4", '"no paper says this phrase"'), topics.FOLLOWS_CHANGED)
    before = REGISTRY.get_sample_value("papertrail_matcher_papers_total") or 0
    papers = [enriched(paper) for paper in list(PAPERS.values())[:5]]
    await broker.publish_batch(*papers, topic=topics.PAPERS_ENRICHED)
    assert REGISTRY.get_sample_value("papertrail_matcher_papers_total") == before + len(papers)
    assert seen.matched == []
