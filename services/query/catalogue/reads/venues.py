"""The venue catalogue as the API and the pages show it: venues by field, rank and name, one venue with its editions,
and the upcoming deadlines (会议截稿) of a field and rank, with the followed and CCF-A venues whose next deadline is not
announced yet. No I/O: the caller gives the catalogue as it stands (`repositories.VenueCatalogue`)."""

from datetime import datetime

from pydantic import BaseModel, Field

from papertrail.domain.venues.catalogue import CcfField, CcfRank, Venue, fold
from papertrail.domain.venues.deadlines import AwaitedEdition, UpcomingDeadline, awaited_editions, upcoming_deadlines

VENUE_KEY_PATTERN = r"^[A-Za-z]{2,8}/[a-z0-9][a-z0-9\-_.&+]{0,63}$"
FIELD_NAMES: dict[str, tuple[str, str]] = {
    "AI": ("人工智能", "Artificial intelligence"),
    "CG": ("计算机图形学与多媒体", "Graphics and multimedia"),
    "CT": ("计算机科学理论", "Theory of computer science"),
    "DB": ("数据库/数据挖掘/内容检索", "Databases, data mining, information retrieval"),
    "DS": ("计算机体系结构/并行与分布计算/存储系统", "Architecture, parallel and distributed computing, storage"),
    "HI": ("人机交互与普适计算", "Human-computer interaction and ubiquitous computing"),
    "MX": ("交叉/综合/新兴", "Interdisciplinary and emerging"),
    "NW": ("计算机网络", "Computer networks"),
    "SC": ("网络与信息安全", "Network and information security"),
    "SE": ("软件工程/系统软件/程序设计语言", "Software engineering, systems software, programming languages"),
}


class VenueSummary(BaseModel):
    """A venue of the catalogue without its editions (GET /api/venues/{key} has them)."""

    key: str = Field(examples=["AI/icml"])
    acronym: str = Field(examples=["ICML"])
    name: str = Field(examples=["International Conference on Machine Learning"])
    aliases: list[str] = []
    type: str = Field(examples=["conference"])
    field: CcfField | None = Field(None, description="the CCF field", examples=["AI"])
    ccf_rank: CcfRank | None = Field(None, examples=["A"])
    core_rank: str | None = Field(None, examples=["A*"])
    thcpl_rank: str | None = Field(None, examples=["A"])
    dblp: str | None = Field(None, examples=["icml"])
    latest_year: int | None = Field(None, description="the newest edition the catalogue holds", examples=[2026])


class VenueQuery(BaseModel):
    """Which venues: by CCF field and rank (any of each) and by a name or part of one."""

    field: list[CcfField] = Field([], description="CCF fields (any of), e.g. AI")
    ccf_rank: list[CcfRank] = Field([], description="CCF ranks (any of), e.g. A")
    q: str = Field("", max_length=200, description="part of the acronym, full name or an alias, e.g. 'learning'")


class DeadlineQuery(BaseModel):
    """Which deadlines: of venues of these CCF fields and ranks (all when none)."""

    field: list[CcfField] = Field([], description="CCF fields (any of), e.g. AI")
    ccf_rank: list[CcfRank] = Field([], description="CCF ranks (any of), e.g. A")


def summary(venue: Venue) -> VenueSummary:
    latest = max((e.year for e in venue.editions), default=None)
    return VenueSummary(**venue.model_dump(exclude={"editions"}), latest_year=latest)


def find_venues(query: VenueQuery, venues: list[Venue]) -> list[VenueSummary]:
    """Venues of the catalogue meeting the query, CCF rank (A first), then acronym."""
    words = fold(query.q)
    found = []
    for venue in venues:
        if query.field and venue.field not in query.field:
            continue
        if query.ccf_rank and venue.ccf_rank not in query.ccf_rank:
            continue
        if words and not any(words in fold(name) for name in (venue.acronym, venue.name, *venue.aliases)):
            continue
        found.append(venue)
    found.sort(key=lambda v: (v.ccf_rank or "Z", v.acronym.lower(), v.key))
    return [summary(v) for v in found]


def venue_by_key(key: str, venues: list[Venue]) -> Venue | None:
    return next((venue for venue in venues if venue.key == key), None)


def deadlines(query: DeadlineQuery, now: datetime, venues: list[Venue]) -> list[UpcomingDeadline]:
    """The catalogue's deadlines after `now` of the fields and ranks asked, soonest first."""
    return upcoming_deadlines(venues, now, query.field, query.ccf_rank)


def awaited(query: DeadlineQuery, now: datetime, venues: list[Venue], followed: set[str]) -> list[AwaitedEdition]:
    """The venues of the fields and ranks asked, followed or CCF-A, whose next deadline is not announced yet."""
    return awaited_editions(venues, now, followed, query.field, query.ccf_rank)
