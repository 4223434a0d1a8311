"""The venue catalogue: one record per venue (acronym, aliases, type, CCF field and rank, CORE and THCPL ranks,
DBLP key, editions), shipped beside this module — catalogue.json (the conferences, from ccf-deadlines) and
ccf_journals.json (the CCF list's journals) — and looked up by acronym, alias or a journal's abbreviated name."""

import re
import unicodedata
from collections import defaultdict
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

CATALOGUE_PATH = Path(__file__).with_name("catalogue.json")
JOURNALS_PATH = Path(__file__).with_name("ccf_journals.json")
# words an abbreviated journal name leaves out: "IEEE Trans. Pattern Anal. Mach. Intell."
_SKIPPED = frozenset({"on", "of", "and", "for", "in", "the", "an", "a", "&"})

CcfField = Literal["AI", "CG", "CT", "DB", "DS", "HI", "MX", "NW", "SC", "SE"]
CcfRank = Literal["A", "B", "C"]
VenueType = Literal["conference", "journal", "workshop"]


class Deadline(BaseModel):
    """One submission round: its deadlines as the venue states them, in `timezone`."""

    model_config = ConfigDict(extra="forbid")

    deadline: str | None = Field(None, description="paper deadline, 'YYYY-MM-DD HH:MM:SS' in the edition's timezone")
    abstract_deadline: str | None = Field(None, description="abstract deadline, same form")
    comment: str | None = None


class Edition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    year: int
    id: str | None = Field(None, description="the source's edition id", examples=["icml26"])
    link: str | None = None
    dates: str | None = Field(None, description="as written", examples=["July 6-12, 2026"])
    place: str | None = None
    timezone: str | None = Field(None, description="of the deadlines: UTC±N, AoE or PT", examples=["UTC-12"])
    deadlines: list[Deadline] = Field(default_factory=list)
    submitted: int | None = None
    accepted: int | None = None
    acceptance_rate: float | None = Field(None, description="accepted / submitted")


class Venue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="stable catalogue key: field/acronym, lower-cased", examples=["AI/icml"])
    acronym: str = Field(examples=["ICML"])
    name: str = Field(description="full name", examples=["International Conference on Machine Learning"])
    aliases: list[str] = Field(default_factory=list, description="other names it is cited by")
    type: VenueType = "conference"
    field: CcfField | None = None
    ccf_rank: CcfRank | None = None
    core_rank: str | None = Field(None, examples=["A*"])
    thcpl_rank: str | None = Field(None, description="清华计算机学科推荐 (THCPL) rank", examples=["A"])
    dblp: str | None = Field(None, description="DBLP key under conf/ or journals/", examples=["icml"])
    editions: list[Edition] = Field(default_factory=list)


class Catalogue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    origin: str = Field(description="where the data comes from, at which commit or date")
    license: str
    venues: list[Venue]


class CatalogueError(ValueError):
    pass


# the words of a conference's name that say who holds it or what kind of meeting it is, not its subject
_NOT_SUBJECT = frozenset("ieee cvf acm international annual conference on the of proceedings joint".split())


def _subject(name: str) -> str:
    return " ".join(w for w in fold(name).split() if w not in _NOT_SUBJECT)


