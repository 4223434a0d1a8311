"""A reader's library as the API and pages show it: entries, tags, the list's filters and its cursor. Pure.

An entry is keyed by the paper's canonical id; saving it again changes only what the reader gave (tags, note), so a
repeated PUT leaves the same entry. Feedback is one record per reader and paper: its label (saved = positive, not
relevant = negative, or none) and whether and when the reader marked it read.
"""

import base64
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from services.query.moments import in_utc

MAX_TAGS = 20
MAX_TAG_LENGTH = 40
MAX_NOTE_LENGTH = 10_000
MAX_TEXT_FILTER = 200
# What a one-click mark does (the 收藏 / 不相关 / 已读 buttons, and `PUT /api/me/feedback/{id}`).
Mark = Literal["save", "not_relevant", "read", "unread", "remove"]
Label = Literal["positive", "negative"]


class BadCursor(ValueError):
    """Text that is no cursor of the list (LIBRARY_CURSOR_PATTERN)."""


def clean_tags(tags: list[str]) -> list[str]:
    """Tags as stored: trimmed, inner spaces folded, case kept, each once in the order given, blanks dropped."""
    return list(dict.fromkeys(" ".join(tag.split()) for tag in tags if tag.strip()))


def tags_from_text(text: str) -> list[str]:
    """The tags of a form's text field: separated by commas (ASCII or Chinese) or new lines."""
    return clean_tags(re.split(r"[,，;；\n]", text))


class EntryChange(BaseModel):
    """What a reader gives when saving a paper; a field left out keeps its value (so a second PUT changes nothing)."""

    tags: list[str] | None = Field(None, max_length=MAX_TAGS, description="the entry's tags (replacing the old ones)")
    note: str | None = Field(None, max_length=MAX_NOTE_LENGTH, description="a note of the reader's")

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: list[str] | None) -> list[str] | None:
        if tags is None:
            return None
        cleaned = clean_tags(tags)
        if any(len(tag) > MAX_TAG_LENGTH for tag in cleaned):
            raise ValueError(f"a tag is at most {MAX_TAG_LENGTH} characters")
        return cleaned


def changed_fields(entry: dict[str, Any] | None, change: EntryChange) -> dict[str, Any]:
    """The fields a save sets: what differs from the stored entry (everything for a new one)."""
    given = change.model_dump(exclude_none=True)
    if entry is None:
        return {"tags": [], "note": "", **given}
    return {name: value for name, value in given.items() if entry.get(name) != value}


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MOMENT_MS = "[0-9]{1,14}"  # a moment as milliseconds since 1970 (MongoDB keeps no finer), before the year 5138
TEXT_B64 = "(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?"  # text as unpadded base64url (of its UTF-8)
# `<moment>.<the entry's id, base64url>`: every text of this form is a place in the list, so the API states it as
# the cursor's pattern, and a client generated from the document sends only cursors the list takes.
LIBRARY_CURSOR_PATTERN = rf"^{MOMENT_MS}\.{TEXT_B64}$"
_LIBRARY_CURSOR = re.compile(LIBRARY_CURSOR_PATTERN)


def epoch_ms(moment: datetime) -> int:
    return (in_utc(moment) - EPOCH) // timedelta(milliseconds=1)


def from_epoch_ms(ms: int) -> datetime:
    return EPOCH + timedelta(milliseconds=ms)


def b64_text(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def text_of_b64(written: str) -> str:
    """The text of any TEXT_B64: bytes that are no UTF-8 read as U+FFFD, still a place to compare ids with."""
    return base64.urlsafe_b64decode(written + "=" * (-len(written) % 4)).decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class LibraryCursor:
    """Where the next page starts: after the entry saved at `saved_at` with this id (newest first)."""

    saved_at: datetime
    entry_id: str

    def encode(self) -> str:
        return f"{epoch_ms(self.saved_at)}.{b64_text(self.entry_id)}"

    @classmethod
    def decode(cls, text: str) -> "LibraryCursor":
        """The place a cursor names; any text of LIBRARY_CURSOR_PATTERN names one (entries saved before its moment,
        or at it with an id before its id), whether handed out or not. BadCursor for any other text."""
        if not _LIBRARY_CURSOR.fullmatch(text):
            raise BadCursor(f"not a cursor of this list: {text[:40]!r}")
        moment, entry = text.split(".", 1)
        return cls(from_epoch_ms(int(moment)), text_of_b64(entry))


def library_filter(
    user_id: str, tag: str | None = None, since: datetime | None = None, text: str | None = None
) -> dict[str, Any]:
    """The MongoDB filter of a reader's entries: a tag, saved since, text in the title or the note (the reader's text
    matched literally, case aside: escaped, never read as a pattern)."""
    query: dict[str, Any] = {"user_id": user_id}
    if tag:
        query["tags"] = " ".join(tag.split())
    if since is not None:
        query["saved_at"] = {"$gte": since}
    if text and text.strip():
        pattern = {"$regex": re.escape(" ".join(text.split())[:MAX_TEXT_FILTER]), "$options": "i"}
        query["$or"] = [{"title": pattern}, {"note": pattern}]
    return query


def after(cursor: LibraryCursor) -> dict[str, Any]:
    """The entries after the cursor in the list's order (saved_at, then id, both descending)."""
    return {
        "$or": [
            {"saved_at": {"$lt": cursor.saved_at}},
            {"saved_at": cursor.saved_at, "_id": {"$lt": cursor.entry_id}},
        ]
    }


def entry_id(user_id: str, paper_id: str) -> str:
    """One entry per reader and paper: the pair is its id, so a repeated save can only update it."""
    return f"{user_id}/{paper_id}"


def paper_card(paper: dict[str, Any]) -> dict[str, Any]:
    """What a library entry shows of its paper (a `papers` document): title, authors, year, venue, ids, its current
    version and the dated versions the sources announce."""
    return {
        "title": paper.get("title", ""),
        "authors": [a.get("name", "") for a in paper.get("authors") or []],
        "year": paper.get("year"),
        "venue": paper.get("venue"),
        "status": paper.get("status", "preprint"),
        "ids": paper.get("ids") or {},
        "current_version": paper.get("current_version"),
        "versions": [(v.get("label"), v.get("date")) for v in paper.get("versions") or []],
    }


def updated_since_saved(card: dict[str, Any] | None, saved_at: datetime) -> str | None:
    """The version the paper is at now when a version of it appeared after the reader saved it ("updated to v3"),
    else None. A version's date is the source's; an undated one (announced tonight) counts once it is dated."""
    if not card or not card.get("current_version"):
        return None
    saved = saved_at if saved_at.tzinfo else saved_at.replace(tzinfo=UTC)
    later = any(day is not None and _aware(day) > saved for _, day in card.get("versions") or [])
    return card["current_version"] if later else None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
