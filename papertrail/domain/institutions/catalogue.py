"""The ROR catalogue: a compact copy of the Research Organization Registry's records (names, aliases, acronyms,
labels by language, types, country, domains, parent/child links), shipped as ror-catalogue.json.gz beside this
module and read once per process (by the matcher, papertrail/domain/institutions/matching.py)."""

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

CATALOGUE_PATH = Path(__file__).with_name("ror-catalogue.json.gz")

# The order of a record's fields in the file: records are arrays, not objects, so the file stays small.
FIELDS = ("id", "name", "aliases", "acronyms", "labels", "types", "country", "domains", "parents", "children", "active")


@dataclass(frozen=True, slots=True)
class Institution:
    """One ROR record, as much of it as matching and display need."""

    id: str  # the URL tail: 03cve4549
    name: str  # ROR's display name
    aliases: tuple[str, ...]
    acronyms: tuple[str, ...]
    labels: tuple[tuple[str, str], ...]  # (language, name), e.g. ("zh", "清华大学")
    types: tuple[str, ...]  # education, company, facility, …
    country: str | None  # ISO 3166 alpha-2
    domains: tuple[str, ...]  # email and web domains, without "www."
    parents: tuple[str, ...]
    children: tuple[str, ...]
    active: bool = True  # false: ROR's "inactive", an organisation no longer operating (older papers still name it)

    @property
    def name_zh(self) -> str | None:
        """The Chinese label: zh first, then any zh-* variant."""
        for lang, value in self.labels:
            if lang == "zh":
                return value
        return next((value for lang, value in self.labels if lang.startswith("zh")), None)

    def as_row(self) -> list[object]:
        return [
            self.id,
            self.name,
            list(self.aliases),
            list(self.acronyms),
            [list(label) for label in self.labels],
            list(self.types),
            self.country,
            list(self.domains),
            list(self.parents),
            list(self.children),
            self.active,
        ]

    @classmethod
    def from_row(cls, row: list) -> "Institution":  # type: ignore[type-arg]
        return cls(
            id=row[0],
            name=row[1],
            aliases=tuple(row[2]),
            acronyms=tuple(row[3]),
            labels=tuple((lang, value) for lang, value in row[4]),
            types=tuple(row[5]),
            country=row[6],
            domains=tuple(row[7]),
            parents=tuple(row[8]),
            children=tuple(row[9]),
            active=row[10],
        )


class CatalogueError(ValueError):
    pass


@dataclass(frozen=True)
class RorCatalogue:
    origin: str  # where the records come from, which release
    license: str
    institutions: dict[str, Institution]  # by ROR id

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "origin": self.origin,
                "license": self.license,
                "fields": list(FIELDS),
                "records": [record.as_row() for record in self.institutions.values()],
            }
        )

    @classmethod
    def from_json(cls, data: bytes) -> "RorCatalogue":
        try:
            document = orjson.loads(data)
            if document["fields"] != list(FIELDS):
                raise CatalogueError(f"fields {document['fields']} are not {list(FIELDS)}")
            records = [Institution.from_row(row) for row in document["records"]]
            return cls(document["origin"], document["license"], {record.id: record for record in records})
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise CatalogueError(f"not a ROR catalogue: {error}") from error


def read_catalogue(path: Path = CATALOGUE_PATH) -> RorCatalogue:
    return RorCatalogue.from_json(gzip.decompress(path.read_bytes()))


def catalogue_records(path: Path = CATALOGUE_PATH) -> Iterator[Institution]:
    """The catalogue's records one by one, each let go once taken (the whole file is not held as objects)."""
    try:
        document = orjson.loads(gzip.decompress(path.read_bytes()))
        rows = document["records"]
        if document["fields"] != list(FIELDS):
            raise CatalogueError(f"fields {document['fields']} are not {list(FIELDS)}")
    except (orjson.JSONDecodeError, KeyError, TypeError) as error:
        raise CatalogueError(f"{path}: not a ROR catalogue: {error}") from error
    del document
    while rows:
        yield Institution.from_row(rows.pop())
