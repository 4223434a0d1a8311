"""The venue catalogue: one record per venue (acronym, aliases, type, CCF field and rank, CORE and THCPL ranks,
DBLP key, editions), shipped as catalogue.json beside this module and looked up by acronym or alias."""

import re
import unicodedata
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

CATALOGUE_PATH = Path(__file__).with_name("catalogue.json")

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


def fold(name: str) -> str:
    """The lookup form of a venue name: case, accents, punctuation, spacing and a leading 'The' folded."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split()).removeprefix("the ")


class VenueIndex:
    """Acronyms and aliases → venues. A name shared by two venues (FSE: software engineering and cryptography)
    resolves to none: a claim names it as written rather than guess its rank."""

    def __init__(self, venues: list[Venue]) -> None:
        self.venues = {v.key: v for v in venues}
        names: dict[str, set[str]] = defaultdict(set)
        for venue in venues:
            for name in (venue.acronym, venue.name, *venue.aliases):
                names[fold(name)].add(venue.key)
        self._names = {name: next(iter(keys)) for name, keys in names.items() if len(keys) == 1 and name}
        self.ambiguous = frozenset(name for name, keys in names.items() if len(keys) > 1)
        self.acronyms = frozenset(fold(v.acronym) for v in venues)

    def resolve(self, name: str) -> Venue | None:
        key = self._names.get(fold(name))
        return self.venues[key] if key else None

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
    """The shipped catalogue's index, read once per process."""
    return VenueIndex(load().venues)


def venue_record(index: VenueIndex, name: str) -> Venue:
    """The catalogue's venue by that name; an unknown (or ambiguous) name still gets a record: as written,
    unranked."""
    return index.resolve(name) or Venue(key=f"unknown/{fold(name)}", acronym=name.strip(), name=name.strip())
