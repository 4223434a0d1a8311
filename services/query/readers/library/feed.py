"""The reader's feed, as the API and the feed page show it: newest matches of their follows, or 为你推荐 (ranked by
their model), one cursor page at a time with the total. A reader with no model yet gets the follows-based feed."""

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
) -> dict[str, Any]:
    """One page: `sort` says which feed answered (relevance falls back to newest when the reader has no model);
    BadFeedCursor for a cursor this feed did not hand out."""
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
    if isinstance(position, dict) and "matched_at" in position:
        try:
            after = (in_utc(datetime.fromisoformat(position["matched_at"])), str(position["id"]))
        except (KeyError, TypeError, ValueError) as error:
            raise BadFeedCursor("not a cursor of the feed") from error
    elif position is not None:
        raise BadFeedCursor("not a cursor of the feed")
    items, total, following_match = await matched_page(readers, papers, user_id, follow_id, after, limit)
    following = (
        encode_cursor({"matched_at": following_match[0].isoformat(), "id": following_match[1]})
        if following_match
        else None
    )
    return {"sort": "newest", "total": total, "items": items, "next_cursor": following}
