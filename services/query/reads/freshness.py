"""The overview's arithmetic: its time window, and each source's freshness from its recent runs. No I/O."""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

_WINDOW = re.compile(r"^(\d{1,4})([hd])$")


def parse_window(text: str) -> timedelta:
    """ "24h" → 24 hours, "7d" → 7 days; up to 90 days."""
    match = _WINDOW.match(text)
    if not match:
        raise ValueError(f"window {text!r} must look like 24h or 7d")
    amount, unit = int(match.group(1)), match.group(2)
    window = timedelta(hours=amount) if unit == "h" else timedelta(days=amount)
    if not timedelta(hours=1) <= window <= timedelta(days=90):
        raise ValueError(f"window {text!r} must be between 1h and 90d")
    return window


@dataclass(slots=True)
class SourceFreshness:
    source: str
    state: str  # ok | failing | running | unknown
    last_completed_scan: datetime | None
    last_new_record: datetime | None
    last_error: str | None
    next_run_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "state": self.state,
            "last_completed_scan": self.last_completed_scan,
            "last_new_record": self.last_new_record,
            "last_error": self.last_error,
            "next_run_at": self.next_run_at,
        }


def freshness(source: str, runs: list[dict[str, Any]]) -> SourceFreshness:
    """A source's freshness from its recent runs, newest first: failing when the latest finished run failed."""
    finished = [r for r in runs if r.get("state") in ("finished", "failed")]
    completed = next((r for r in runs if r.get("state") == "finished"), None)
    with_records = next((r for r in runs if r.get("state") == "finished" and r.get("records", 0) > 0), None)
    latest = finished[0] if finished else None
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
    )
