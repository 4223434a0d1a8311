"""arXiv's announcement, as it happens: each configured category's Atom feed polled through one watch window
until its new batch appears; every announced entry published at once as an arXiv record (`arxiv_atom`), which
the later OAI-PMH record of the same paper completes."""

import asyncio
import datetime as dt
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from prometheus_client import Counter, Gauge

from schemas.events import AnnouncedCategory, AnnouncementReport
from services.harvester.announced import LedgeredPublishing
from services.harvester.announcements import (
    BatchMark,
    Feed,
    Outcome,
    Verdict,
    WatchWindow,
    close_window,
    judge,
    next_watch_window,
    pending,
)
from services.harvester.http import PoliteFetcher
from services.harvester.runner import Publishing
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRecord, SourceRunFailed
from services.harvester.sources.atom_feed import MalformedFeed, parse_feed
from services.harvester.sources.spec import SourceParts, SourceSpec, needed

log = logging.getLogger("papertrail.harvester")

Clock = Callable[[], dt.datetime]
Sleep = Callable[[float], Awaitable[None]]

WINDOWS = Counter(
    "papertrail_announce_windows_total",
    "Closed watch windows by category and outcome (announced, stale: arXiv announced but the feed still served "
    "the last batch, none: no announcement, a holiday).",
    ["category", "outcome"],
)
LAST_BATCH = Gauge(
    "papertrail_announce_last_batch_timestamp_seconds",
    "Unix time the watcher saw each category's latest new batch.",
    ["category"],
)
DELAY = Gauge(
    "papertrail_announce_delay_seconds",
    "Seconds from 20:00 US Eastern to the watcher seeing the category's batch, for the latest announcement.",
    ["category"],
)
DUE = Gauge(
    "papertrail_harvest_due_timestamp_seconds",
    "Unix time by which a source's next batch is due; set by the announcement watcher: the close of the first watch "
    "window after its latest batch (SourceStale fires past it).",
    ["source"],
)
ENTRIES = Counter(
    "papertrail_announce_entries_total", "Announced entries published, by announce type.", ["announce_type"]
)


def init_metrics(categories: list[str]) -> None:
    """Every series at zero from the start, so `increase()` sees the first stale window."""
    for category in categories:
        for outcome in Outcome:
            WINDOWS.labels(category, outcome.value)
    for announce_type in ("new", "cross", "replace", "replace-cross"):
        ENTRIES.labels(announce_type)


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def feed_records(feed: Feed) -> list[SourceRecord]:
    """One arXiv record per entry, published as the arXiv source's (keyed `arxiv:<id>`, like its OAI record, so
    both land on one partition in order and settle into one paper)."""
    records = []
    for entry in feed.entries:
        record = SourceRecord.of(entry.arxiv_id, "arxiv_atom", entry.content, (entry.published or "")[:10] or None)
        records.append(
            SourceRecord(record.record_id, record.format, record.content, record.sha256, record.datestamp, "arxiv")
        )
    return records


def announcement_report(window: WatchWindow, marks: dict[str, Any], outcomes: dict[str, Outcome]) -> AnnouncementReport:
    """The status page's line: each category's outcome and its latest batch (size, when seen)."""
    categories = []
    for category, outcome in outcomes.items():
        mark = marks.get(category) or {}
        seen_at = mark.get("seen_at")
        categories.append(
            AnnouncedCategory(
                category=category,
                outcome=outcome.value,
                entries=len(mark.get("ids") or []),
                seen_at=dt.datetime.fromisoformat(seen_at) if isinstance(seen_at, str) else None,
            )
        )
    return AnnouncementReport(day=window.day, announced_at=window.announced_at, categories=categories)


