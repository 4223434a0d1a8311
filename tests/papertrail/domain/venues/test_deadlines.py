"""Upcoming deadlines of the shipped catalogue (ccf-deadlines' files): each read in the zone its edition states (AoE,
UTC±N, PT), after an injected "now", by field and rank."""

from datetime import UTC, datetime, timedelta, timezone

from papertrail.domain.venues.catalogue import Deadline, Edition, Venue, default_index
from papertrail.domain.venues.deadlines import AOE, awaited_editions, deadline_moment, edition_zone, upcoming_deadlines

NOW = datetime(2026, 1, 20, tzinfo=UTC)


def test_a_deadline_is_read_in_the_zone_its_edition_states() -> None:
    assert edition_zone("AoE") == AOE == edition_zone(None) == edition_zone("no zone")  # the latest reading
    assert edition_zone("UTC") == UTC and edition_zone("UTC+0").utcoffset(None) == timedelta(0)
    assert edition_zone("UTC-12").utcoffset(None) == timedelta(hours=-12)
    assert edition_zone("UTC+8").utcoffset(None) == timedelta(hours=8)
    written = "2026-01-28 23:59:59"
    assert deadline_moment(written, AOE) == datetime(2026, 1, 29, 11, 59, 59, tzinfo=UTC)
    assert deadline_moment(written, edition_zone("PT")) == datetime(2026, 1, 29, 7, 59, 59, tzinfo=UTC)  # PST
    assert deadline_moment("2026-07-01 12:00:00", edition_zone("PT")) == datetime(2026, 7, 1, 19, tzinfo=UTC)  # PDT
    assert deadline_moment("TBD", AOE) is None and deadline_moment(None, AOE) is None


def test_upcoming_deadlines_of_the_catalogue_by_field_and_rank_soonest_first() -> None:
    venues = list(default_index().venues.values())
    found = upcoming_deadlines(venues, NOW, fields=["AI"], ranks=["A"])
    assert found and all(d.venue.field == "AI" and d.venue.ccf_rank == "A" and d.at > NOW for d in found)
    assert [d.at for d in found] == sorted(d.at for d in found)
    icml = [d for d in found if d.venue.key == "AI/icml"]
    assert {d.kind for d in icml} == {"paper", "abstract"} and all(d.edition.year == 2026 for d in icml)
    later = upcoming_deadlines(venues, max(d.at for d in icml), fields=["AI"], ranks=["A"])
    assert not [d for d in later if d.venue.key == "AI/icml"]  # once past, gone
    everything = upcoming_deadlines(venues, NOW)
    assert len(everything) > len(found) and {d.venue.field for d in everything} > {"AI"}


def test_a_deadline_shows_as_its_venue_wrote_it() -> None:
    edition = Edition(year=2026, timezone="UTC-12", deadlines=[Deadline(deadline="2026-07-28 23:59:59")])
    venue = Venue(key="AI/x", acronym="X", name="X", editions=[edition])
    (row,) = upcoming_deadlines([venue], NOW)
    assert row.at == datetime(2026, 7, 29, 11, 59, 59, tzinfo=UTC) and row.as_written == "2026-07-28 23:59:59 UTC-12"
    assert row.at.astimezone(timezone(timedelta(hours=8))).strftime("%Y-%m-%d %H:%M") == "2026-07-29 19:59"


def test_a_followed_or_ccf_a_venue_without_an_upcoming_deadline_awaits_its_next_edition() -> None:
    september = datetime(2026, 9, 1, tzinfo=UTC)
    venues = list(default_index().venues.values())
    found = {a.venue.key: a for a in awaited_editions(venues, september, fields=["AI"])}
    assert {v.ccf_rank for v in (a.venue for a in found.values())} == {"A"}  # no follows: CCF-A only
    icml = found["AI/icml"]
    assert (icml.year, icml.last.edition.year, icml.last.as_written) == (2027, 2026, "2026-01-29 11:59:59 UTC+0")
    assert found["AI/iccv"].year == 2027  # biennial: its last deadline was ICCV 2025's
    assert found["AI/aaai"].year == 2028  # AAAI 2027's deadline was in July 2026
    assert not upcoming_deadlines([v for v in venues if v.key in found], september)
    # a followed venue of another rank comes first; one with a deadline ahead is not awaited
    followed = awaited_editions(venues, september, followed=["AI/ijcai", "AI/ijcnn"], fields=["AI"])
    assert (followed[0].venue.key, followed[0].venue.ccf_rank, followed[0].year) == ("AI/ijcai", "B", 2027)
    assert [a.venue.key for a in followed[1:]] == list(found)  # then the CCF-A ones, by acronym
    assert upcoming_deadlines([default_index().venues["AI/ijcnn"]], september)  # IJCNN 2027's is ahead: not awaited


def test_an_edition_listed_with_its_deadline_tbd_is_the_one_awaited() -> None:
    held = Edition(year=2025, timezone="UTC-12", deadlines=[Deadline(deadline="2025-01-30 23:59:59")])
    announced = Edition(year=2026, deadlines=[Deadline(deadline=None)])  # 'TBD' in the file
    venue = Venue(key="SE/x", acronym="X", name="X", ccf_rank="B", editions=[held, announced])
    assert awaited_editions([venue], NOW) == []  # neither followed nor CCF-A
    (awaited,) = awaited_editions([venue], NOW, followed=["SE/x"])
    assert (awaited.year, awaited.last.edition.year) == (2026, 2025)
