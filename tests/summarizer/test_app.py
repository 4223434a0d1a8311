"""The summarizer's app on FastStream's in-memory broker with the resources its lifespan builds and prepares
(`build_resources`, `prepare`, over a real MongoDB-protocol server): events that break the schema are parked on
papers.normalized.v1.dlq with the reason and original bytes, and nothing is passed on for them; the resources record
the embedding model the vectors are made with; a new paper passes on to papers.enriched.v1 and the public
papers.new.v1, a revision to the first only. (The same against real Kafka, with a model endpoint:
test_summarizing.py, test_public_topic.py.)"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.embedding.paper_vectors import VECTORS_MODEL_ID
from papertrail.runtime.collections import EMBEDDING_MODEL
from papertrail.runtime.kafka import dead_letter_topic
from papertrail.runtime.service import Clients, provide
from schemas import topics
from services.summarizer.app import SummarizerResources, build_resources, close, create_app, prepare
from services.summarizer.settings import SummarizerSettings
from tests.support.fake_openai import corpus_event, corpus_lines, running_fake_openai
from tests.support.kafka import broker_of

pytestmark = pytest.mark.integration

SETTINGS = SummarizerSettings()  # no summary model configured: summaries are pending


@asynccontextmanager
async def app_in_memory(
    settings: SummarizerSettings, db: AsyncDatabase
) -> AsyncIterator[tuple[Any, dict[str, list[Any]], SummarizerResources]]:
    """The app's broker in memory with the resources its lifespan builds, what reached its outputs, and the
    resources."""
    broker = broker_of(create_app(settings))
    seen: dict[str, list[Any]] = {topics.PAPERS_ENRICHED: [], topics.PAPERS_NEW: [], "parked": []}
    broker.subscriber(topics.PAPERS_ENRICHED)(lambda body: seen[topics.PAPERS_ENRICHED].append(body))
    broker.subscriber(topics.PAPERS_NEW)(lambda body: seen[topics.PAPERS_NEW].append(body))

    @broker.subscriber(dead_letter_topic(topics.PAPERS_NORMALIZED))
    async def parked(message: KafkaMessage) -> None:
        seen["parked"].append(message)

    async with TestKafkaBroker(broker) as in_memory:
        resources = build_resources(settings, Clients(db), broker)
        try:
            await prepare(resources)
            provide(in_memory.context, resources)
            yield in_memory, seen, resources
        finally:
            await close(resources)


@pytest.fixture
async def memory(scratch_db: AsyncDatabase) -> AsyncIterator[tuple[Any, dict[str, list[Any]]]]:
    async with app_in_memory(SETTINGS, scratch_db) as (in_memory, seen, _):
        yield in_memory, seen


async def test_events_that_break_the_schema_are_parked_and_passed_on_nowhere(memory: tuple[Any, Any]) -> None:
    broker, seen = memory
    await broker.publish_batch(b'{"paper": {"id": 1}}', b"not json", topic=topics.PAPERS_NORMALIZED)
    assert [m.body for m in seen["parked"]] == [b'{"paper": {"id": 1}}', b"not json"]
    assert all("ValidationError" in m.headers["x-dlq-reason"] for m in seen["parked"])
    assert {m.headers["x-dlq-service"] for m in seen["parked"]} == {"summarizer"}
    assert seen[topics.PAPERS_ENRICHED] == [] and seen[topics.PAPERS_NEW] == []


async def test_the_resources_record_the_model_the_vectors_are_made_with(
    memory: tuple[Any, Any], scratch_db: AsyncDatabase
) -> None:
    recorded = await scratch_db[EMBEDDING_MODEL.name].find_one({"_id": VECTORS_MODEL_ID})
    assert recorded is not None and recorded["model"] == SETTINGS.model_key


async def test_a_new_paper_passes_on_to_both_topics_and_a_revision_to_the_enriched_one_only(
    memory: tuple[Any, Any],
) -> None:
    broker, seen = memory
    line = corpus_lines()[0]
    new, revised = corpus_event(line), corpus_event(line, "revised", comments="v2: camera-ready")
    await broker.publish_batch(new.model_dump(mode="json"), topic=topics.PAPERS_NORMALIZED)
    await broker.publish_batch(revised.model_dump(mode="json"), topic=topics.PAPERS_NORMALIZED)
    enriched = seen[topics.PAPERS_ENRICHED]
    assert [(m["kind"], m["paper"]["id"], m["summary"]["status"]) for m in enriched] == [
        ("new", new.paper.id, "pending"),
        ("revised", new.paper.id, "pending"),
    ]
    assert [(m["paper"]["id"], m["summary"]["status"]) for m in seen[topics.PAPERS_NEW]] == [(new.paper.id, "pending")]
    assert seen["parked"] == []


async def test_a_new_paper_delivered_again_is_announced_on_the_public_topic_once(memory: tuple[Any, Any]) -> None:
    # Kafka delivers at least once: a batch whose offsets were not committed (a rebalance, a restart) comes again
    broker, seen = memory
    new = corpus_event(corpus_lines()[0])
    await broker.publish_batch(new.model_dump(mode="json"), topic=topics.PAPERS_NORMALIZED)
    await broker.publish_batch(new.model_dump(mode="json"), topic=topics.PAPERS_NORMALIZED)
    assert [m["paper"]["id"] for m in seen[topics.PAPERS_NEW]] == [new.paper.id]
    assert [m["kind"] for m in seen[topics.PAPERS_ENRICHED]] == ["new", "new"]  # the internal topic may repeat


async def test_with_a_title_model_a_waiting_paper_is_passed_on_again_with_its_chinese_title(
    scratch_db: AsyncDatabase,
) -> None:
    cadfit = next(line for line in corpus_lines() if line["id"] == "2605.01171")
    with running_fake_openai() as (fake, url):
        settings = SummarizerSettings(titles_base_url=url, titles_model="fake-qwen")  # type: ignore[call-arg]
        async with app_in_memory(settings, scratch_db) as (broker, seen, resources):
            new = corpus_event(cadfit)
            await broker.publish_batch(new.model_dump(mode="json"), topic=topics.PAPERS_NORMALIZED)
            assert [m["summary"].get("title_zh") for m in seen[topics.PAPERS_ENRICHED]] == [None]  # not held up
            assert fake.requests == []
            title_sweep = resources.sweeps.titles
            assert title_sweep is not None  # wired: no summary endpoint, a title model
            assert await title_sweep.sweep(resources.sweeps.emit_summarized, 10) == (1, True)
    again = seen[topics.PAPERS_ENRICHED][-1]
    assert (again["kind"], again["paper"]["id"], again["summary"]["status"]) == ("new", new.paper.id, "pending")
    assert again["summary"]["title_zh"] == "CADFit：基于混合优化的精确网格到CAD程序生成"
    assert again["summary"]["title_model"] == "fake-qwen"
    assert [m["paper"]["id"] for m in seen[topics.PAPERS_NEW]] == [new.paper.id]  # announced once, as before
