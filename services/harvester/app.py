"""Harvester service: on each source's schedule, fetch → harvest.raw.v1 → checkpoint → harvest.status.v1."""

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated

import httpx
from faststream import Context
from faststream.asgi import AsgiFastStream

from papertrail.runtime.kafka import StaticMembershipBroker, make_broker
from papertrail.runtime.service import Clients, service_app
from schemas import topics
from services.harvester.announced import AnnouncedPapers, LedgeredPublishing
from services.harvester.citation_queue import CitationQueue
from services.harvester.first_pages import FirstPageQueue, QueueingPublishing
from services.harvester.publishers import HarvestPublishers
from services.harvester.runner import Publishing, init_metrics, restore_freshness
from services.harvester.scheduler import build_sources, make_http_client, run_forever, watch_announcements
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import arxiv_feed
from services.harvester.store import HarvestStore, VenueCatalogueStore

SERVICE = "harvester"
NEEDS = ("kafka", "mongodb")  # checked before the service starts serving
TOPICS = [topics.HARVEST_RAW, topics.HARVEST_STATUS]


@dataclass(slots=True)
class HarvesterResources:
    """What the schedules work with, opened by the lifespan; `schedules` are the running sources' loops."""

    settings: HarvesterSettings
    store: HarvestStore
    http: httpx.AsyncClient
    publishers: HarvestPublishers
    announced: AnnouncedPapers
    first_pages: FirstPageQueue
    citations: CitationQueue
    venue_catalogue: VenueCatalogueStore
    schedules: list[asyncio.Task[None]] = field(default_factory=list)


Resources = Annotated[HarvesterResources, Context()]  # what every handler takes, from the lifespan


async def start_schedules(resources: Resources) -> None:
    """Once the broker is connected, run every configured source on its own interval."""
    settings, store = resources.settings, resources.store
    publishers: Publishing = resources.publishers
    if "arxiv_feed" in settings.sources:  # announced ids are kept until their OAI-PMH record comes
        publishers = LedgeredPublishing(
            publishers, resources.announced, dt.timedelta(seconds=settings.arxiv_feed_gap_s)
        )
    if "arxiv_html" in settings.sources:  # each arXiv paper published queues its first page
        publishers = QueueingPublishing(publishers, resources.first_pages)
    init_metrics(settings.sources)
    arxiv_feed.init_metrics(settings.arxiv_feed_categories if "arxiv_feed" in settings.sources else [])
    built = build_sources(
        settings.sources,
        settings,
        resources.http,
        resources.first_pages,
        citations=resources.citations,
        venue_catalogue=resources.venue_catalogue,
    )
    await restore_freshness(store, {name: interval for name, (_, interval) in built.items()})
    for name, (source, interval) in built.items():
        if isinstance(source, arxiv_feed.ArxivAnnouncementSource):  # on arXiv's announcement schedule
            schedule = watch_announcements(source, store, publishers, settings.lease_ttl_s)
        else:
            schedule = run_forever(source, interval, store, publishers, settings.lease_ttl_s)
        resources.schedules.append(asyncio.create_task(schedule, name=f"harvest-{name}"))


async def stop_schedules(resources: Resources) -> None:
    for task in resources.schedules:
        task.cancel()
    await asyncio.gather(*resources.schedules, return_exceptions=True)


def build_resources(
    settings: HarvesterSettings, clients: Clients, broker: StaticMembershipBroker
) -> HarvesterResources:
    """What the schedules work with, over the clients and the publishers create_app declared on the broker: the
    lifespan's and the tests' one wiring (nothing is read or written here; the HTTP client is the caller's to
    close)."""
    publishers = HarvestPublishers(
        broker.declared_publisher(topics.HARVEST_RAW), broker.declared_publisher(topics.HARVEST_STATUS)
    )
    return HarvesterResources(
        settings,
        HarvestStore(clients.db),
        make_http_client(settings),
        publishers,
        AnnouncedPapers(clients.db),
        FirstPageQueue(clients.db),
        CitationQueue(clients.db),
        VenueCatalogueStore(clients.db),
    )


def create_app(settings: HarvesterSettings) -> AsgiFastStream:
    """The harvester's broker and publishers, the lifespan that opens what its schedules work with, and the hooks
    that start and stop them."""
    broker = make_broker(settings, SERVICE)
    HarvestPublishers.declare(broker)

    @asynccontextmanager
    async def open_harvester(clients: Clients) -> AsyncIterator[HarvesterResources]:
        resources = build_resources(settings, clients, broker)
        try:
            await resources.store.ensure_indexes()
            await resources.announced.ensure_indexes()
            await resources.first_pages.ensure_indexes()
            await resources.citations.ensure_indexes()
            yield resources
        finally:
            await resources.http.aclose()

    app = service_app(settings, SERVICE, broker, open_harvester, topics=TOPICS, needs=NEEDS)
    app.after_startup(start_schedules)
    app.on_shutdown(stop_schedules)
    return app
