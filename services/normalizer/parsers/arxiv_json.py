"""Parsers for arXiv metadata as JSON lines: the Kaggle arXiv snapshot and the daily-listing corpus. Pure.

Kaggle lines carry what arXivRaw carries (versions with dates, DOIs, journal-ref, license, names already
split in `authors_parsed`). Corpus lines (`../shared/corpus`) are one paper as listed on one day: no
versions; their `AI` Chinese summary is ignored here (summaries belong to the summarizer).
"""

import json
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from papertrail.domain.names import make_author, split_author_list
from papertrail.domain.paper_ids import ARXIV_VERSION
from papertrail.domain.text import readable, squash
from schemas.events import RawRecord
from schemas.paper import PaperIds, SourceVersion
from services.normalizer.links import found_links, link_kind
from services.normalizer.parsers.arxiv_oai import (
    _rfc2822,
    arxiv_id,
    arxiv_links,
    publication_status,
    split_dois,
)
from services.normalizer.records import ParsedRecord, UnparseableRecord


def _line(content: str) -> dict[str, Any]:
    try:
        value = json.loads(content)
    except json.JSONDecodeError as exc:
        raise UnparseableRecord(f"not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UnparseableRecord("expected a JSON object")
    return value


def _title(identifier: str, value: Any) -> str:
    title = readable(value if isinstance(value, str) else "")
    if not title:
        raise UnparseableRecord(f"arXiv {identifier}: empty title")
    return title


def parse_kaggle_arxiv(raw: RawRecord) -> ParsedRecord:
    """One line of the Kaggle arXiv metadata snapshot → parsed record."""
    line = _line(raw.content)
    identifier = arxiv_id(ARXIV_VERSION.sub("", str(line.get("id") or "")))
    parsed_names = line.get("authors_parsed") or []
    if parsed_names:
        authors = [
            make_author(" ".join(p for p in (given, family, suffix) if p), given=given, family=family)
            for family, given, suffix, *_ in ([*(readable(n) for n in names), "", ""][:3] for names in parsed_names)
            if family
        ]
    else:
        authors = split_author_list(line.get("authors") or "")
    versions = [
        SourceVersion(source="arxiv", label=str(v.get("version") or f"v{i}"), date=_rfc2822(v.get("created")))
        for i, v in enumerate(line.get("versions") or [], start=1)
    ]
    dois = split_dois(line.get("doi"))
    journal_ref = squash(line.get("journal-ref")) or None
    first = min((v.date for v in versions if v.date), default=None)
    return ParsedRecord(
        source="arxiv",
        record_id=identifier,
        ids=PaperIds(arxiv=identifier, dois=dois),
        title=_title(identifier, line.get("title")),
        abstract=readable(line.get("abstract")),
        authors=authors,
        categories=str(line.get("categories") or "").split(),
        comments=squash(line.get("comments")) or None,
        journal_ref=journal_ref,
        license=squash(line.get("license")) or None,
        links=arxiv_links(identifier) | ({"doi": f"https://doi.org/{dois[0]}"} if dois else {}),
        versions=versions,
        year=first.year if first else None,
        status=publication_status(journal_ref, dois),
        original={"title": line.get("title") or "", "abstract": line.get("abstract") or ""},
    )


def _listed_link(code_url: str, found: dict[str, str]) -> dict[str, str]:
    """The listing's `code_url` under its kind, unless the abstract or comments give a link of that kind.

    The listing found `code_url` in the same abstract and comments, and not well: in the May 2026 corpus 104 of
    613 are project pages (`….github.io`) and 63 lost characters at the end ("…/vkspla" for "…/vksplat").
    """
    kind = link_kind(code_url) if code_url else None
    return {kind: code_url} if kind is not None and kind not in found else {}


def parse_corpus_line(raw: RawRecord) -> ParsedRecord:
    """One line of the daily-listing corpus → parsed record (no versions: a listing does not say which)."""
    line = _line(raw.content)
    identifier = arxiv_id(ARXIV_VERSION.sub("", str(line.get("id") or "")))
    categories = line.get("categories") or []
    names = line.get("authors") or []
    if not isinstance(categories, list) or not isinstance(names, list):
        raise UnparseableRecord(f"arXiv {identifier}: categories and authors must be lists")
    abstract, comments = readable(line.get("summary")), squash(line.get("comment")) or None
    links = arxiv_links(identifier) | _listed_link(str(line.get("code_url") or ""), found_links(abstract, comments))
    # New-style ids start with yymm, which is the month of the first version.
    year = 2000 + int(identifier[:2]) if identifier[:4].isdigit() else None
    return ParsedRecord(
        source="arxiv",
        record_id=identifier,
        ids=PaperIds(arxiv=identifier),
        title=_title(identifier, line.get("title")),
        abstract=abstract,
        authors=[make_author(name) for n in names if isinstance(n, str) and (name := readable(n))],
        categories=[str(c) for c in categories],
        comments=comments,
        links=links,
        year=year,
        original={"title": line.get("title") or "", "abstract": line.get("summary") or ""},
        listed_on=_listing_day(raw.datestamp),
    )


@lru_cache(maxsize=64)  # one datestamp for every line of a day's file
def _listing_day(datestamp: str | None) -> datetime | None:
    """The listing day a corpus line was announced on: its file's date, which the import gives as datestamp."""
    try:
        return datetime.strptime(datestamp or "", "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return None
