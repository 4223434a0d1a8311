"""What a parser makes of one source record: the source's view of a work, before merging. No I/O."""

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from papertrail.domain.paper_ids import arxiv_id_month
from schemas.events import RawRecord
from schemas.paper import (
    Author,
    Citations,
    CommunityPick,
    CommunitySummary,
    Paper,
    PaperIds,
    PaperVersion,
    PublicationStatus,
    PublishedIn,
    SourceVersion,
)

PublishedFrom = Literal["versions", "listing", "id_month"]
# a version's date is the truth; a listing day comes after it, an id's month is its month's first day
PUBLISHED_STRENGTH: dict[str | None, int] = {None: 0, "id_month": 1, "listing": 2, "versions": 3}


@dataclass(frozen=True, slots=True)
class PageAuthor:
    """One author as the paper's first page names them, with the affiliations and emails written beside the name."""

    name: str
    affiliations: tuple[str, ...] = ()
    emails: tuple[str, ...] = ()


class UnparseableRecord(ValueError):
    """The raw record cannot be turned into a parsed record; it goes to the dead-letter topic."""


def json_content(content: str, what: str) -> Any:
    """A JSON record's content read; UnparseableRecord naming `what` when it is not JSON."""
    try:
        return json.loads(content)
    except json.JSONDecodeError as exc:
        raise UnparseableRecord(f"{what} is not JSON: {exc}") from exc


@dataclass(slots=True)
class ParsedRecord:
    source: str
    record_id: str
    ids: PaperIds
    title: str
    abstract: str = ""
    authors: list[Author] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    comments: str | None = None
    journal_ref: str | None = None
    license: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    versions: list[SourceVersion] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    status: PublicationStatus = "preprint"
    published_in: PublishedIn | None = None  # the volume a published record prints the paper in
    community: CommunityPick | None = None
    community_summary: CommunitySummary | None = None  # another system's Chinese summary (daily-arXiv-ai-enhanced)
    is_front_matter: bool = False
    original: dict[str, str] = field(default_factory=dict)  # title/abstract as the source wrote them
    listed_on: datetime | None = None  # the day a daily listing announced the paper (the corpus' files)
    dropped_links: dict[str, str] = field(default_factory=dict)  # the source's links that were no http(s) URL
    # a first-page record (arXiv's HTML author block): no paper of its own, only its authors' affiliations for the
    # paper its id names; None for every other record
    page_authors: list[PageAuthor] | None = None
    # a citation count (Semantic Scholar) for the paper its id names, and nothing else of it; None for other records
    citations: Citations | None = None

    @property
    def completes_only(self) -> bool:
        """A record that completes a paper it names (a first page, a citation count) and never starts or joins one
        by its title: it has none."""
        return self.page_authors is not None or self.citations is not None

    @property
    def latest_version(self) -> SourceVersion | None:
        return self.versions[-1] if self.versions else None

    @property
    def first_published(self) -> tuple[datetime, PublishedFrom] | None:
        """When the work was first published, and from what: its first version's date; else, for an arXiv paper, the
        listing day it was announced on (a corpus line has no versions), else its id's month (yymm)."""
        return first_published(self.versions, self.listed_on, self.ids.arxiv)


def first_published(
    versions: list[SourceVersion], listed_on: datetime | None, arxiv_id: str | None
) -> tuple[datetime, PublishedFrom] | None:
    """The first-published date of a record or a stored paper (migration 6), and its basis, surest first."""
    dates = [v.date for v in versions if v.date is not None]
    if dates:
        return min(dates), "versions"
    if listed_on is not None:
        return listed_on, "listing"
    month = arxiv_id_month(arxiv_id) if arxiv_id else None
    return (month, "id_month") if month else None


@dataclass(slots=True)
class Incoming:
    """A raw record from the topic and what its parser made of it."""

    raw: RawRecord
    record: ParsedRecord
    origin: Any = None  # the consumed Kafka record, for the dead-letter topic

    @property
    def source_key(self) -> str:
        return f"{self.raw.source}:{self.raw.record_id}"


@dataclass(slots=True)
class StoredPaper:
    """A paper as read from the store, with what optimistic concurrency and recovery need."""

    paper: Paper
    rev: int
    version_count: int
    fingerprints: list[str]
    last_versions: list[PaperVersion]  # the version records of the last write, kept until recorded
