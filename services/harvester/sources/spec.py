"""What a source module registers: its name, how it is built from the shared parts, its interval, its formats."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from schemas.events import RawFormat
from services.harvester.announced import AnnouncedPapers
from services.harvester.citation_queue import CitationQueue
from services.harvester.first_pages import FirstPageQueue
from services.harvester.http import PoliteFetcher
from services.harvester.runner import Publishing
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import Source
from services.harvester.store import VenueCatalogueStore


@dataclass(frozen=True, slots=True)
class SourceParts:
    """What sources are built from. `arxiv` is the process's one arXiv fetcher (OAI-PMH, GetRecord, the feeds and
    the HTML pages all keep arXiv's one request per 3 s through it); `fetcher(pace)` makes a source its own. The
    queues and stores are the database's, or None where a caller builds sources that need none."""

    settings: HarvesterSettings
    fetcher: Callable[[float], PoliteFetcher]
    arxiv: PoliteFetcher
    first_pages: FirstPageQueue | None = None
    citations: CitationQueue | None = None
    venue_catalogue: VenueCatalogueStore | None = None
    announced: AnnouncedPapers | None = None


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """One source as the scheduler knows it. `schedule` is how it runs: on its interval, or once per arXiv
    announcement (`announcements`: the source is an `ArxivAnnouncementSource`). `publishing` wraps what every
    running source publishes through while this one runs (the announcement ledger, the first-page queue);
    `init_metrics` sets its own series at zero when the schedules start."""

    name: str
    build: Callable[[SourceParts], Source]
    interval_s: Callable[[HarvesterSettings], float]
    formats: tuple[RawFormat, ...]
    settings: str  # the prefix of the settings it reads (PMLR_…), for the docs and the reader
    schedule: Literal["interval", "announcements"] = "interval"
    publishing: Callable[[Publishing, SourceParts], Publishing] | None = None
    init_metrics: Callable[[HarvesterSettings, bool], None] | None = None


T = TypeVar("T")


def needed(part: T | None, message: str) -> T:
    """The part a source reads, or the error saying which one its caller did not give."""
    if part is None:
        raise ValueError(message)
    return part
