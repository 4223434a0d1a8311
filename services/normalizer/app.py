"""Normalizer service: harvest.raw.v1 → parse → merge into the canonical paper → store → papers.normalized.v1;
papers that are none (ACL front matter) are set aside (those held from earlier releases are withdrawn by migration 2,
services/normalizer/migrations.py)."""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from faststream import Context
from faststream.asgi import AsgiFastStream
from faststream.kafka.annotations import KafkaMessage

from papertrail.domain.institutions.matching import shipped_matcher
from papertrail.runtime.kafka import (
    DeadLetterPolicy,
    Publisher,
    StaticMembershipBroker,
    batch_options,
    make_broker,
    publish_confirmed,
)
from papertrail.runtime.migrations import MigrationContext, MigrationRecord, publishing_on
from papertrail.runtime.service import Clients, service_app
from schemas import topics
from schemas.events import PaperNormalized, PaperWithdrawn
from services.normalizer.front_matter import REASON, set_aside_front_matter
from services.normalizer.metrics import SET_ASIDE
from services.normalizer.migrations import MIGRATIONS
from services.normalizer.normalize import apply_batch, settle
from services.normalizer.parsers.registry import parse_batch
from services.normalizer.settings import NormalizerSettings
from services.normalizer.stopwatch import Stopwatch
from services.normalizer.store import PaperStore

SERVICE = "normalizer"
NEEDS = ("kafka", "mongodb")  # checked before the service starts serving
TOPICS = [topics.HARVEST_RAW, topics.PAPERS_NORMALIZED, topics.PAPERS_WITHDRAWN]
log = logging.getLogger(f"papertrail.{SERVICE}")


@dataclass(frozen=True, slots=True)
class NormalizerResources:
    """What the handlers work with, opened by the lifespan."""

    settings: NormalizerSettings
    papers: PaperStore
    normalized: Publisher
    withdrawn: Publisher
    dead_letters: DeadLetterPolicy  # parks single records of a batch; the broker's middleware parks whole messages

    @property
    def ai_categories(self) -> frozenset[str]:
        return frozenset(self.settings.ai_categories)

    async def emit(self, events: list[PaperNormalized]) -> None:
        await publish_confirmed(self.normalized, [(event, event.paper.id) for event in events])

    async def announce(self, withdrawals: list[PaperWithdrawn]) -> None:
        await publish_confirmed(self.withdrawn, [(w, w.paper_id) for w in withdrawals])


Resources = Annotated[NormalizerResources, Context()]  # what every handler takes, from the lifespan


async def on_raw_records(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Turn a batch of raw records into changes of their canonical papers; offsets commit after the events.

    A record that does not parse (or breaks the schema) is parked on harvest.raw.v1.dlq and the rest go on.
    """
    papers, settings = resources.papers, resources.settings
    clock = Stopwatch()
    with clock("parse"):
        parsed, bad = parse_batch(message.raw_message)  # type: ignore[arg-type]
        items, front_matter = set_aside_front_matter(parsed)
    with clock("store"):
        applied = await apply_batch(
            items, papers, ai_categories=resources.ai_categories, attempts=settings.merge_retries
        )
    with clock("settle"):
        await settle(applied, papers, resources.emit)
    for consumer_record, error in bad:
        await resources.dead_letters.park(consumer_record, error)
    for item in applied.unplaced:
        await resources.dead_letters.park(item.origin, RuntimeError(f"{item.source_key}: the paper kept changing"))
    if front_matter:  # not a paper, not an error: counted, and named in the debug log
        SET_ASIDE.labels(REASON).inc(len(front_matter))
        log.debug("front matter set aside", extra={"records": [item.source_key for item in front_matter]})
    log.debug("batch handled", extra={"records": len(body), "events": len(applied.events), **clock.seconds})


def build_resources(
    settings: NormalizerSettings, clients: Clients, broker: StaticMembershipBroker
) -> NormalizerResources:
    """What the handlers work with, over the clients and the publishers create_app declared on the broker: the
    lifespan's and the tests' one wiring (nothing is read or written here)."""
    return NormalizerResources(
        settings,
        PaperStore(clients.db),
        broker.declared_publisher(topics.PAPERS_NORMALIZED),
        broker.declared_publisher(topics.PAPERS_WITHDRAWN),
        broker.dead_letters,
    )


def create_app(settings: NormalizerSettings) -> AsgiFastStream:
    """The normalizer's broker, publishers and handler, and the lifespan that opens what they work with."""
    broker = make_broker(settings, SERVICE)
    broker.publisher(
        topics.PAPERS_NORMALIZED,
        schema=PaperNormalized,
        description="canonical papers after a source record changed them",
    )
    broker.publisher(
        topics.PAPERS_WITHDRAWN,
        schema=PaperWithdrawn,
        description="papers removed from the store: not papers after all",
    )
    broker.subscriber(topics.HARVEST_RAW, **batch_options(SERVICE, settings.batch_size, settings.batch_wait_ms))(
        on_raw_records
    )

    @asynccontextmanager
    async def open_normalizer(clients: Clients) -> AsyncIterator[NormalizerResources]:
        resources = build_resources(settings, clients, broker)
        await resources.papers.ensure_indexes()
        # before any record is consumed: the papers' fingerprints must be the current scheme's (migrations.py)
        migrating = MigrationContext(clients.db, publishing_on(broker, settings))
        await MigrationRecord(clients.db).run_pending(MIGRATIONS, migrating)
        # the ROR catalogue read and indexed off the event loop, before the first affiliation needs it (seconds)
        await asyncio.to_thread(shipped_matcher)
        yield resources

    return service_app(settings, SERVICE, broker, open_normalizer, topics=TOPICS, needs=NEEDS)