def fold(name: str) -> str:
    """The lookup form of a venue name: case, accents, punctuation, spacing and a leading 'The' folded."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split()).removeprefix("the ")


class VenueIndex:
    """Acronyms and aliases → venues. A name shared by two venues (FSE: software engineering and cryptography)
    resolves to none: a claim names it as written rather than guess its rank. A name a conference shares with
    journals only (WWW, CSCW, AAMAS) is the conference's: that is how papers cite it; the journal keeps its full
    name."""

    def __init__(self, venues: list[Venue]) -> None:
        self.venues = {v.key: v for v in venues}
        names: dict[str, set[str]] = defaultdict(set)
        for venue in venues:
            for name in (venue.acronym, venue.name, *venue.aliases):
                names[fold(name)].add(venue.key)
        for name, keys in names.items():
            conferences = {k for k in keys if self.venues[k].type != "journal"}
            if len(conferences) == 1 and len(keys) > 1:
                names[name] = conferences
        self._names = {name: next(iter(keys)) for name, keys in names.items() if len(keys) == 1 and name}
        self.ambiguous = frozenset(name for name, keys in names.items() if len(keys) > 1)
        self.acronyms = frozenset(fold(v.acronym) for v in venues)
        self.acronyms_upper = frozenset(v.acronym.upper() for v in venues if v.type != "journal")
        subjects: dict[str, set[str]] = defaultdict(set)
        for venue in venues:
            if venue.type != "journal":
                subjects[_subject(venue.name)].add(venue.key)
        self._subjects = {words: next(iter(keys)) for words, keys in subjects.items() if len(keys) == 1 and words}
        self._journal_words = [
            (words, v.key)
            for v in venues
            if v.type == "journal" and len(words := [w for w in fold(v.name).split() if w not in _SKIPPED]) >= 2
        ]

    def resolve(self, name: str) -> Venue | None:
        key = self._names.get(fold(name)) or self._abbreviated(name)
        return self.venues[key] if key else None

    def conference_by_subject(self, name: str) -> Venue | None:
        """The one conference whose full name has the same subject words in the same order, its organisers and the
        words "Conference", "International", "Annual" aside: "Computer Vision and Pattern Recognition Conference"
        is "IEEE/CVF Conference on Computer Vision and Pattern Recognition"."""
        words = _subject(name)
        key = self._subjects.get(words) if len(words.split()) >= 3 else None
        return self.venues[key] if key else None

    def _abbreviated(self, name: str) -> str | None:
        """The one journal whose full name the name abbreviates word by word, ISO 4 style ("IEEE Trans. Pattern
        Anal. Mach. Intell.", "IEEE J. Sel. Areas Commun."): each written word the start of the full name's word
        in its place; only a name with an abbreviated word (a dot) is read so."""
        if "." not in name:
            return None
        written = [w for w in fold(name).split() if w not in _SKIPPED]
        if len(written) < 2:
            return None
        found = {
            key
            for words, key in self._journal_words
            if len(words) == len(written) and all(w.startswith(a) for a, w in zip(written, words, strict=True))
        }
        return next(iter(found)) if len(found) == 1 else None

    def known(self, name: str) -> bool:
        """Whether the name is a catalogue name at all, even an ambiguous one."""
        folded = fold(name)
        return folded in self._names or folded in self.ambiguous


def load(path: Path = CATALOGUE_PATH) -> Catalogue:
    try:
        return Catalogue.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as error:
        raise CatalogueError(f"venue catalogue {path}: {error}") from error


@cache
def default_index() -> VenueIndex:
    """The shipped catalogue's index (its conferences and the CCF list's journals), read once per process."""
    return VenueIndex(load().venues + load(JOURNALS_PATH).venues)


def current_venues(shipped: list[Venue], harvested: list[Venue]) -> list[Venue]:
    """The catalogue as it stands: the shipped venues, each replaced by its harvested reading when there is one
    (the harvester's ccf_deadlines source keeps them in `venue_catalogue`), and the venues only harvested after."""
    newer = {v.key: v for v in harvested}
    return [newer.pop(v.key, v) for v in shipped] + list(newer.values())


def venue_document(venue: Venue, file: str, commit: str | None, read_at: datetime) -> dict[str, Any]:
    """A harvested venue as `venue_catalogue` holds it (its one writer, the harvester, and its readers share this)."""
    return {
        "_id": venue.key,
        "venue": venue.model_dump(mode="json", exclude_none=True),
        "file": file,
        "commit": commit,
        "read_at": read_at,
    }


def venue_of_document(document: dict[str, Any]) -> Venue:
    return Venue.model_validate(document["venue"])


def venue_record(index: VenueIndex, name: str) -> Venue:
    """The catalogue's venue by that name; an unknown (or ambiguous) name still gets a record: as written,
    unranked."""
    return index.resolve(name) or Venue(key=f"unknown/{fold(name)}", acronym=name.strip(), name=name.strip())
