"""daily-arXiv-ai-enhanced: one JSON-lines file a day of new arXiv papers with a Chinese summary each, read from its
`data` branch for today and the previous DAILY_ARXIV_DAYS days (or a manual window), each skipped when unchanged."""

import datetime as dt
import hashlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed
from services.harvester.sources.daily_arxiv_file import MalformedDayFile, day_file_path, split_day_file
from services.harvester.sources.hf import days_between
from services.harvester.sources.spec import SourceSpec

PAGE_SIZE = 500  # records per published batch; a day's checkpoint moves only after its last batch


class DailyArxivSource:
    """The publisher's day files, one request at a time at its own pace (PoliteFetcher). A day without a file (the
    publisher writes none on days arXiv announces nothing, and today's may not be written yet) is a note, not a
    failure; the checkpoint remembers each day's ETag and sha256, for the days of the window only."""

    name = "daily_arxiv"

    def __init__(
        self, settings: HarvesterSettings, fetcher: PoliteFetcher, today: Callable[[], dt.date] | None = None
    ) -> None:
        self.base_url = settings.daily_arxiv_url.rstrip("/")
        self.days = settings.daily_arxiv_days
        self.fetcher = fetcher
        self.today = today or (lambda: dt.datetime.now(dt.UTC).date())

    def window(self, from_date: str | None, until_date: str | None, today: dt.date) -> list[str]:
        last = dt.date.fromisoformat(until_date) if until_date else today
        first = dt.date.fromisoformat(from_date) if from_date else today - dt.timedelta(days=self.days)
        return days_between(first, last)

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One day after another; a manual window (`from_date`) re-reads days even if unchanged."""
        window = self.window(from_date, until_date, self.today())
        days: dict[str, dict[str, Any]] = {d: dict(v) for d, v in checkpoint.get("days", {}).items() if d in window}

        def state() -> dict[str, Any]:
            return {"days": {d: dict(v) for d, v in days.items()}}

        for date in window:
            seen = {} if from_date else days.get(date, {})
            headers = {"If-None-Match": seen["etag"]} if seen.get("etag") else None
            url = f"{self.base_url}/{day_file_path(date)}"
            response = await self.fetcher.get(url, headers=headers, missing_ok=True)
            if response.status_code == 404:
                yield SourcePage([], state(), window_from=window[0], notes=[f"{date}: no file (yet)"])
                continue
            if response.status_code == 304:
                yield SourcePage([], state(), window_from=window[0], notes=[f"{date}: unchanged (ETag)"])
                continue
            digest = hashlib.sha256(response.content).hexdigest()
            known = {"etag": response.headers.get("ETag"), "sha256": digest}
            if digest == seen.get("sha256"):
                days[date] = known
                yield SourcePage([], state(), window_from=window[0], notes=[f"{date}: unchanged (sha256)"])
                continue
            try:
                records, notes = split_day_file(response.content, date)
            except MalformedDayFile as exc:
                raise SourceRunFailed(f"daily-arXiv-ai-enhanced {date}: {exc}") from exc
            for start in range(0, max(len(records), 1), PAGE_SIZE):
                if start + PAGE_SIZE >= len(records):
                    days[date] = known
                yield SourcePage(
                    records=records[start : start + PAGE_SIZE],
                    checkpoint=state(),
                    window_from=window[0],
                    window_until=window[-1],
                    complete_list_size=len(records),
                    notes=notes if start == 0 else [],
                )


SOURCE = SourceSpec(
    "daily_arxiv",
    lambda parts: DailyArxivSource(parts.settings, parts.fetcher(parts.settings.daily_arxiv_min_request_interval_s)),
    lambda settings: settings.daily_arxiv_interval_s,
    formats=("daily_arxiv_json",),
    settings="DAILY_ARXIV_",
)
