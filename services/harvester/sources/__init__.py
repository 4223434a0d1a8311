"""Sources: each adapter (arxiv, acl, hf) fetches pages from a checkpoint and yields raw records with the next
checkpoint; the pure page parsers it reads them with (oai, anthology, daily_papers) sit beside it."""

import hashlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from schemas.events import AnnouncementReport, RawFormat

PAGE_SIZE = 500  # records per published batch of a source read whole, part by part (digested_pages)


@dataclass(frozen=True, slots=True)
class SourceRecord:
    record_id: str
    format: RawFormat
    content: str
    sha256: str
    datestamp: str | None
    # the source the record comes from when it is not the run's own (an arXiv record fetched for a Hugging Face
    # pick): it is published as that source's record, keyed `source:record_id`
    source: str | None = None

    @classmethod
    def of(cls, record_id: str, format: RawFormat, content: str, datestamp: str | None) -> "SourceRecord":
        """A record with its sha256 computed from `content` (UTF-8), as harvest.raw.v1 carries it."""
        return cls(record_id, format, content, hashlib.sha256(content.encode("utf-8")).hexdigest(), datestamp)


@dataclass(slots=True)
class SourcePage:
    """One fetched page; `checkpoint` is stored only after every record of the page is published."""

    records: list[SourceRecord]
    checkpoint: dict[str, Any]
    window_from: str | None = None
    window_until: str | None = None
    complete_list_size: int | None = None
    notes: list[str] = field(default_factory=list)
    announcement: AnnouncementReport | None = None  # the watcher's closing page: the run's status carries it
    skipped: list[str] = field(default_factory=list)  # "what: why" of each thing read and left out: the status names it


class Source(Protocol):
    name: str

    def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """Pages from the checkpoint (or from `from_date` for a manual backfill)."""
        ...


class SourceRunFailed(Exception):
    """A run cannot go on; the checkpoint stays where the last published page left it."""


def digested_pages(
    records: list[SourceRecord],
    notes: list[str],
    *,
    digests: dict[str, dict[str, Any]],
    key: str,
    part: str,
    digest: str,
    skipped: list[str] | None = None,
) -> Iterator[SourcePage]:
    """The records of one part of a source read whole (a volume file, a venue's accepted papers), PAGE_SIZE a page,
    with the checkpoint `{key: digests}`; the part's sha256 goes into `digests` with its last page only, so a run that
    fails between two pages reads the part again. Its notes and what it left out (`skipped`) go with its first page."""
    for start in range(0, max(len(records), 1), PAGE_SIZE):
        if start + PAGE_SIZE >= len(records):
            digests[part] = {"sha256": digest}
        yield SourcePage(
            records=records[start : start + PAGE_SIZE],
            checkpoint={key: {k: dict(v) for k, v in digests.items()}},
            complete_list_size=len(records),
            notes=notes if start == 0 else [],
            skipped=(skipped or []) if start == 0 else [],
        )
