"""Which sources run and when: each on its own interval, never overlapping itself, failures isolated."""

import asyncio
import datetime as dt
import logging

import httpx

from services.harvester.citation_queue import CitationQueue
from services.harvester.first_pages import FirstPageQueue
from services.harvester.http import PoliteFetcher
from services.harvester.lease import LeaseHeld, source_lease
from services.harvester.runner import Publishing, run_source
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import Source
from services.harvester.sources.acl import AclAnthologySource
from services.harvester.sources.arxiv import ArxivIdsSource, ArxivOaiSource, ArxivRecordFetcher
from services.harvester.sources.arxiv_feed import ArxivAnnouncementSource
from services.harvester.sources.arxiv_html import ArxivHtmlSource
from services.harvester.sources.ccf_deadlines import CcfDeadlinesSource
from services.harvester.sources.daily_arxiv import DailyArxivSource
from services.harvester.sources.hf import HfDailyPapersSource
from services.harvester.sources.openreview import OpenReviewSource
from services.harvester.sources.pmlr import PmlrSource
from services.harvester.sources.semantic_scholar import SemanticScholarSource
from services.harvester.store import HarvestStore, VenueCatalogueStore

log = logging.getLogger("papertrail.harvester")

ERROR_PAUSE_S = 60.0  # after an unexpected error outside a run (database down), try again this soon
# The announcement watcher runs once per announcement, not on an interval; its freshness is judged against the
# longest quiet spell arXiv's schedule has: Thursday evening to Sunday evening.
ANNOUNCEMENT_GAP_S = 72 * 3600.0
CCF_DEADLINES_MIN_REQUEST_INTERVAL_S = 1.0  # one archive a run; a retry waits at least this long


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
    """The source modules called `names`, each with its run interval in seconds (`arxiv_html` reads `first_pages`,
    `semantic_scholar` the `citations` queue, `ccf_deadlines` writes `venue_catalogue`).

    arXiv gets one fetcher for the whole process: the arXiv source's ListRecords, the Hugging Face source's
    GetRecord of each pick and the HTML pages all go through it, so together they keep arXiv's one request per 3 s.
    """

    def fetcher(min_interval_s: float) -> PoliteFetcher:
        return polite_fetcher(settings, client, min_interval_s)

    arxiv = fetcher(settings.arxiv_min_request_interval_s)  # OAI-PMH, GetRecord and the announcement feeds
    built: dict[str, tuple[Source, float]] = {}
    for name in names:
        if name == "arxiv":
            built[name] = ArxivOaiSource(settings, arxiv), settings.arxiv_interval_s
        elif name == "arxiv_feed":
            built[name] = ArxivAnnouncementSource(settings, arxiv), ANNOUNCEMENT_GAP_S
        elif name == "acl":
            built[name] = (
                AclAnthologySource(settings, fetcher(settings.acl_min_request_interval_s)),
                settings.acl_interval_s,
            )
        elif name == "hf":
            records = ArxivRecordFetcher(settings, arxiv) if settings.hf_fetch_arxiv else None
            hf = HfDailyPapersSource(settings, fetcher(settings.hf_min_request_interval_s), records)
            built[name] = hf, settings.hf_interval_s
        elif name == "pmlr":
            built[name] = PmlrSource(settings, fetcher(settings.pmlr_min_request_interval_s)), settings.pmlr_interval_s
        elif name == "openreview":
            openreview = OpenReviewSource(settings, fetcher(settings.openreview_min_request_interval_s))
            built[name] = openreview, settings.openreview_interval_s
        elif name == "arxiv_html":
            if first_pages is None:
                raise ValueError("arxiv_html reads the queue of first pages: give it the database's")
            built[name] = ArxivHtmlSource(settings, arxiv, first_pages), settings.arxiv_html_interval_s
        elif name == "daily_arxiv":
            community = DailyArxivSource(settings, fetcher(settings.daily_arxiv_min_request_interval_s))
            built[name] = community, settings.daily_arxiv_interval_s
        elif name == "semantic_scholar":
            if citations is None:
                raise ValueError("semantic_scholar reads the citation queue: give it the database's")
            s2 = fetcher(settings.s2_min_request_interval_s)
            built[name] = SemanticScholarSource(settings, s2, citations), settings.s2_interval_s
        elif name == "ccf_deadlines":
            if venue_catalogue is None:
                raise ValueError("ccf_deadlines keeps the venues it reads: give it the database's venue catalogue")
            ccfddl = CcfDeadlinesSource(settings, fetcher(CCF_DEADLINES_MIN_REQUEST_INTERVAL_S), venue_catalogue)
            built[name] = ccfddl, settings.ccf_deadlines_interval_s
        else:
            raise ValueError(f"unknown source {name!r} in SOURCES")
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
