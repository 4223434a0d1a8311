"""arXiv's announcement schedule and what a polled feed says about it: when to watch, and whether a category's
batch is new, still yesterday's, or absent. Pure functions over an injected `now`; no I/O.

arXiv announces new submissions Sunday to Thursday at 20:00 US Eastern (daylight saving included, so 00:00 or
01:00 UTC), and on its holidays not at all. The watcher starts a few minutes early and gives up quietly when the
window closes with nothing new: a holiday is not an error.
"""

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from zoneinfo import ZoneInfo

EASTERN = ZoneInfo("America/New_York")
ANNOUNCEMENT_TIME = dt.time(20, 0)
# Monday=0 … Sunday=6: the evenings of Sunday to Thursday
ANNOUNCEMENT_WEEKDAYS = frozenset({6, 0, 1, 2, 3})


@dataclass(frozen=True, slots=True)
class WatchWindow:
    """One announcement: its moment, and the span the watcher polls around it (all aware datetimes, UTC)."""

    announced_at: dt.datetime
    opens_at: dt.datetime
    closes_at: dt.datetime

    @property
    def day(self) -> str:
        """The announcement's Eastern date, which names it in checkpoints and logs."""
        return self.announced_at.astimezone(EASTERN).date().isoformat()


def announcement_at(day: dt.date) -> dt.datetime:
    """20:00 US Eastern of `day`, in UTC; zoneinfo picks EST or EDT for that date."""
    return dt.datetime.combine(day, ANNOUNCEMENT_TIME, tzinfo=EASTERN).astimezone(dt.UTC)


def next_watch_window(now: dt.datetime, *, lead: dt.timedelta, watch: dt.timedelta) -> WatchWindow:
    """The window that is open at `now`, or else the next one to open: from `lead` before an announcement until
    `watch` after it. `now` must be aware."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    day = now.astimezone(EASTERN).date() - dt.timedelta(days=1)  # yesterday's window may still be open
    while True:
        if day.weekday() in ANNOUNCEMENT_WEEKDAYS:
            at = announcement_at(day)
            window = WatchWindow(at, at - lead, at + watch)
            if now < window.closes_at:
                return window
        day += dt.timedelta(days=1)


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One announced entry of a category feed: its arXiv id and version, how it was announced, its XML."""

    arxiv_id: str
    version: str
    announce_type: str  # new, cross, replace, replace-cross
    published: str | None
    content: str  # the <entry> element as served, namespaces declared on it


@dataclass(frozen=True, slots=True)
class Feed:
    """A category feed as served: when arXiv built it and the entries it lists."""

    category: str
    updated: str | None
    entries: list[FeedEntry]

    @property
    def ids(self) -> list[str]:
        return sorted(f"{e.arxiv_id}{e.version}" for e in self.entries)


@dataclass(frozen=True, slots=True)
class BatchMark:
    """What identifies a category's last batch: the feed's build time and its entries' ids with versions."""

    updated: str | None
    ids: list[str]

    @classmethod
    def of(cls, feed: Feed) -> "BatchMark":
        return cls(feed.updated, feed.ids)

    def as_dict(self) -> dict[str, object]:
        return {"updated": self.updated, "ids": list(self.ids)}

    @classmethod
    def from_dict(cls, value: dict[str, object] | None) -> "BatchMark | None":
        if not value:
            return None
        ids = value.get("ids")
        updated = value.get("updated")
        return cls(
            updated if isinstance(updated, str) else None, [str(i) for i in ids] if isinstance(ids, list) else []
        )


class Verdict(StrEnum):
    NEW = "new"  # a batch other than the last one: publish it
    EARLIER = "earlier"  # a batch unseen so far but served before the announcement: the previous day's
    SAME = "same"  # still the last batch (same ids): not yet announced, or a stale feed
    EMPTY = "empty"  # no entries at all: nothing announced in this category (yet)


def judge(feed: Feed, last: BatchMark | None, *, before_announcement: bool) -> Verdict:
    """Whether the feed holds the new batch. The ids decide, not the build time alone: arXiv rebuilds the feed
    daily, so a fresh `updated` over yesterday's ids is still yesterday's batch. A batch not seen before but
    served before 20:00 (a first start, a missed evening) is the previous announcement's: worth publishing, but
    the watch goes on."""
    if not feed.entries:
        return Verdict.EMPTY
    if last is not None and feed.ids == last.ids:
        return Verdict.SAME
    return Verdict.EARLIER if before_announcement else Verdict.NEW


class Outcome(StrEnum):
    ANNOUNCED = "announced"  # the category's new batch arrived
    STALE = "stale"  # arXiv announced (another category's batch is new) but this feed still serves the last one
    NONE = "none"  # no category changed in the whole window: no announcement (a holiday)


def close_window(verdicts: dict[str, Verdict]) -> dict[str, Outcome]:
    """Each category's outcome when the window closes, from its last verdict: a category left behind while
    another moved on is stale, not "no new papers"; if none moved on, arXiv did not announce."""
    someone_announced = any(v is Verdict.NEW for v in verdicts.values())
    outcomes = {}
    for category, verdict in verdicts.items():
        if verdict is Verdict.NEW:
            outcomes[category] = Outcome.ANNOUNCED
        elif someone_announced and verdict is Verdict.SAME:
            outcomes[category] = Outcome.STALE
        else:
            outcomes[category] = Outcome.NONE
    return outcomes


def pending(verdicts: dict[str, Verdict], categories: Iterable[str]) -> list[str]:
    """The categories still to poll: those whose new batch has not appeared."""
    return [c for c in categories if verdicts.get(c) is not Verdict.NEW]
