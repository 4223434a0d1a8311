"""Which saved papers have a version newer than the save ("updated to v3"). Pure."""

from datetime import UTC, datetime

import pytest

from services.query.library.shelf import updated_since_saved

SAVED = datetime(2026, 5, 10, 12, tzinfo=UTC)


def card(current: str | None, *versions: tuple[str, datetime | None]) -> dict[str, object]:
    return {"current_version": current, "versions": list(versions)}


@pytest.mark.parametrize(
    ("paper", "expected"),
    [
        (card("v3", ("v1", datetime(2026, 5, 1, tzinfo=UTC)), ("v3", datetime(2026, 5, 20, tzinfo=UTC))), "v3"),
        (card("v2", ("v1", datetime(2026, 5, 1, tzinfo=UTC)), ("v2", datetime(2026, 5, 9, tzinfo=UTC))), None),
        (card("v2", ("v1", datetime(2026, 5, 1)), ("v2", datetime(2026, 5, 11))), "v2"),  # MongoDB's naive UTC
        (card("v2", ("v1", datetime(2026, 5, 1, tzinfo=UTC)), ("v2", None)), None),  # announced, not dated yet
        (card(None, ("v1", datetime(2026, 5, 20, tzinfo=UTC))), None),  # no version label: nothing to name
        (None, None),  # the paper is gone
    ],
)
def test_updated_since_saved(paper: dict[str, object] | None, expected: str | None) -> None:
    assert updated_since_saved(paper, SAVED) == expected
