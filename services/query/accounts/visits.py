"""A reader's visits to their feed, pure: which earlier visit the feed's entries are "new since"."""

from dataclasses import dataclass
from datetime import datetime, timedelta

# Views closer together than this are one visit: a reload or the next page does not clear what was new when the
# visit began.
VISIT_GAP = timedelta(minutes=30)


@dataclass(frozen=True, slots=True)
class FeedVisit:
    before: datetime | None  # the previous visit's last view: entries matched after it are new (None: first visit)


def feed_visit(
    seen_at: datetime | None, before: datetime | None, now: datetime, gap: timedelta = VISIT_GAP
) -> FeedVisit:
    """The visit a view at `now` belongs to, given the reader's last view (`seen_at`) and the previous visit the
    current one counts from (`before`): a view within `gap` of the last one continues its visit; a later one starts
    a new visit, whose entries are new since that last view."""
    if seen_at is None:
        return FeedVisit(None)
    return FeedVisit(before) if now - seen_at <= gap else FeedVisit(seen_at)
