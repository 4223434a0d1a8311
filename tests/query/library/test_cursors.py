"""The library's and the feed's cursors: what is handed out reads back as the same place, every text of the pattern
the API's document states is a place (so a client generated from it sends none the API refuses), other text is
refused. Pure."""

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.query.library.feed import FEED_CURSOR_PATTERN, FeedCursor
from services.query.library.shelf import LIBRARY_CURSOR_PATTERN, BadCursor, LibraryCursor
from services.query.recommender.recommend import BadFeedCursor

# as MongoDB hands a moment back: to the millisecond, in UTC
MOMENTS = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(5000, 1, 1), timezones=st.just(UTC)).map(
    lambda moment: moment.replace(microsecond=moment.microsecond // 1000 * 1000)
)


@given(saved_at=MOMENTS, user=st.text(min_size=1, max_size=40), paper=st.text(min_size=1, max_size=300))
def test_a_library_cursor_reads_back_as_the_entry_it_was_made_after(saved_at: datetime, user: str, paper: str) -> None:
    cursor = LibraryCursor(saved_at, f"{user}/{paper}").encode()
    assert re.fullmatch(LIBRARY_CURSOR_PATTERN, cursor)
    assert LibraryCursor.decode(cursor) == LibraryCursor(saved_at, f"{user}/{paper}")


@given(text=st.from_regex(LIBRARY_CURSOR_PATTERN, fullmatch=True))
def test_every_text_of_the_library_cursor_pattern_is_a_place_in_the_list(text: str) -> None:
    place = LibraryCursor.decode(text)
    assert place.saved_at.tzinfo is UTC and isinstance(place.entry_id, str)


@given(at=MOMENTS, backfill=st.booleans(), paper_id=st.text(min_size=1, max_size=300), offset=st.integers(0, 9999))
def test_a_feed_cursor_reads_back_as_the_place_it_was_made_at(
    at: datetime, backfill: bool, paper_id: str, offset: int
) -> None:
    for place in (FeedCursor((backfill, at, paper_id)), FeedCursor(offset=offset)):
        cursor = place.encode()
        assert re.fullmatch(FEED_CURSOR_PATTERN, cursor)
        assert FeedCursor.decode(cursor) == place


@given(text=st.from_regex(FEED_CURSOR_PATTERN, fullmatch=True))
def test_every_text_of_the_feed_cursor_pattern_is_a_place_in_a_feed(text: str) -> None:
    place = FeedCursor.decode(text)
    if "." in text:
        assert place.offset == 0 and place.after is not None and place.after[1].tzinfo is UTC
        assert isinstance(place.after[0], bool) and isinstance(place.after[2], str)  # the paper it comes after
    else:
        assert place == FeedCursor(offset=int(text))


@pytest.mark.parametrize("text", ["", "nonsense", "x!", "1.A", "123.abcde", "-5", "1.2.3", "١٢٣.abcd", "12 .ab"])
def test_other_text_is_no_library_cursor(text: str) -> None:
    with pytest.raises(BadCursor):
        LibraryCursor.decode(text)


@pytest.mark.parametrize(
    "text", ["", "x!", "10000", "-1", "12.abc", "2.12.abcd", "0.12.A", f"0.123456789012345.{'a' * 24}", "0.1.ab!"]
)
def test_other_text_is_no_feed_cursor(text: str) -> None:
    with pytest.raises(BadFeedCursor):
        FeedCursor.decode(text)
