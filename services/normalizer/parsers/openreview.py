"""Parser for OpenReview records: one API v2 note of a venue's accepted papers. Pure function.

The decision is the note's `content.venueid`: the venue's own id (`ICLR.cc/2025/Conference`) for an accepted paper,
`…/Submission`, `…/Rejected_Submission`, `…/Withdrawn_Submission` for the others, which are refused. An accepted
note is published at its venue, named as the accepted-venue filters, venue follows and citations read it: the
catalogue's acronym of the venue id's host (`ICLR.cc` → ICLR, `colmweb.org/COLM` → COLM) and its year, then the
track the id names after the year (`Workshop/RegML` → "Workshop on RegML", `Datasets_and_Benchmarks_Track`), then
the presentation the decision gave (`content.venue` "ICLR 2025 Oral" → "(Oral)"): "ICLR 2025 (Oral)",
"NeurIPS 2025 Workshop on RegML (Poster)". The forum id is the paper's OpenReview id.
"""

import json
import re
from datetime import UTC, datetime
from typing import Any

from papertrail.domain.names import make_author
from papertrail.domain.text import readable
from papertrail.domain.venues.catalogue import default_index
from schemas.paper import Author, PaperIds, SourceVersion
from services.normalizer.records import ParsedRecord, UnparseableRecord

OPENREVIEW = "https://openreview.net"
_YEAR = re.compile(r"(?:19|20)\d{2}")
# the presentation a decision names in `content.venue` ("ICLR 2025 Oral", "ICML 2025 spotlightposter")
_PRESENTATION = re.compile(r"\b(oral|spotlight|highlight|poster)", re.IGNORECASE)


def _value(content: dict[str, Any], name: str) -> Any:
    field = content.get(name)
    return field.get("value") if isinstance(field, dict) else None


def _text(content: dict[str, Any], name: str) -> str:
    value = _value(content, name)
    return value if isinstance(value, str) else ""


def _moment(millis: Any) -> datetime | None:
    if isinstance(millis, int) and not isinstance(millis, bool) and millis > 0:
        return datetime.fromtimestamp(millis / 1000, UTC)
    return None


def is_accepted(venueid: str) -> bool:
    """Whether a note's venueid is a venue's decision to accept, not a submission's state."""
    return bool(venueid) and not venueid.rsplit("/", 1)[-1].endswith("Submission")


def venue_name(venueid: str, decision: str) -> tuple[str, int | None]:
    """The venue an accepted note is published at, and its year: `ICLR.cc/2025/Conference` with the decision
    "ICLR 2025 Oral" → ("ICLR 2025 (Oral)", 2025)."""
    parts = venueid.split("/")
    at = next((i for i, part in enumerate(parts) if _YEAR.fullmatch(part)), len(parts))
    host, rest = parts[:at], parts[at + 1 :]
    index = default_index()
    venue = next(
        (found for part in reversed(host) for name in (part, part.split(".")[0]) if (found := index.resolve(name))),
        None,
    )
    acronym = venue.acronym if venue else (host[-1].split(".")[0] if host else venueid)
    year = int(parts[at]) if at < len(parts) else None
    if rest[:1] == ["Workshop"] and len(rest) > 1:
        track = "Workshop on " + " ".join(rest[1:]).replace("_", " ")
    else:
        track = " ".join(part.replace("_", " ") for part in rest if part != "Conference")
    name = " ".join(str(word) for word in (acronym, year, track) if word)
    presentation = _PRESENTATION.search(decision)
    return (f"{name} ({presentation.group(1).capitalize()})" if presentation else name), year


def _authors(content: dict[str, Any]) -> list[Author]:
    names = _value(content, "authors")
    ids = _value(content, "authorids")
    ids = ids if isinstance(ids, list) and isinstance(names, list) and len(ids) == len(names) else []
    authors = []
    for position, name in enumerate(names if isinstance(names, list) else []):
        if not isinstance(name, str) or not name.strip():
            continue
        profile = ids[position] if ids else None
        # a profile id (`~Ada_Lovelace1`) names the author on OpenReview; an email address there is not kept
        source_ids = {"openreview": profile} if isinstance(profile, str) and profile.startswith("~") else {}
        authors.append(make_author(name.strip(), source_ids=source_ids))
    return authors


def parse_openreview(content: str) -> ParsedRecord:
    """One note → parsed record; one that is not an accepted paper, or has no id or title, is refused with why."""
    try:
        note: Any = json.loads(content)
    except json.JSONDecodeError as exc:
        raise UnparseableRecord(f"not JSON: {exc}") from exc
    if not isinstance(note, dict) or not isinstance(note.get("content"), dict):
        raise UnparseableRecord("not an OpenReview note (an object with a `content` object)")
    fields: dict[str, Any] = note["content"]
    note_id = note.get("id")
    if not isinstance(note_id, str) or not note_id:
        raise UnparseableRecord("OpenReview note without an id")
    venueid = _text(fields, "venueid")
    if not is_accepted(venueid):
        raise UnparseableRecord(f"{note_id}: venueid {venueid!r} is no acceptance")
    title_raw = _text(fields, "title")
    title = readable(title_raw)
    if not title:
        raise UnparseableRecord(f"{note_id}: no title")
    forum = note.get("forum") if isinstance(note.get("forum"), str) and note.get("forum") else note_id
    venue, year = venue_name(venueid, _text(fields, "venue"))
    # the forum page carries the PDF; no `pdf` link of its own, which would take turns with the preprint's
    links = {"openreview": f"{OPENREVIEW}/forum?id={forum}"}
    published = _moment(note.get("pdate")) or _moment(note.get("odate")) or _moment(note.get("cdate"))
    abstract_raw = _text(fields, "abstract")
    return ParsedRecord(
        source="openreview",
        record_id=note_id,
        ids=PaperIds(openreview=forum),
        title=title,
        abstract=readable(abstract_raw),
        authors=_authors(fields),
        links=links,
        versions=[SourceVersion(source="openreview", label="v1", date=published)],
        venue=venue,
        year=year,
        status="published",
        original={"title": title_raw, "abstract": abstract_raw},
    )
