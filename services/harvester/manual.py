"""Manual harvest runs and bulk imports with a progress bar, under the same lease and runner as the schedule."""

import datetime as dt
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from papertrail.runtime.kafka import make_broker
from papertrail.runtime.service import Readiness, load_settings, open_resources
from schemas.events import HarvestStatus
from services.harvester.announced import AnnouncedPapers, LedgeredPublishing
from services.harvester.app import NEEDS, TOPICS
from services.harvester.bulk import BulkFileSource, BulkKind, DblpDumpSource, sniff_kind
from services.harvester.citation_queue import CitationQueue
from services.harvester.first_pages import FirstPageQueue
from services.harvester.lease import LeaseHeld, source_lease
from services.harvester.publishers import HarvestPublishers
from services.harvester.runner import Publishing, init_metrics, run_source
from services.harvester.scheduler import build_ids_source, build_source, make_http_client
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import Source, SourcePage
from services.harvester.store import HarvestStore, VenueCatalogueStore

console = Console(stderr=True)


@dataclass
class Harvesting:
    settings: HarvesterSettings
    store: HarvestStore
    publishers: HarvestPublishers
    announced: AnnouncedPapers
    first_pages: FirstPageQueue
    citations: CitationQueue
    venue_catalogue: VenueCatalogueStore


@asynccontextmanager
async def harvesting(settings: HarvesterSettings) -> AsyncIterator[Harvesting]:
    """Topics, database and the service's publishers as the service opens them, for one manual run."""
    broker = make_broker(settings, "harvester-cli")
    publishers = HarvestPublishers.declare(broker)
    async with open_resources(settings, "harvester-cli", broker, Readiness(), topics=TOPICS, needs=NEEDS) as clients:
        store, announced, first_pages, citations = (
            HarvestStore(clients.db),
            AnnouncedPapers(clients.db),
            FirstPageQueue(clients.db),
            CitationQueue(clients.db),
        )
        await store.ensure_indexes()
        await announced.ensure_indexes()
        await first_pages.ensure_indexes()
        await citations.ensure_indexes()
        await broker.start()
        try:
            yield Harvesting(
                settings, store, publishers, announced, first_pages, citations, VenueCatalogueStore(clients.db)
            )
        finally:
            await broker.stop()


def _progress() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[pages]} pages · {task.fields[rate]} rec/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
    )


def _page_counter(progress: Progress, task: Any, advance_by: Callable[[SourcePage], float] | None = None) -> Any:
    """on_page callback: counts records and pages; the bar's total is the source's complete list size."""
    seen = {"records": 0, "pages": 0}

    def on_page(page: SourcePage) -> None:
        seen["records"] += len(page.records)
        seen["pages"] += 1
        elapsed = progress.tasks[task].elapsed or 0
        rate = f"{seen['records'] / elapsed:,.0f}" if elapsed else "-"
        if page.complete_list_size and advance_by is None:
            progress.update(task, total=page.complete_list_size)
        completed = advance_by(page) if advance_by else seen["records"]
        progress.update(task, completed=completed, pages=seen["pages"], rate=rate)
        for note in page.notes:
            progress.console.print(f"[yellow]{note}")

    return on_page


async def _run(
    context: Harvesting,
    source: Source,
    description: str,
    from_date: str | None,
    until_date: str | None,
    out: Publishing | None = None,
    **bar: Any,
) -> HarvestStatus:
    init_metrics([source.name])
    out = out or context.publishers
    with _progress() as progress:
        task = progress.add_task(description, total=bar.pop("total", None), pages=0, rate="-")
        on_page = _page_counter(progress, task, **bar)
        async with source_lease(context.store, source.name, context.settings.lease_ttl_s):
            return await run_source(
                source,
                context.store,
                out.publish_raw,
                out.publish_status,
                from_date=from_date,
                until_date=until_date,
                on_page=on_page,
            )


def _report(status: HarvestStatus) -> int:
    if status.state == "failed":
        console.print(f"[red]{status.source}: run {status.run_id} failed after {status.records} records")
        console.print(f"[red]{status.error}")
        return 1
    console.print(f"[green]{status.source}: {status.records} records in {status.pages} pages (run {status.run_id})")
    for skipped in status.skipped:
        console.print(f"[yellow]skipped {skipped}")
    return 0


async def harvest(name: str, from_date: str | None, until_date: str | None, *, held: bool = False) -> int:
    """One run of a configured source now; `--from` makes it a backfill that leaves the checkpoint alone; `held`
    (arxiv_html) first queues the first pages of the papers the store holds."""
    settings = load_settings(HarvesterSettings, "harvest")
    http = make_http_client(settings)
    try:
        async with harvesting(settings) as context:
            if held:
                queued = await context.first_pages.enqueue_held(dt.datetime.now(dt.UTC))
                console.print(f"{queued} held arXiv papers queued for their first page (each once)")
            source, _ = build_source(
                name, settings, http, context.first_pages, context.citations, context.venue_catalogue
            )
            status = await _run(context, source, f"harvest {name}", from_date, until_date)
    except LeaseHeld as held:
        console.print(f"[red]{held}; try again when that run has finished")
        return 2
    finally:
        await http.aclose()
    return _report(status)


async def harvest_ids(arxiv_ids: list[str]) -> int:
    """The given arXiv papers now, by GetRecord, published as the arXiv source's records; the ledger of announced
    papers counts them as harvested, so a gap closes."""
    settings = load_settings(HarvesterSettings, "harvest")
    http = make_http_client(settings)
    try:
        source = build_ids_source(arxiv_ids, settings, http)
        async with harvesting(settings) as context:
            awaited = await context.announced.awaited(arxiv_ids)
            ledgered = LedgeredPublishing(
                context.publishers, context.announced, dt.timedelta(seconds=settings.arxiv_feed_gap_s)
            )
            status = await _run(context, source, "harvest arXiv ids", None, None, ledgered)
            settled = sorted(set(awaited) - set(await context.announced.awaited(arxiv_ids)))
    except LeaseHeld as held:
        console.print(f"[red]{held}; try again when that run has finished")
        return 2
    finally:
        await http.aclose()
    if settled:
        console.print(f"[green]no longer missing: {', '.join(settled)}")
    return _report(status)


async def import_file(path: Path, kind: BulkKind | None, restart: bool) -> int:
    """Stream a Kaggle snapshot, a corpus file or DBLP's dump to harvest.raw.v1, resuming where an earlier import
    stopped."""
    settings = load_settings(HarvesterSettings, "import")
    kind = kind or sniff_kind(path)
    source: BulkFileSource | DblpDumpSource = (
        DblpDumpSource(path, settings.import_batch_size)
        if kind == "dblp"
        else BulkFileSource(path, kind, settings.import_batch_size)
    )
    try:
        async with harvesting(settings) as context:
            if restart:
                checkpoint = await context.store.load_checkpoint(source.name)
                checkpoint.get("files", {}).pop(str(source.path), None)
                await context.store.save_checkpoint(source.name, checkpoint)
            status = await _run(
                context,
                source,
                f"import {path.name} ({kind})",
                None,
                None,
                total=source.total_bytes,
                advance_by=lambda page: source.bytes_read,
            )
    except LeaseHeld as held:
        console.print(f"[red]{held}; try again when that import has finished")
        return 2
    return _report(status)
