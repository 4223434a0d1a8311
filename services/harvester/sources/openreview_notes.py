"""OpenReview API v2 notes (`/notes?content.venueid=<venue>`) → one raw record per accepted note. No I/O.

An answer is `{"notes": [...], "count": N}`; each note is a JSON object whose `content` fields are `{"value": …}`.
A venue's accepted papers are the notes whose `content.venueid` is the venue's id (`ICLR.cc/2025/Conference`);
rejected, withdrawn and pending ones carry another (`…/Rejected_Submission`, `…/Submission`) and are left out
here, each named with why, as is a note without an id. Each kept note travels as the API wrote it (`json.dumps`,
key order kept), id = the note's id, datestamp = its publication day (`pdate`) when it has one.
"""

import datetime as dt
import json
from typing import Any

from services.harvester.sources import SourceRecord


class MalformedNotesPage(Exception):
    """The body is not the `{"notes": [...]}` object the notes API answers with."""


def _value(content: Any, name: str) -> Any:
    field = content.get(name) if isinstance(content, dict) else None
    return field.get("value") if isinstance(field, dict) else None


def _day(millis: Any) -> str | None:
    if isinstance(millis, int) and not isinstance(millis, bool) and millis > 0:
        return dt.datetime.fromtimestamp(millis / 1000, dt.UTC).date().isoformat()
    return None


def split_notes(body: bytes, venue_id: str) -> tuple[list[SourceRecord], list[str], int]:
    """The accepted notes of one answer, the ones left out ("what: why"), and how many notes the answer held (a page
    shorter than asked for is the last)."""
    try:
        answer: Any = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedNotesPage(f"not JSON: {exc}") from exc
    notes = answer.get("notes") if isinstance(answer, dict) else None
    if not isinstance(notes, list):
        raise MalformedNotesPage(f'expected an object with a "notes" list, got {type(answer).__name__}')
    records: list[SourceRecord] = []
    skipped: list[str] = []
    for position, note in enumerate(notes):
        note_id = note.get("id") if isinstance(note, dict) else None
        if not isinstance(note_id, str) or not note_id:
            skipped.append(f"{venue_id} note {position}: no id")
            continue
        venueid = _value(note.get("content"), "venueid")
        if venueid != venue_id:
            skipped.append(f"{venue_id} {note_id}: venueid {venueid!r}, not an accepted paper of the venue")
            continue
        content = json.dumps(note, ensure_ascii=False)
        records.append(SourceRecord.of(note_id, "openreview_note", content, _day(note.get("pdate"))))
    return records, skipped, len(notes)
