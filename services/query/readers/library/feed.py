"""The reader's feed, as the API and the feed page show it: the papers their follows matched, once each, or 为你推荐
(ranked by their model), one cursor page at a time with the total. A reader with no model yet gets the follows-based
feed."""

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from services.query.catalogue.interface import Catalogue
from services.query.moments import in_utc
from services.query.readers.accounts.follows import matched_page
from services.query.readers.library.recommend import BadFeedCursor, ReaderModels, decode_cursor, encode_cursor
from services.query.readers.repositories import ReaderRecords

FeedSort = Literal["newest", "relevance"]


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
    """One page: `sort` says which feed answered (relevance falls back to newest when the reader has no model);
    BadFeedCursor for a cursor this feed did not hand out. The newest feed lists each paper once with every
    follow's reasons, the new ones (matched after `visited`, the reader's previous visit, are marked `new`) above
    those found by backfills of new follows, and counts them: `total`, `new`, `backfilled`."""
    position = decode_cursor(cursor) if cursor else None
    model = await models.model(user_id) if sort == "relevance" and follow_id is None else None
    if model is not None:
        offset = position.get("offset", 0) if isinstance(position, dict) else 0
        if not isinstance(offset, int) or offset < 0:
            raise BadFeedCursor("not a cursor of the ranked feed")
        start = since or datetime.now(UTC) - timedelta(days=window_days)
        ranked = await models.ranked(user_id, model, start, offset, limit)
        following = encode_cursor({"offset": ranked.next_offset}) if ranked.next_offset is not None else None
        return {"sort": "relevance", "total": ranked.total, "items": ranked.items, "next_cursor": following}
    after = None
    if isinstance(position, dict) and "at" in position:
        try:
            at = in_utc(datetime.fromisoformat(position["at"]))
            after = (bool(position["backfill"]), at, str(position["paper"]))
        except (KeyError, TypeError, ValueError) as error:
            raise BadFeedCursor("not a cursor of the feed") from error
    elif position is not None:
        raise BadFeedCursor("not a cursor of the feed")
    counts = await readers.matches.paper_counts(user_id, follow_id, visited)
    items, last = await matched_page(readers, papers, user_id, follow_id, after, limit, visited)
    following = (
        encode_cursor({"backfill": last[0], "at": last[1].isoformat(), "paper": last[2]}) if last is not None else None
    )
    return {"sort": "newest", **counts, "last_visit": visited, "items": items, "next_cursor": following}
