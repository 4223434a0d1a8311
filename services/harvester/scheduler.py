"""Which sources run and when: each on its own interval, never overlapping itself, failures isolated."""

import asyncio
import datetime as dt
import logging
from collections.abc import Coroutine
from typing import Any

import httpx

from services.harvester.announced import AnnouncedPapers
from services.harvester.citation_queue import CitationQueue
from services.harvester.first_pages import FirstPageQueue
from services.harvester.http import PoliteFetcher
from services.harvester.lease import LeaseHeld, source_lease
from services.harvester.runner import Publishing, run_source
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import Source
from services.harvester.sources.arxiv import ArxivIdsSource, ArxivRecordFetcher
from services.harvester.sources.arxiv_feed import ANNOUNCEMENT_GAP_S, ArxivAnnouncementSource
from services.harvester.sources.registry import SOURCES
from services.harvester.sources.spec import SourceParts, SourceSpec
from services.harvester.store import HarvestStore, VenueCatalogueStore

log = logging.getLogger("papertrail.harvester")

ERROR_PAUSE_S = 60.0  # after an unexpected error outside a run (database down), try again this soon


def make_http_client(settings: HarvesterSettings) -> httpx.AsyncClient:
    # one connection per client: arXiv asks for a single connection at a time
    return httpx.AsyncClient(
        timeout=settings.http_timeout_s,
        limits=httpx.Limits(max_connections=1),
        headers={"User-Agent": settings.user_agent},
        follow_redirects=True,
    )


def polite_fetcher(settings: HarvesterSettings, client: httpx.AsyncClient, min_interval_s: float) -> PoliteFetcher:
    return PoliteFetcher(
        client,
        min_interval_s=min_interval_s,
        retries=settings.http_retries,
        retry_after_max_s=settings.retry_after_max_s,
    )


def build_sources(
    names: list[str],
    settings: HarvesterSettings,
    client: httpx.AsyncClient,
    first_pages: FirstPageQueue | None = None,
    citations: CitationQueue | None = None,
    venue_catalogue: VenueCatalogueStore | None = None,
) -> dict[str, tuple[Source, float]]:
    """The source modules called `names` (sources/registry.py), each with its run interval in seconds
    (`arxiv_html` reads `first_pages`, `semantic_scholar` the `citations` queue, `ccf_deadlines` writes
    `venue_catalogue`)."""
    return build_registered(names, source_parts(settings, client, first_pages, citations, venue_catalogue))


def source_parts(
    settings: HarvesterSettings,
    client: httpx.AsyncClient,
    first_pages: FirstPageQueue | None = None,
    citations: CitationQueue | None = None,
    venue_catalogue: VenueCatalogueStore | None = None,
    announced: AnnouncedPapers | None = None,
) -> SourceParts:
    """What the sources are built from. arXiv gets one fetcher for the whole process: the arXiv source's
    ListRecords, the Hugging Face source's GetRecord of each pick and the HTML pages all go through it, so together
    they keep arXiv's one request per 3 s."""

    def fetcher(min_interval_s: float) -> PoliteFetcher:
        return polite_fetcher(settings, client, min_interval_s)

    arxiv = fetcher(settings.arxiv_min_request_interval_s)  # OAI-PMH, GetRecord and the announcement feeds
    return SourceParts(settings, fetcher, arxiv, first_pages, citations, venue_catalogue, announced)


def build_registered(names: list[str], parts: SourceParts) -> dict[str, tuple[Source, float]]:
    """The registered sources called `names`, built from `parts`, each with its run interval in seconds."""
    built: dict[str, tuple[Source, float]] = {}
    for name in names:
        spec = SOURCES.get(name)
        if spec is None:
            raise ValueError(f"unknown source {name!r} in SOURCES")
        built[name] = spec.build(parts), spec.interval_s(parts.settings)
    return built


