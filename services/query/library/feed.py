"""The reader's feed, as the API and the feed page show it: the papers their follows matched, once each, or 为你推荐
(ranked by their model), one cursor page at a time with the total. A reader with no model yet gets the follows-based
feed."""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from services.query.accounts.follows import matched_page
from services.query.accounts.repositories import ReaderRecords
from services.query.catalogue.interface import Catalogue
from services.query.library.shelf import MOMENT_MS, TEXT_B64, b64_text, epoch_ms, from_epoch_ms, text_of_b64
from services.query.recommender.recommend import BadFeedCursor, ReaderModels

FeedSort = Literal["newest", "relevance"]
MAX_OFFSET = 9999  # past the ranked feed's candidates (recommend.MAX_CANDIDATES) and any page of it
# `<0|1>.<moment>.<paper id, base64url>`: after that paper (1: among the backfilled ones), in the feed of matched
# papers; `<n>`: n papers in. Every text of this form is a place in a feed, so the API states it as the cursor's
# pattern and takes any cursor a client sends by it.
FEED_CURSOR_PATTERN = rf"^(?:[01]\.{MOMENT_MS}\.{TEXT_B64}|[0-9]{{1,{len(str(MAX_OFFSET))}}})$"
_FEED_CURSOR = re.compile(FEED_CURSOR_PATTERN)


@dataclass(frozen=True, slots=True)
class FeedCursor:
    """Where a page of the feed starts: after a paper (backfilled or not, its newest match's time, its id), which
    the matched papers' feed hands out, or `offset` papers in, which the ranked feed hands out and the matched
    papers' feed reads too (it answers a reader whose model is gone)."""

    after: tuple[bool, datetime, str] | None = None
    offset: int = 0

    def encode(self) -> str:
        if self.after is None:
            return str(self.offset)
        backfill, at, paper_id = self.after
        return f"{int(backfill)}.{epoch_ms(at)}.{b64_text(paper_id)}"

    @classmethod
    def decode(cls, text: str) -> "FeedCursor":
        if not _FEED_CURSOR.fullmatch(text):
            raise BadFeedCursor(f"not a cursor of this feed: {text[:40]!r}")
        if "." not in text:
            return cls(offset=int(text))
        backfill, moment, paper = text.split(".", 2)
        return cls((backfill == "1", from_epoch_ms(int(moment)), text_of_b64(paper)))


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
    visited: datetime | None = None,
) -> dict[str, Any]:
    """One page: `sort` says which feed answered (relevance falls back to newest when the reader has no model, and
    a cursor after a paper continues the matched papers' feed it came from); BadFeedCursor for text that is no
    cursor. The newest feed lists each paper once with every follow's reasons, the new ones (matched after
    `visited`, the reader's previous visit, are marked `new`) above those found by backfills of new follows, and
    counts them: `total`, `new`, `backfilled`."""
    place = FeedCursor.decode(cursor) if cursor else FeedCursor()
    ranks = sort == "relevance" and follow_id is None and place.after is None
    model = await models.model(user_id) if ranks else None
    if model is not None:
        start = since or datetime.now(UTC) - timedelta(days=window_days)
        ranked = await models.ranked(user_id, model, start, place.offset, limit)
        following = FeedCursor(offset=ranked.next_offset).encode() if ranked.next_offset is not None else None
        return {"sort": "relevance", "total": ranked.total, "items": ranked.items, "next_cursor": following}
    counts = await readers.matches.paper_counts(user_id, follow_id, visited)
    items, last = await matched_page(readers, papers, user_id, follow_id, place.after, limit, visited, place.offset)
    following = FeedCursor(last).encode() if last is not None else None
    return {"sort": "newest", **counts, "last_visit": visited, "items": items, "next_cursor": following}
