"""The reader's feed, as the API and the feed page show it: newest matches of their follows, or 为你推荐 (ranked by
their model), one cursor page at a time with the total. A reader with no model yet gets the follows-based feed."""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from services.query.catalogue.interface import Catalogue
from services.query.readers.accounts.follows import matched_page
from services.query.readers.library.recommend import BadFeedCursor, ReaderModels
from services.query.readers.library.shelf import MOMENT_MS, epoch_ms, from_epoch_ms
from services.query.readers.repositories import ReaderRecords

FeedSort = Literal["newest", "relevance"]
MAX_OFFSET = 9999  # past the ranked feed's candidates (recommend.MAX_CANDIDATES) and any page of it
# `<moment>.<match id>`: after that match, in the feed of newest matches; `<n>`: n papers in. Every text of this form
# is a place in a feed, so the API states it as the cursor's pattern and takes any cursor a client sends by it.
FEED_CURSOR_PATTERN = rf"^(?:{MOMENT_MS}\.[0-9a-f]{{24}}|[0-9]{{1,{len(str(MAX_OFFSET))}}})$"
_FEED_CURSOR = re.compile(FEED_CURSOR_PATTERN)


@dataclass(frozen=True, slots=True)
class FeedCursor:
    """Where a page of the feed starts: after a match (matched_at, its id), which the newest matches' feed hands
    out, or `offset` papers in, which the ranked feed hands out and the newest reads too (it answers a reader
    whose model is gone)."""

    after: tuple[datetime, str] | None = None
    offset: int = 0

    def encode(self) -> str:
        return f"{epoch_ms(self.after[0])}.{self.after[1]}" if self.after else str(self.offset)

    @classmethod
    def decode(cls, text: str) -> "FeedCursor":
        if not _FEED_CURSOR.fullmatch(text):
            raise BadFeedCursor(f"not a cursor of this feed: {text[:40]!r}")
        moment, _, match_id = text.partition(".")
        return cls((from_epoch_ms(int(moment)), match_id)) if match_id else cls(offset=int(moment))


async def feed_page(
    readers: ReaderRecords,
    papers: Catalogue,
    models: ReaderModels,
    user_id: str,
    *,
    sort: FeedSort,
    since: datetime | None,
    window_days: int,
    follow_id: str | None,
    cursor: str | None,
    limit: int,
) -> dict[str, Any]:
    """One page: `sort` says which feed answered (relevance falls back to newest when the reader has no model, and
    a cursor after a match continues the newest matches' feed it came from); BadFeedCursor for text that is no
    cursor."""
    place = FeedCursor.decode(cursor) if cursor else FeedCursor()
    ranks = sort == "relevance" and follow_id is None and place.after is None
    model = await models.model(user_id) if ranks else None
    if model is not None:
        start = since or datetime.now(UTC) - timedelta(days=window_days)
        ranked = await models.ranked(user_id, model, start, place.offset, limit)
        following = FeedCursor(offset=ranked.next_offset).encode() if ranked.next_offset is not None else None
        return {"sort": "relevance", "total": ranked.total, "items": ranked.items, "next_cursor": following}
    items, total, after = await matched_page(readers, papers, user_id, follow_id, place.after, limit, place.offset)
    following = FeedCursor(after).encode() if after else None
    return {"sort": "newest", "total": total, "items": items, "next_cursor": following}