def build_ids_source(arxiv_ids: list[str], settings: HarvesterSettings, client: httpx.AsyncClient) -> ArxivIdsSource:
    """Given arXiv papers fetched by hand, at arXiv's pace."""
    fetcher = polite_fetcher(settings, client, settings.arxiv_min_request_interval_s)
    return ArxivIdsSource(arxiv_ids, ArxivRecordFetcher(settings, fetcher))


def build_source(
    name: str,
    settings: HarvesterSettings,
    client: httpx.AsyncClient,
    first_pages: FirstPageQueue | None = None,
    citations: CitationQueue | None = None,
    venue_catalogue: VenueCatalogueStore | None = None,
) -> tuple[Source, float]:
    """The source module called `name` and its run interval in seconds (a manual run's one source)."""
    return build_sources([name], settings, client, first_pages, citations, venue_catalogue)[name]


async def run_once(
    source: Source, interval_s: float, store: HarvestStore, out: Publishing, lease_ttl_s: float
) -> float:
    """One scheduled turn: run the source under its lease; returns how long to wait before the next turn."""
    try:
        async with source_lease(store, source.name, lease_ttl_s):
            await run_source(source, store, out.publish_raw, out.publish_status, interval_s=interval_s)
    except LeaseHeld as held:
        log.info("skipping a scheduled run", extra={"source": source.name, "reason": str(held)})
        return min(interval_s, lease_ttl_s)  # look again soon after the other run ends
    except Exception:
        log.exception("scheduled run could not start or finish", extra={"source": source.name})
        return min(interval_s, ERROR_PAUSE_S)
    return interval_s


async def run_forever(
    source: Source, interval_s: float, store: HarvestStore, out: Publishing, lease_ttl_s: float
) -> None:
    """Run the source, wait its interval, repeat; one run at a time, a failure only delays the next run."""
    while True:
        wait_s = await run_once(source, interval_s, store, out, lease_ttl_s)
        await asyncio.sleep(wait_s)


def scheduled(
    spec: SourceSpec, source: Source, interval_s: float, store: HarvestStore, out: Publishing, lease_ttl_s: float
) -> Coroutine[Any, Any, None]:
    """The source's schedule as its registration says: on its interval, or once per arXiv announcement."""
    if spec.schedule == "announcements":
        if not isinstance(source, ArxivAnnouncementSource):
            raise TypeError(f"{spec.name} is scheduled by arXiv's announcements: its source must watch them")
        return watch_announcements(source, store, out, lease_ttl_s)
    return run_forever(source, interval_s, store, out, lease_ttl_s)


async def watch_announcements(
    source: ArxivAnnouncementSource, store: HarvestStore, out: Publishing, lease_ttl_s: float
) -> None:
    """Sleep until the next watch window opens, watch it (one run, under the source's lease), repeat. A run that
    failed (arXiv away) is tried again while its window is open; a window another instance holds is left to it."""
    watched: dt.datetime | None = None  # when the last window watched closes: the next one is after it
    source.expect_batch_by(source.window())  # until a batch comes, the first announcement's is due
    while True:
        now = source.clock()
        window = source.window(max(now, watched) if watched else now)
        if (wait_s := (window.opens_at - now).total_seconds()) > 0:
            log.info("waiting for the next announcement", extra={"source": source.name, "day": window.day})
            await source.sleep(wait_s)
        try:
            async with source_lease(store, source.name, lease_ttl_s):
                status = await run_source(
                    source, store, out.publish_raw, out.publish_status, interval_s=ANNOUNCEMENT_GAP_S
                )
            failed = status.state == "failed"
        except LeaseHeld as held:
            log.info("skipping a watch window", extra={"source": source.name, "reason": str(held)})
            failed = False
        except Exception:
            log.exception("watch window could not start or finish", extra={"source": source.name})
            failed = True
        if failed and source.clock() < window.closes_at:
            await source.sleep(ERROR_PAUSE_S)
            continue
        watched = window.closes_at
