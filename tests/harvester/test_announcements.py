"""arXiv's announcement schedule and the judging of a polled feed: pure functions, a table of moments."""

import datetime as dt

import pytest

from services.harvester.announcements import (
    EASTERN,
    BatchMark,
    Feed,
    FeedEntry,
    Outcome,
    Verdict,
    close_window,
    judge,
    next_watch_window,
)
from services.harvester.sources.atom_feed import MalformedFeed, parse_feed
from tests.support.paths import FIXTURES

LEAD, WATCH = dt.timedelta(minutes=5), dt.timedelta(hours=5)
FEEDS = FIXTURES / "harvester/arxiv_feed"


def utc(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("now", "announced_at"),
    [
        # Monday 2026-03-02 12:00 UTC (EST): tonight at 20:00 EST = 01:00 UTC Tuesday
        ("2026-03-02T12:00:00", "2026-03-03T01:00:00"),
        # Sunday 2026-03-08, the day clocks spring forward: 20:00 EDT = 00:00 UTC Monday
        ("2026-03-08T12:00:00", "2026-03-09T00:00:00"),
        # Saturday 2026-03-07: no announcement Friday or Saturday evening, the next is Sunday's (still EST)
        ("2026-03-07T02:00:00", "2026-03-09T00:00:00"),
        # Friday 2026-10-30 noon: Friday evening is quiet, Sunday 2026-11-01 is the day clocks fall back: EST
        ("2026-10-30T16:00:00", "2026-11-02T01:00:00"),
        # Thursday 2026-10-29 evening EDT, inside the window (20:30 EDT): Thursday's window is the open one
        ("2026-10-30T00:30:00", "2026-10-30T00:00:00"),
        # after Thursday's window closed (5 h): next is Sunday's
        ("2026-10-30T05:00:00", "2026-11-02T01:00:00"),
        # 19:56 EDT Wednesday: the window (opening at 19:55) is already open
        ("2026-07-15T23:56:00", "2026-07-16T00:00:00"),
        # 19:54 EDT Wednesday: not open yet, but it is the next one
        ("2026-07-15T23:54:00", "2026-07-16T00:00:00"),
    ],
)
def test_next_watch_window(now: str, announced_at: str) -> None:
    window = next_watch_window(utc(now), lead=LEAD, watch=WATCH)
    assert window.announced_at == utc(announced_at)
    assert window.opens_at == utc(announced_at) - LEAD and window.closes_at == utc(announced_at) + WATCH
    local = window.announced_at.astimezone(EASTERN)
    assert (local.hour, local.minute) == (20, 0)
    assert window.day == (utc(announced_at) - dt.timedelta(hours=6)).date().isoformat()


def test_every_window_of_a_year_is_an_evening_from_sunday_to_thursday_at_eight_eastern() -> None:
    now, seen = utc("2026-01-01T00:00:00"), []
    while now < utc("2027-01-01T00:00:00"):
        window = next_watch_window(now, lead=LEAD, watch=WATCH)
        local = window.announced_at.astimezone(EASTERN)
        assert (local.hour, local.minute) == (20, 0) and local.strftime("%a") in {"Sun", "Mon", "Tue", "Wed", "Thu"}
        seen.append(window.day)
        now = window.closes_at
    assert len(seen) == len(set(seen)) and 258 <= len(seen) <= 262  # five a week, none twice


def test_a_naive_now_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        next_watch_window(dt.datetime(2026, 3, 2, 12), lead=LEAD, watch=WATCH)


def _feed(category: str, updated: str, *ids: str) -> Feed:
    return Feed(category, updated, [FeedEntry(i, "v1", "new", None, "<entry/>") for i in ids])


def test_a_batch_is_new_only_when_its_ids_differ_and_the_announcement_is_due() -> None:
    yesterday = BatchMark.of(_feed("cs", "2026-03-02T05:00:00+00:00", "2603.00001", "2603.00002"))
    rebuilt = _feed("cs", "2026-03-03T05:00:00+00:00", "2603.00002", "2603.00001")  # fresh build, same ids
    assert judge(rebuilt, yesterday, before_announcement=False) is Verdict.SAME
    tonight = _feed("cs", "2026-03-03T01:00:00+00:00", "2603.00003")
    assert judge(tonight, yesterday, before_announcement=False) is Verdict.NEW
    assert judge(tonight, None, before_announcement=True) is Verdict.EARLIER
    assert judge(tonight, None, before_announcement=False) is Verdict.NEW
    assert judge(_feed("cs", "x"), yesterday, before_announcement=False) is Verdict.EMPTY
    assert BatchMark.from_dict(yesterday.as_dict()) == yesterday and BatchMark.from_dict(None) is None


def test_closing_a_window_tells_a_stale_feed_from_a_holiday() -> None:
    assert close_window({"cs": Verdict.NEW, "math.OC": Verdict.SAME, "q-bio": Verdict.EMPTY}) == {
        "cs": Outcome.ANNOUNCED,
        "math.OC": Outcome.STALE,  # arXiv announced; this feed still serves the last batch
        "q-bio": Outcome.NONE,
    }
    assert close_window({"cs": Verdict.SAME, "math.OC": Verdict.SAME}) == {"cs": Outcome.NONE, "math.OC": Outcome.NONE}


def test_the_documented_feed_parses_into_its_entries() -> None:
    feed = parse_feed((FEEDS / "yesterday.xml").read_bytes(), "math.OC")
    assert feed.updated == "2024-02-23T16:08:30.941605+00:00"
    [entry] = feed.entries
    assert (entry.arxiv_id, entry.version, entry.announce_type) == ("2203.01250", "v3", "replace-cross")
    assert entry.published == "2024-08-23T00:00:00-04:00" and "<arxiv:DOI>10.5802/jep.257" in entry.content
    tonight = parse_feed((FEEDS / "cs_tonight.xml").read_bytes(), "cs")
    assert [(e.arxiv_id, e.version, e.announce_type) for e in tonight.entries] == [
        ("0704.0471", "v1", "new"),
        ("0704.1109", "v2", "replace"),
        ("0704.1114", "v1", "new"),
    ]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<html>busy</html>", "expected an Atom <feed>"),
        (b"not xml", "not XML"),
        (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>urn:x</id></entry></feed>', "entry 0"),
    ],
)
def test_a_body_that_is_no_announcement_feed_is_refused(body: bytes, reason: str) -> None:
    with pytest.raises(MalformedFeed, match=reason):
        parse_feed(body, "cs")
