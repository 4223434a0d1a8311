"""The normalizer's app on FastStream's in-memory broker, no servers: its handler parks records that do not parse on
harvest.raw.v1.dlq with the reason and original bytes, sets ACL front matter aside, and needs the database for
neither. One test gives the same wiring a real database: a PMLR volume with a broken entry, that entry parked and the
others stored. (The flows over real Kafka: test_dead_letters.py, tests/integration/.)"""

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage
from prometheus_client import REGISTRY
from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.names import make_author
from papertrail.runtime.kafka import dead_letter_topic
from papertrail.runtime.service import Clients, provide
from schemas import topics
from schemas.paper import PaperIds
from services.harvester.sources.arxiv_html_page import author_block
from services.harvester.sources.pmlr_bib import split_volume
from services.normalizer.app import build_resources, create_app
from services.normalizer.identity import merge
from services.normalizer.plan import Draft
from services.normalizer.records import ParsedRecord
from services.normalizer.settings import NormalizerSettings
from services.normalizer.store import PaperStore
from tests.support.kafka import broker_of
from tests.support.paths import FIXTURES, SOURCES
from tests.support.servers import free_port
from tests.support.sources import acl_records, raw_record

NOW = datetime(2026, 12, 7, tzinfo=UTC)


@dataclass
class Seen:
    normalized: list[Any] = field(default_factory=list)
    parked: list[Any] = field(default_factory=list)  # the dead letters' messages


@pytest.fixture
async def memory() -> AsyncIterator[tuple[Any, Seen]]:
    """The app's broker in memory, its resources over a MongoDB address where nothing listens (a handler that touched
    the database would fail), and what reached papers.normalized.v1 and harvest.raw.v1.dlq."""
    settings = NormalizerSettings(mongodb_url=f"mongodb://127.0.0.1:{free_port()}")
    client: AsyncMongoClient = AsyncMongoClient(settings.mongodb_url, serverSelectionTimeoutMS=300)
    try:
        async with in_memory(settings, client["unused"]) as running:
            yield running
    finally:
        await client.close()


@asynccontextmanager
async def in_memory(settings: NormalizerSettings, db: AsyncDatabase) -> AsyncIterator[tuple[Any, Seen]]:
    """The app's broker in memory over `db`, with the lifespan's wiring; what reached papers.normalized.v1 and
    harvest.raw.v1.dlq."""
    broker = broker_of(create_app(settings))
    seen = Seen()

    @broker.subscriber(topics.PAPERS_NORMALIZED)
    async def normalized(body: Any) -> None:
        seen.normalized.append(body)

    @broker.subscriber(dead_letter_topic(topics.HARVEST_RAW))
    async def parked(message: KafkaMessage) -> None:
        seen.parked.append(message)

    async with TestKafkaBroker(broker) as running:
        resources = build_resources(settings, Clients(db), broker)  # the lifespan's wiring
        provide(running.context, resources)
        yield running, seen


async def test_records_that_do_not_parse_are_parked_with_the_reason(memory: tuple[Any, Seen]) -> None:
    broker, seen = memory
    broken = raw_record("acl", "broken-1", "acl_xml", "<volume collection='2024.acl' id='long'><meta>")
    unknown = b'{"source": "gopher"}'
    await broker.publish_batch(broken, unknown, topic=topics.HARVEST_RAW)
    assert [m.body for m in seen.parked] == [broken.model_dump_json().encode(), unknown]  # the original bytes
    reasons = [m.headers["x-dlq-reason"] for m in seen.parked]
    assert "not XML" in reasons[0] and "ValidationError" in reasons[1]
    assert {m.headers["x-dlq-service"] for m in seen.parked} == {"normalizer"}
    assert seen.normalized == []


async def test_openreview_notes_that_are_no_acceptance_or_no_json_are_parked_with_the_reason(
    memory: tuple[Any, Seen],
) -> None:
    """The recorded accepted note turned into a rejected one (its venueid), and cut short: both parked."""
    [note] = json.loads((SOURCES / "openreview/pdoom-live_ai_risk_note.json").read_bytes())["notes"]
    note["content"]["venueid"]["value"] = "NeurIPS.cc/2025/Workshop/RegML/Rejected_Submission"
    rejected = raw_record("openreview", note["id"], "openreview_note", json.dumps(note))
    cut = raw_record("openreview", "cut", "openreview_note", json.dumps(note)[:120])
    broker, seen = memory
    await broker.publish_batch(rejected, cut, topic=topics.HARVEST_RAW)
    assert [m.body for m in seen.parked] == [rejected.model_dump_json().encode(), cut.model_dump_json().encode()]
    reasons = [m.headers["x-dlq-reason"] for m in seen.parked]
    assert "Rejected_Submission' is no acceptance" in reasons[0] and "not JSON" in reasons[1]
    assert seen.normalized == []


