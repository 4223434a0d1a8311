"""A moment a reader writes (a query parameter, a date field, a cursor) as the service compares and stores it: in UTC.
Pure. A moment that parses can still lie outside the years a datetime holds once in UTC (year 1 at +14:00 is in year
0), which MongoDB's encoding and every conversion would fail on: such a moment is refused as a bad value."""

from datetime import UTC, datetime

OUT_OF_RANGE = "out of range: in UTC it falls outside the years 1-9999"


def in_utc(moment: datetime) -> datetime:
    """The moment in UTC (one without an offset is taken as UTC, as MongoDB takes it); ValueError when it falls
    outside the years 1-9999 there."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError as error:
        raise ValueError(OUT_OF_RANGE) from error
