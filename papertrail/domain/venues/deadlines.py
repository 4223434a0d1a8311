"""Upcoming submission deadlines of the venue catalogue as moments in time: each edition's deadlines read in the zone
it states them in (UTC±N, AoE, PT). Pure: the caller gives "now"."""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

from papertrail.domain.venues.catalogue import Edition, Venue

OFFSET = re.compile(r"^UTC(?:(?P<sign>[+-])(?P<hours>\d{1,2})(?::?(?P<minutes>\d{2}))?)?$")
AOE = timezone(timedelta(hours=-12), "AoE")  # anywhere on Earth: the last zone where the day has not ended


@dataclass(frozen=True, slots=True)
class UpcomingDeadline:
    """One deadline still ahead: the venue, the edition, which deadline (paper or abstract), when (UTC)."""

    venue: Venue
    edition: Edition
    kind: str  # "paper" or "abstract"
    at: datetime  # aware, UTC
    comment: str | None

    @property
    def as_written(self) -> str:
        """The deadline as the venue states it: '2026-01-28 23:59:59 AoE'."""
        local = self.at.astimezone(edition_zone(self.edition.timezone))
        return f"{local:%Y-%m-%d %H:%M:%S} {self.edition.timezone or 'AoE'}"


def edition_zone(name: str | None) -> tzinfo:
    """The zone an edition's deadlines are written in; none stated is read as AoE, the latest a deadline can be."""
    if not name or name == "AoE":
        return AOE
    if name == "PT":
        return ZoneInfo("America/Los_Angeles")
    match = OFFSET.match(name.strip())
    if not match:
        return AOE
    if not match.group("sign"):
        return UTC
    minutes = int(match.group("hours")) * 60 + int(match.group("minutes") or 0)
    return timezone(timedelta(minutes=minutes if match.group("sign") == "+" else -minutes))


def deadline_moment(written: str | None, zone: tzinfo) -> datetime | None:
    """'2026-01-28 23:59:59' in the edition's zone, as an aware UTC time; None when it is no such time."""
    if not written:
        return None
    try:
        moment = datetime.strptime(written.strip(), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return moment.replace(tzinfo=zone).astimezone(UTC)


def upcoming_deadlines(
    venues: Iterable[Venue],
    now: datetime,
    fields: Iterable[str] = (),
    ranks: Iterable[str] = (),
    abstracts: bool = True,
) -> list[UpcomingDeadline]:
    """Every deadline after `now` of the venues of these CCF fields and ranks (all when none given), soonest first."""
    wanted_fields, wanted_ranks = set(fields), set(ranks)
    found = []
    for venue in venues:
        if wanted_fields and venue.field not in wanted_fields:
            continue
        if wanted_ranks and venue.ccf_rank not in wanted_ranks:
            continue
        for edition in venue.editions:
            zone = edition_zone(edition.timezone)
            for deadline in edition.deadlines:
                written = [("paper", deadline.deadline)] + ([("abstract", deadline.abstract_deadline)] * abstracts)
                for kind, text in written:
                    at = deadline_moment(text, zone)
                    if at is not None and at > now:
                        found.append(UpcomingDeadline(venue, edition, kind, at, deadline.comment))
    return sorted(found, key=lambda d: (d.at, d.venue.key, d.kind))


@dataclass(frozen=True, slots=True)
class AwaitedEdition:
    """A venue's next edition whose deadline is not announced yet: its year (an edition listed without a deadline, or
    the one after the last at the venue's usual step) and the last deadline it had."""

    venue: Venue
    year: int
    last: UpcomingDeadline  # the last paper deadline, past


def awaited_editions(
    venues: Iterable[Venue],
    now: datetime,
    followed: Iterable[str] = (),
    fields: Iterable[str] = (),
    ranks: Iterable[str] = (),
) -> list[AwaitedEdition]:
    """The venues followed (by key) or ranked CCF-A, of these fields and ranks, with no deadline after `now` but one
    before: followed first, then by acronym."""
    chosen, wanted_fields, wanted_ranks = set(followed), set(fields), set(ranks)
    found = []
    for venue in venues:
        if venue.key not in chosen and venue.ccf_rank != "A":
            continue
        if (wanted_fields and venue.field not in wanted_fields) or (
            wanted_ranks and venue.ccf_rank not in wanted_ranks
        ):
            continue
        if upcoming_deadlines([venue], now):
            continue
        past = [
            UpcomingDeadline(venue, edition, "paper", at, deadline.comment)
            for edition in venue.editions
            for deadline in edition.deadlines
            if (at := deadline_moment(deadline.deadline, edition_zone(edition.timezone))) is not None
        ]
        if past:
            last = max(past, key=lambda d: d.at)
            found.append(AwaitedEdition(venue, _next_year(venue, last.edition.year), last))
    return sorted(found, key=lambda a: (a.venue.key not in chosen, a.venue.acronym.lower(), a.venue.key))


def _next_year(venue: Venue, last: int) -> int:
    """An edition listed after the last deadline's (announced, its deadline TBD), else the last at the venue's step
    (ICCV and ECCV are biennial)."""
    listed = sorted(e.year for e in venue.editions if e.year > last)
    if listed:
        return listed[0]
    earlier = sorted({e.year for e in venue.editions if e.year < last and e.deadlines})
    step = last - earlier[-1] if earlier else 1
    return last + (step if 1 <= step <= 2 else 1)
