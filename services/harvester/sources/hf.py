"""Hugging Face daily papers: one list per day, today and the previous HF_DAYS days (or a manual window)."""

import datetime as dt
import hashlib
from collections.abc import AsyncIterator
from typing import Any

from services.harvester.daily_papers import MalformedDailyList, split_daily_list
from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed


def days_between(first: dt.date, last: dt.date) -> list[str]:
    return [(first + dt.timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]


class HfDailyPapersSource:
    name = "hf"

    def __init__(self, settings: HarvesterSettings, fetcher: PoliteFetcher) -> None:
        self.url = settings.hf_api_url.rstrip("/") + "/api/daily_papers"
        self.days = settings.hf_days
        self.fetcher = fetcher

    def window(self, from_date: str | None, until_date: str | None, today: dt.date) -> list[str]:
        last = dt.date.fromisoformat(until_date) if until_date else today
        first = dt.date.fromisoformat(from_date) if from_date else today - dt.timedelta(days=self.days)
        return days_between(first, last)

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One page per day; a day whose list is byte-for-byte what was published before is skipped."""
        window = self.window(from_date, until_date, dt.datetime.now(dt.UTC).date())
        # Only the days of the current window are remembered, so the checkpoint stays small.
        seen: dict[str, str] = {d: h for d, h in checkpoint.get("days", {}).items() if d in window}
        for date in window:
            response = await self.fetcher.get(self.url, {"date": date})
            digest = hashlib.sha256(response.content).hexdigest()
            if not from_date and seen.get(date) == digest:
                yield SourcePage([], {"days": dict(seen)}, window_from=window[0], notes=[f"{date}: unchanged"])
                continue
            try:
                records, notes = split_daily_list(response.content, date)
            except MalformedDailyList as exc:
                raise SourceRunFailed(f"HF daily papers {date}: {exc}") from exc
            seen[date] = digest
            yield SourcePage(records, {"days": dict(seen)}, window_from=window[0], window_until=window[-1], notes=notes)
