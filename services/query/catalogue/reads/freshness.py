"""The overview's arithmetic: its time window, and each source's freshness from its recent runs. No I/O."""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

# 1h to 90d, as the API's document states it: 1-2160 hours (90 days) or 1-90 days, no leading zero
WINDOW_PATTERN = r"^(?:(?:[1-9]\d{0,2}|1\d{3}|20\d{2}|21[0-5]\d|2160)h|(?:[1-9]|[1-8]\d|90)d)$"
_WINDOW = re.compile(WINDOW_PATTERN)


def parse_window(text: str) -> timedelta:
    """ "24h" → 24 hours, "7d" → 7 days; from 1h up to 90 days."""
    if not _WINDOW.match(text):
        raise ValueError(f"window {text!r} must look like 24h or 7d, from 1h to 90d")
    amount, unit = int(text[:-1]), text[-1]
    return timedelta(hours=amount) if unit == "h" else timedelta(days=amount)


@dataclass(slots=True)
class SourceFreshness:
    source: str
    state: str  # ok | failing | running | unknown
    last_completed_scan: datetime | None
    last_new_record: datetime | None
    last_error: str | None
    next_run_at: datetime | None
    announcement: dict[str, Any] | None = None  # the announcement watcher's latest report

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "state": self.state,
            "last_completed_scan": self.last_completed_scan,
            "last_new_record": self.last_new_record,
            "last_error": self.last_error,
            "next_run_at": self.next_run_at,
            "announcement": self.announcement,
        }


def freshness(source: str, runs: list[dict[str, Any]]) -> SourceFreshness:
    """A source's freshness from its recent runs, newest first: failing when the latest finished run failed."""
    finished = [r for r in runs if r.get("state") in ("finished", "failed")]
    completed = next((r for r in runs if r.get("state") == "finished"), None)
    with_records = next((r for r in runs if r.get("state") == "finished" and r.get("records", 0) > 0), None)
    latest = finished[0] if finished else None
    reported = next((r for r in finished if r.get("announcement")), None)
    if latest is None:
        state = "running" if runs else "unknown"
    else:
        state = "failing" if latest.get("state") == "failed" else "ok"
    return SourceFreshness(
        source=source,
        state=state,
        last_completed_scan=completed.get("finished_at") if completed else None,
        last_new_record=with_records.get("finished_at") if with_records else None,
        last_error=latest.get("error") if latest and latest.get("state") == "failed" else None,
        next_run_at=(runs[0].get("next_run_at") if runs else None),
        announcement=reported.get("announcement") if reported else None,
    )
