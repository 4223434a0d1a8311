"""Source modules: each fetches pages from a checkpoint and yields raw records with the next checkpoint."""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from schemas.events import RawFormat


@dataclass(frozen=True, slots=True)
class SourceRecord:
    record_id: str
    format: RawFormat
    content: str
    sha256: str
    datestamp: str | None


@dataclass(slots=True)
class SourcePage:
    """One fetched page; `checkpoint` is stored only after every record of the page is published."""

    records: list[SourceRecord]
    checkpoint: dict[str, Any]
    window_from: str | None = None
    window_until: str | None = None
    complete_list_size: int | None = None
    notes: list[str] = field(default_factory=list)


class Source(Protocol):
    name: str

    def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """Pages from the checkpoint (or from `from_date` for a manual backfill)."""
        ...


class SourceRunFailed(Exception):
    """A run cannot go on; the checkpoint stays where the last published page left it."""