async def test_front_matter_is_set_aside_without_an_event_or_a_dead_letter(memory: tuple[Any, Seen]) -> None:
    broker, seen = memory
    front_matter = [r for r in acl_records() if r.record_id.endswith(".0")]
    before = REGISTRY.get_sample_value("papertrail_normalizer_records_set_aside_total", {"reason": "front_matter"}) or 0
    await broker.publish_batch(*front_matter, topic=topics.HARVEST_RAW)
    after = REGISTRY.get_sample_value("papertrail_normalizer_records_set_aside_total", {"reason": "front_matter"})
    assert after == before + len(front_matter)
    assert seen.parked == [] and seen.normalized == []


@pytest.mark.integration
async def test_a_pmlr_entry_with_broken_braces_is_parked_and_the_others_normalized(scratch_db: AsyncDatabase) -> None:
    """The recorded ICML 2025 volume with one title left without its closing brace, split as the harvester splits it:
    that entry on harvest.raw.v1.dlq with bibtexparser's reason and its original bytes, the others stored."""
    title = "title = {Lightweight Protocols for Distributed Private Quantile Estimation}"
    volume = (SOURCES / "pmlr/icml25-head.bib").read_text(encoding="utf-8")
    assert title in volume
    entries, _ = split_volume(volume.replace(title, title[:-1]))
    records = [raw_record("pmlr", e.record_id, e.format, e.content, e.datestamp) for e in entries]
    settings = NormalizerSettings(mongodb_url="mongodb://unused")  # the database is scratch_db's
    async with in_memory(settings, scratch_db) as (broker, seen):
        await broker.publish_batch(*records, topic=topics.HARVEST_RAW)
    [parked] = seen.parked
    broken = next(r for r in records if r.record_id == "v267/aamand25a")
    assert parked.body == broken.model_dump_json().encode() and parked.headers["x-dlq-service"] == "normalizer"
    assert "BibTeX entry not readable" in parked.headers["x-dlq-reason"]
    assert len(seen.normalized) == len(records) - 1 == 20
    stored = {doc["ids"]["pmlr"] async for doc in scratch_db.papers.find({}, {"ids.pmlr": 1})}
    assert stored == {r.record_id for r in records} - {"v267/aamand25a"}


@pytest.mark.integration
async def test_a_first_page_completes_the_stored_paper_after_it_and_waits_for_none(scratch_db: AsyncDatabase) -> None:
    """A genuine arXiv page's author block on harvest.raw.v1 (tests/fixtures/first_page): the arXiv paper stored
    before it gets its authors' affiliations in an `updated` event; a page whose paper is not held starts no paper,
    parks nothing and is counted."""
    page = (FIXTURES / "first_page" / "2312.17141v1.authors.html").read_bytes()
    first_page = raw_record("arxiv_html", "2312.17141", "arxiv_html_authors", author_block(page))
    orphan = raw_record("arxiv_html", "2609.03768", "arxiv_html_authors", author_block(page))
    record = ParsedRecord(
        source="arxiv",
        record_id="2312.17141",
        ids=PaperIds(arxiv="2312.17141"),
        title="Probabilistic Programming with Exact Conditions",
        abstract="We spell out the paradigm of exact conditioning.",
        authors=[make_author("Dario Stein"), make_author("Sam Staton")],
    )
    start = merge(None, record, content_hash="arxiv", now=NOW, ai_categories=frozenset(), next_seq=1)
    assert start is not None
    held = Draft(None, start.paper, [], 1, versions=[start.version])
    assert await PaperStore(scratch_db).save([held]) == set()
    reason = {"reason": "first_page_before_paper"}
    before = REGISTRY.get_sample_value("papertrail_normalizer_records_set_aside_total", reason) or 0
    settings = NormalizerSettings(mongodb_url="mongodb://unused")  # the database is scratch_db's
    async with in_memory(settings, scratch_db) as (broker, seen):
        await broker.publish_batch(first_page, orphan, topic=topics.HARVEST_RAW)
    assert seen.parked == [] and len(seen.normalized) == 1
    assert seen.normalized[0]["kind"] == "updated"
    stored = await scratch_db.papers.find_one({"_id": start.paper.id})
    assert stored is not None
    assert [a["affiliations"][0].split(",")[0] for a in stored["authors"]] == [
        "Radboud University Nijmegen",
        "University of Oxford",
    ]
    assert await scratch_db.papers.count_documents({}) == 1
    assert REGISTRY.get_sample_value("papertrail_normalizer_records_set_aside_total", reason) == before + 1
