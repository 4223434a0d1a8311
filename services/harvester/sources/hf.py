"""Hugging Face daily papers: one list per day, today and the previous HF_DAYS days (or a manual window); then the
arXiv record of every new pick, so the pick gets its categories and versions."""

import datetime as dt
import hashlib
from collections.abc import AsyncIterator
from typing import Any

from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRecord, SourceRunFailed
from services.harvester.sources.arxiv import ArxivRecordFetcher
from services.harvester.sources.daily_papers import MalformedDailyList, split_daily_list
from services.harvester.sources.spec import SourceParts, SourceSpec


def days_between(first: dt.date, last: dt.date) -> list[str]:
    return [(first + dt.timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]


class HfDailyPapersSource:
    """The daily lists, and with `arxiv_records` the arXiv record of each pick not fetched before.

    A pick names an arXiv paper but carries no categories and no versions: its arXiv record does. Which picks
    still need theirs is this source's own knowledge, kept in its checkpoint (`arxiv.wanted`, `arxiv.fetched`,
    the latter for the days of the window only), not read from the normalizer's `source_records`: that would tie
    the harvester to another service's storage and to how far that service has got, to save at most one request
    per pick (a few dozen a day). A record fetched although the arXiv harvest also brought it is the same
    content, which the normalizer recognises and ignores. The picks of a day are published first; their arXiv
    records follow one page each, so a failed request (arXiv away) fails the run with those picks still wanted
    and the next run fetches them.
    """

    name = "hf"

    def __init__(
        self, settings: HarvesterSettings, fetcher: PoliteFetcher, arxiv_records: ArxivRecordFetcher | None = None
    ) -> None:
        self.url = settings.hf_api_url.rstrip("/") + "/api/daily_papers"
        self.days = settings.hf_days
        self.fetcher = fetcher
        self.arxiv_records = arxiv_records

    def window(self, from_date: str | None, until_date: str | None, today: dt.date) -> list[str]:
        last = dt.date.fromisoformat(until_date) if until_date else today
        first = dt.date.fromisoformat(from_date) if from_date else today - dt.timedelta(days=self.days)
        return days_between(first, last)

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One page per day; a day whose list is byte-for-byte what was published before is skipped. Then one
        page per arXiv record fetched."""
        window = self.window(from_date, until_date, dt.datetime.now(dt.UTC).date())
        # Only the days of the current window are remembered, so the checkpoint stays small.
        seen: dict[str, str] = {d: h for d, h in checkpoint.get("days", {}).items() if d in window}
        arxiv = checkpoint.get("arxiv", {})
        wanted: dict[str, str] = dict(arxiv.get("wanted", {}))  # arXiv id → day of its pick, until fetched
        fetched: dict[str, str] = {i: d for i, d in arxiv.get("fetched", {}).items() if d in window}

        def state() -> dict[str, Any]:
            return {"days": dict(seen), "arxiv": {"wanted": dict(wanted), "fetched": dict(fetched)}}

        for date in window:
            response = await self.fetcher.get(self.url, {"date": date})
            digest = hashlib.sha256(response.content).hexdigest()
            if not from_date and seen.get(date) == digest:
                yield SourcePage([], state(), window_from=window[0], notes=[f"{date}: unchanged"])
                continue
            try:
                records, notes = split_daily_list(response.content, date)
            except MalformedDailyList as exc:
                raise SourceRunFailed(f"HF daily papers {date}: {exc}") from exc
            seen[date] = digest
            if self.arxiv_records is not None:
                for record in records:
                    if record.record_id not in fetched:
                        wanted.setdefault(record.record_id, date)
            yield SourcePage(records, state(), window_from=window[0], window_until=window[-1], notes=notes)
        if self.arxiv_records is None:
            return
        for arxiv_id, date in list(wanted.items()):
            arxiv_record = await self.arxiv_records.get(arxiv_id)
            del wanted[arxiv_id]
            fetched[arxiv_id] = date
            found: list[SourceRecord] = [arxiv_record] if arxiv_record is not None else []
            notes = [] if found else [f"{arxiv_id}: arXiv has no record of this pick"]
            yield SourcePage(found, state(), window_from=window[0], window_until=window[-1], notes=notes)


def _build(parts: SourceParts) -> HfDailyPapersSource:
    """Each pick's arXiv record is fetched through the arXiv fetcher, at arXiv's pace."""
    records = ArxivRecordFetcher(parts.settings, parts.arxiv) if parts.settings.hf_fetch_arxiv else None
    return HfDailyPapersSource(parts.settings, parts.fetcher(parts.settings.hf_min_request_interval_s), records)


SOURCE = SourceSpec(
    "hf",
    _build,
    lambda settings: settings.hf_interval_s,
    formats=("hf_daily_json", "arXivRaw", "arXiv", "oai_dc"),
    settings="HF_",
)
