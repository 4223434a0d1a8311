"""One harvest run of one source: pages → publish raw records → checkpoint → status, nothing skipped."""

import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from prometheus_client import Counter, Gauge, Histogram

from schemas.events import HarvestStatus, RawRecord
from services.harvester.http import SourceUnavailable
from services.harvester.sources import Source, SourcePage, SourceRunFailed
from services.harvester.store import HarvestStore

log = logging.getLogger("papertrail.harvester")

RECORDS = Counter("papertrail_harvest_records_total", "Raw records published, by source.", ["source"])
PAGES = Counter("papertrail_harvest_pages_total", "Pages fetched, by source.", ["source"])
RUNS = Counter(
    "papertrail_harvest_runs_total", "Harvest runs by source and outcome (ok, failed).", ["source", "outcome"]
)
ERRORS = Counter("papertrail_harvest_errors_total", "Failed runs by source and error kind.", ["source", "kind"])
RUN_SECONDS = Histogram(
    "papertrail_harvest_run_seconds",
    "Duration of harvest runs.",
    ["source"],
    buckets=(1, 5, 15, 60, 300, 900, 3600, 4 * 3600),
)
LAST_SUCCESS = Gauge(
    "papertrail_harvest_last_success_timestamp_seconds", "Unix time of the last successful run, by source.", ["source"]
)
# For alerts: a source is stale after three of its own intervals; failures count in a row, not per hour.
INTERVAL = Gauge("papertrail_harvest_interval_seconds", "Seconds between scheduled runs, by source.", ["source"])
CONSECUTIVE_FAILURES = Gauge(
    "papertrail_harvest_consecutive_failures", "Runs failed in a row since the last good one, by source.", ["source"]
)

OUTCOMES = ("ok", "failed")
ERROR_KINDS = ("source",)


def init_metrics(sources: Iterable[str]) -> None:
    """Create every labelled series at zero, so `increase()` and absence alerts see them from the start."""
    for source in sources:
        RECORDS.labels(source)
        PAGES.labels(source)
        RUN_SECONDS.labels(source)
        CONSECUTIVE_FAILURES.labels(source)
        for outcome in OUTCOMES:
            RUNS.labels(source, outcome)
        for kind in ERROR_KINDS:
            ERRORS.labels(source, kind)


async def restore_freshness(store: HarvestStore, intervals: dict[str, float]) -> None:
    """Set each source's interval, last-success time and failure streak from the stored runs, so a restart does
    not forget how stale a source is: `SourceStale` sees the true age at once, not after the next good run."""
    for source, interval_s in intervals.items():
        INTERVAL.labels(source).set(interval_s)
        last_success, failures = await store.freshness(source)
        if last_success is not None:
            LAST_SUCCESS.labels(source).set(last_success.timestamp())
        CONSECUTIVE_FAILURES.labels(source).set(failures)


PublishRaw = Callable[[list[tuple[RawRecord, str]]], Awaitable[None]]
PublishStatus = Callable[[HarvestStatus], Awaitable[None]]
PageCallback = Callable[[SourcePage], None]


class Publishing(Protocol):
    """Where the runs' records and statuses go: the harvester's publishers (publishers.py), or a test's lists."""

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None: ...

    async def publish_status(self, status: HarvestStatus) -> None: ...


async def run_source(
    source: Source,
    store: HarvestStore,
    publish_raw: PublishRaw,
    publish_status: PublishStatus,
    *,
    from_date: str | None = None,
    until_date: str | None = None,
    on_page: PageCallback | None = None,
    interval_s: float | None = None,
) -> HarvestStatus:
    """Harvest until the source has nothing more; a manual window (`from_date`) leaves the checkpoint alone.

    With `interval_s` (scheduled runs), the final status says when the next run will start.
    """
    started = time.monotonic()
    if interval_s is not None:
        INTERVAL.labels(source.name).set(interval_s)
    status = HarvestStatus(
        source=source.name,
        run_id=uuid.uuid4().hex,
        state="started",
        window_from=from_date,
        window_until=until_date,
        started_at=datetime.now(UTC),
    )
    await _announce(status, store, publish_status)
    try:
        checkpoint = await store.load_checkpoint(source.name)
        async for page in source.pages(checkpoint, from_date=from_date, until_date=until_date):
            harvested_at = datetime.now(UTC)
            raw = [
                (
                    RawRecord(
                        source=r.source or source.name,
                        record_id=r.record_id,
                        format=r.format,
                        content=r.content,
                        sha256=r.sha256,
                        datestamp=r.datestamp,
                        run_id=status.run_id,
                        harvested_at=harvested_at,
                    ),
                    f"{r.source or source.name}:{r.record_id}",
                )
                for r in page.records
            ]
            await publish_raw(raw)  # returns once the broker acknowledged every record
            if from_date is None:
                await store.save_checkpoint(source.name, page.checkpoint)
            status.pages += 1
            status.records += len(raw)
            status.window_from = status.window_from or page.window_from
            status.announcement = page.announcement or status.announcement
            status.skipped += page.skipped
            for skipped in page.skipped:
                log.warning("left out of the run", extra={"source": source.name, "skipped": skipped})
            PAGES.labels(source.name).inc()
            RECORDS.labels(source.name).inc(len(raw))
            if on_page is not None:
                on_page(page)
    except (SourceRunFailed, SourceUnavailable) as exc:
        return await _fail(status, store, publish_status, exc, "source", started, interval_s)
    except Exception as exc:  # broker or database trouble: the run fails, the scheduler tries again later
        log.exception("harvest run failed", extra={"source": source.name})
        return await _fail(status, store, publish_status, exc, type(exc).__name__, started, interval_s)

    status.state = "finished"
    status.finished_at = datetime.now(UTC)
    status.next_run_at = _next_run(status.finished_at, interval_s)
    RUNS.labels(source.name, "ok").inc()
    RUN_SECONDS.labels(source.name).observe(time.monotonic() - started)
    LAST_SUCCESS.labels(source.name).set(status.finished_at.timestamp())
    CONSECUTIVE_FAILURES.labels(source.name).set(0)
    await _announce(status, store, publish_status)
    log.info("harvest run finished", extra={"source": source.name, "pages": status.pages, "records": status.records})
    return status


def _next_run(finished_at: datetime, interval_s: float | None) -> datetime | None:
    return finished_at + timedelta(seconds=interval_s) if interval_s is not None else None


async def _fail(
    status: HarvestStatus,
    store: HarvestStore,
    publish_status: PublishStatus,
    exc: Exception,
    kind: str,
    started: float,
    interval_s: float | None,
) -> HarvestStatus:
    status.state = "failed"
    status.finished_at = datetime.now(UTC)
    status.next_run_at = _next_run(status.finished_at, interval_s)
    status.error = f"{type(exc).__name__}: {exc}"
    RUNS.labels(status.source, "failed").inc()
    ERRORS.labels(status.source, kind).inc()
    CONSECUTIVE_FAILURES.labels(status.source).inc()
    RUN_SECONDS.labels(status.source).observe(time.monotonic() - started)
    try:
        await _announce(status, store, publish_status)
    except Exception:
        log.exception("could not record the failed run", extra={"source": status.source})
    log.warning("harvest run failed", extra={"source": status.source, "error": status.error})
    return status


async def _announce(status: HarvestStatus, store: HarvestStore, publish_status: PublishStatus) -> None:
    await store.record_run(status)
    await publish_status(status)
