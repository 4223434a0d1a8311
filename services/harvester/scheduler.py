"""Which sources run and when: each on its own interval, never overlapping itself, failures isolated."""

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import httpx

from services.harvester.http import PoliteFetcher
from services.harvester.runner import PublishRaw, PublishStatus, run_source
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import Source
from services.harvester.sources.arxiv import ArxivOaiSource
from services.harvester.store import HarvestStore

log = logging.getLogger("papertrail.harvester")


def make_http_client(settings: HarvesterSettings) -> httpx.AsyncClient:
    # one connection per client: arXiv asks for a single connection at a time
    return httpx.AsyncClient(
        timeout=settings.http_timeout_s,
        limits=httpx.Limits(max_connections=1),
        headers={"User-Agent": settings.user_agent},
        follow_redirects=True,
    )


def build_source(name: str, settings: HarvesterSettings, client: httpx.AsyncClient) -> tuple[Source, float]:
    """The source module called `name` and its run interval in seconds."""
    if name == "arxiv":
        fetcher = PoliteFetcher(
            client,
            min_interval_s=settings.arxiv_min_request_interval_s,
            retries=settings.http_retries,
            retry_after_max_s=settings.retry_after_max_s,
        )
        return ArxivOaiSource(settings, fetcher), settings.arxiv_interval_s
    raise ValueError(f"unknown source {name!r} in SOURCES")


async def run_forever(
    source: Source, interval_s: float, store: HarvestStore, publish_raw: PublishRaw, publish_status: PublishStatus
) -> None:
    """Run the source, wait its interval, repeat; one run at a time, a failure only delays the next run."""
    while True:
        status = await run_source(source, store, publish_raw, publish_status)
        status.next_run_at = datetime.now(UTC) + timedelta(seconds=interval_s)
        await store.record_run(status)
        await asyncio.sleep(interval_s)