class ArxivAnnouncementSource:
    """One run = one watch window. The checkpoint holds each category's last batch (`BatchMark`) and the last
    window's outcomes; a run started again inside a window that already closed every category does nothing."""

    name = "arxiv_feed"

    def __init__(
        self,
        settings: HarvesterSettings,
        fetcher: PoliteFetcher,
        *,
        clock: Clock = utc_now,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.url = settings.arxiv_feed_url
        self.categories = list(settings.arxiv_feed_categories)
        self.lead = dt.timedelta(seconds=settings.arxiv_feed_lead_s)
        self.watch = dt.timedelta(seconds=settings.arxiv_feed_watch_s)
        self.poll_s = settings.arxiv_feed_poll_s
        self.fetcher = fetcher
        self.clock = clock
        self.sleep = sleep

    def window(self, at: dt.datetime | None = None) -> WatchWindow:
        """The window open at `at` (default: now), or else the next one."""
        return next_watch_window(at or self.clock(), lead=self.lead, watch=self.watch)

    def expect_batch_by(self, window: WatchWindow) -> None:
        """A batch is due before `window` closes: an announcement day that passes without one makes SourceStale."""
        DUE.labels(self.name).set(window.closes_at.timestamp())

    async def fetch(self, category: str) -> Feed:
        response = await self.fetcher.get(f"{self.url}/{category}")
        try:
            return parse_feed(response.content, category)
        except MalformedFeed as exc:
            raise SourceRunFailed(f"arXiv feed {category}: {exc}") from exc

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """Poll the categories still waiting, a round every ARXIV_FEED_POLL_S, until each has its new batch or
        the window closes; a page per new batch, then one closing page with every category's outcome."""
        window = self.window()
        marks: dict[str, Any] = dict(checkpoint.get("categories", {}))
        last_window: dict[str, Any] = dict(checkpoint.get("window", {}))
        done = set(last_window.get("announced", [])) if last_window.get("day") == window.day else set()
        verdicts: dict[str, Verdict] = {c: Verdict.NEW for c in self.categories if c in done}
        if done:  # this window's batch came before a restart: the next is due with the next announcement
            self.expect_batch_by(self.window(window.closes_at))

        def state(outcomes: dict[str, Outcome] | None = None) -> dict[str, Any]:
            closed = {"outcomes": {c: o.value for c, o in outcomes.items()}} if outcomes else {}
            announced = sorted(c for c, v in verdicts.items() if v is Verdict.NEW)
            return {"categories": dict(marks), "window": {"day": window.day, "announced": announced} | closed}

        while waiting := pending(verdicts, self.categories):
            for category in waiting:
                feed = await self.fetch(category)
                seen_at = self.clock()
                verdict = judge(
                    feed, BatchMark.from_dict(marks.get(category)), before_announcement=seen_at < window.announced_at
                )
                verdicts[category] = Verdict.SAME if verdict is Verdict.EARLIER else verdict
                if verdict not in (Verdict.NEW, Verdict.EARLIER):
                    continue
                marks[category] = BatchMark.of(feed).as_dict() | {"seen_at": seen_at.isoformat()}
                if verdict is Verdict.NEW:
                    self.expect_batch_by(self.window(window.closes_at))
                    LAST_BATCH.labels(category).set(seen_at.timestamp())
                    DELAY.labels(category).set(max(0.0, (seen_at - window.announced_at).total_seconds()))
                for entry in feed.entries:
                    ENTRIES.labels(entry.announce_type).inc()
                notes = [f"{category}: {len(feed.entries)} {verdict.value} entries, feed built {feed.updated}"]
                yield SourcePage(feed_records(feed), state(), window_from=window.day, notes=notes)
            now = self.clock()
            if not pending(verdicts, self.categories) or now >= window.closes_at or now < window.opens_at:
                break  # all in, or the window over, or a manual run outside any window: one round
            await self.sleep(self.poll_s)

        outcomes = close_window(verdicts)
        for category, outcome in outcomes.items():
            if category not in done:
                WINDOWS.labels(category, outcome.value).inc()
            if outcome is Outcome.STALE:
                log.warning("arXiv feed still serves the last batch", extra={"category": category, "day": window.day})
        notes = [f"{c}: {o.value}" for c, o in outcomes.items()]
        report = announcement_report(window, marks, outcomes)
        yield SourcePage([], state(outcomes), window_from=window.day, notes=notes, announcement=report)


# The watcher runs once per announcement, not on an interval; its freshness is judged against the longest quiet
# spell arXiv's schedule has: Thursday evening to Sunday evening.
ANNOUNCEMENT_GAP_S = 72 * 3600.0


def _ledger(out: Publishing, parts: SourceParts) -> Publishing:
    """Announced ids are kept until their OAI-PMH record comes."""
    announced = needed(parts.announced, "arxiv_feed keeps a ledger of announced papers: give it the database's")
    return LedgeredPublishing(out, announced, dt.timedelta(seconds=parts.settings.arxiv_feed_gap_s))


SOURCE = SourceSpec(
    "arxiv_feed",
    lambda parts: ArxivAnnouncementSource(parts.settings, parts.arxiv),
    lambda settings: ANNOUNCEMENT_GAP_S,
    formats=("arxiv_atom",),
    settings="ARXIV_FEED_",
    schedule="announcements",
    publishing=_ledger,
    init_metrics=lambda settings, running: init_metrics(settings.arxiv_feed_categories if running else []),
)
