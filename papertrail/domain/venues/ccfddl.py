"""ccfddl/ccf-deadlines (MIT) → venue records. Pure: takes each file's parsed YAML (the caller reads the files),
so a bad file is named by the caller and the others still build.

The data's layout: conference/<FIELD>/<name>.yml, a list of venues each with title (acronym), description (full
name), sub (CCF field), rank {ccf, core, thcpl} ('N' = not ranked), dblp, confs [{year, id, link, timeline
[{deadline, abstract_deadline, comment}], timezone, date, place}]; accept_rates/<FIELD>/<name>.yml, a list of
{title, accept_rates [{year, submitted, accepted, rate, str, source}]}.

`build_venues` reads a whole copy of those folders (a checkout, or the repository's archive the harvester fetches)."""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

import yaml  # type: ignore[import-untyped]

from papertrail.domain.venues.catalogue import CcfField, CcfRank, Deadline, Edition, Venue

# Names venues are also cited by that the data does not carry (the old acronym of NeurIPS, mostly).
EXTRA_ALIASES = {
    "AI/nips": ["NIPS", "Advances in Neural Information Processing Systems"],
    "AI/aaai": [
        "AAAI Conference on Artificial Intelligence",
        "Proceedings of the AAAI Conference on Artificial Intelligence",
    ],
    "CG/mm": ["ACM MM", "ACM Multimedia", "ACMMM"],
    "DS/atc": ["USENIX ATC"],
    "DB/sigkdd": ["KDD", "ACM SIGKDD"],  # "KDD 2026": how most papers cite it
    "MX/www": ["The Web Conference", "TheWebConf", "WebConf"],
}
_ORG_PREFIX = re.compile(r"^(?:IEEE/CVF|ACM/IEEE|IEEE/ACM|IEEE|ACM|USENIX)[ -]+(?=\S)", re.IGNORECASE)
FIELDS = frozenset(get_args(CcfField))
RANKS = frozenset(get_args(CcfRank))


class SourceFormatError(ValueError):
    """A file whose content is not the data's layout; the message says what is wrong."""


LICENSE = "MIT (c) 2021 CCFDDL: https://github.com/ccfddl/ccf-deadlines/blob/main/LICENSE"
# A conference or acceptance-rate file larger than this is not read: the data's largest is a few kB
MAX_FILE_BYTES = 1024 * 1024


def read_yaml(content: bytes) -> Any:
    """One file's YAML, or a SourceFormatError saying why it is none."""
    if len(content) > MAX_FILE_BYTES:
        raise SourceFormatError(f"{len(content)} bytes, over the {MAX_FILE_BYTES} a file may have")
    try:
        return yaml.safe_load(content.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise SourceFormatError(f"not readable YAML: {error}".replace("\n", " ")) from error


@dataclass
class Reading:
    """What a copy of the data gives: the venues, the file each was read from, and "path: what is wrong" for each bad
    file (left out)."""

    venues: list[Venue] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # venue key → conference/<FIELD>/<name>.yml
    errors: list[str] = field(default_factory=list)


def build_venues(files: Mapping[str, bytes]) -> Reading:
    """The venues of every conference/<FIELD>/<name>.yml and accept_rates/<FIELD>/<name>.yml among `files` (by their
    path in the repository); a bad file is named and left out (an accept_rates file whose conference file is bad is
    not read: that file is named already), the others all build."""
    reading = Reading()
    bad: set[tuple[str, str]] = set()
    for path, field_code, stem in _data_files(files, "conference"):
        try:
            venues = venues_from_file(field_code, stem, read_yaml(files[path]))
        except SourceFormatError as error:
            reading.errors.append(f"{path}: {error}")
            bad.add((field_code, stem))
            continue
        reading.venues += venues
        reading.files.update((venue.key, path) for venue in venues)
    for path, field_code, stem in _data_files(files, "accept_rates"):
        if (field_code, stem) in bad:
            continue
        try:
            add_accept_rates(reading.venues, field_code, stem, read_yaml(files[path]))
        except SourceFormatError as error:
            reading.errors.append(f"{path}: {error}")
    return reading


def updated_venue(held: Venue | None, read: Venue) -> Venue:
    """A venue as a newer reading of its file gives it, over the one held: the record as read, its editions by year
    (the reading's wins), an edition's acceptance figures kept where the reading has none (its accept_rates file was
    bad, or left the year out), and the years only the held one has kept: a refresh never loses what was known."""
    if held is None:
        return read
    earlier = {e.year: e for e in held.editions}
    editions = []
    for edition in read.editions:  # in the file's order, as the shipped catalogue keeps them
        old = earlier.pop(edition.year, None)
        if old is not None and (edition.submitted, edition.accepted, edition.acceptance_rate) == (None, None, None):
            figures = {"submitted": old.submitted, "accepted": old.accepted, "acceptance_rate": old.acceptance_rate}
            edition = edition.model_copy(update=figures)
        editions.append(edition)
    if earlier:
        editions = sorted(editions + list(earlier.values()), key=lambda e: e.year)
    return read.model_copy(update={"editions": editions})


def _data_files(files: Mapping[str, bytes], folder: str) -> list[tuple[str, str, str]]:
    """(path, field, stem) of the <folder>/<FIELD>/<name>.yml files, in path order."""
    found = []
    for path in sorted(files):
        parts = path.split("/")
        if len(parts) == 3 and parts[0] == folder and parts[2].endswith(".yml"):
            found.append((path, parts[1], parts[2].removesuffix(".yml")))
    return found


def _rank(value: Any) -> str | None:
    text = str(value).strip() if value is not None else ""
    return None if text in ("", "N", "None") else text


def _text(value: Any) -> str | None:
    text = str(value).strip() if value is not None else ""
    return text or None


def _deadline(value: Any) -> str | None:
    text = _text(value)
    return None if text in (None, "TBD") else text


def venues_from_file(field: str, stem: str, data: Any) -> list[Venue]:
    """The venues of one conference/<field>/<stem>.yml file's parsed content."""
    if field not in FIELDS:
        raise SourceFormatError(f"{field!r} is not a CCF field ({', '.join(sorted(FIELDS))})")
    if not isinstance(data, list):
        raise SourceFormatError(f"expected a list of venues, found {type(data).__name__}")
    venues = []
    for n, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or not _text(entry.get("title")):
            raise SourceFormatError(f"venue #{n}: no title")
        acronym = str(entry["title"]).strip()
        ranks = entry.get("rank") or {}
        if not isinstance(ranks, dict):
            raise SourceFormatError(f"{acronym}: rank is not a mapping")
        ccf = _rank(ranks.get("ccf"))
        key = f"{field}/{stem.lower()}" if len(data) == 1 else f"{field}/{acronym.lower()}"
        name = _text(entry.get("description")) or acronym
        aliases = [f"Proc. {acronym}", f"Proceedings of {acronym}", f"Proceedings of the {name}"]
        bare = _ORG_PREFIX.sub("", acronym)
        if bare != acronym:
            aliases.insert(0, bare)
        if "/" in bare:  # two venues held together: "UbiComp/ISWC" (not "IEEE/ACM CGO")
            aliases[:0] = [part.strip() for part in bare.split("/") if len(part.strip()) > 2]
        aliases += EXTRA_ALIASES.get(key, [])
        venues.append(
            Venue(
                key=key,
                acronym=acronym,
                name=name,
                aliases=list(dict.fromkeys(a for a in aliases if a not in (acronym, name))),
                type="conference",
                field=entry.get("sub") if entry.get("sub") in FIELDS else field,  # type: ignore[arg-type]
                ccf_rank=ccf if ccf in RANKS else None,  # type: ignore[arg-type]
                core_rank=_rank(ranks.get("core")),
                thcpl_rank=_rank(ranks.get("thcpl")),
                dblp=_text(entry.get("dblp")),
                editions=[_edition(acronym, conf) for conf in entry.get("confs") or []],
            )
        )
    return venues


def _edition(acronym: str, conf: Any) -> Edition:
    if not isinstance(conf, dict) or not isinstance(conf.get("year"), int):
        raise SourceFormatError(f"{acronym}: an edition without a year: {conf!r}"[:200])
    rounds = []
    for step in conf.get("timeline") or []:
        if not isinstance(step, dict):
            raise SourceFormatError(f"{acronym} {conf['year']}: a timeline entry is not a mapping")
        rounds.append(
            Deadline(
                deadline=_deadline(step.get("deadline")),
                # one file writes 'abstract deadline'
                abstract_deadline=_deadline(step.get("abstract_deadline", step.get("abstract deadline"))),
                comment=_text(step.get("comment")),
            )
        )
    return Edition(
        year=conf["year"],
        id=_text(conf.get("id")),
        link=_text(conf.get("link")),
        dates=_text(conf.get("date")),
        place=_text(conf.get("place")),
        timezone=_text(conf.get("timezone")),
        deadlines=rounds,
    )


def add_accept_rates(venues: list[Venue], field: str, stem: str, data: Any) -> None:
    """Put one accept_rates/<field>/<name>.yml file's figures on the editions (a year with none gets one)."""
    if not isinstance(data, list):
        raise SourceFormatError(f"expected a list of venues, found {type(data).__name__}")
    # the figures' folder is not always the venue's field (UbiComp's are under HI, the venue under MX)
    same_field = {v.acronym.lower(): v for v in venues if v.field == field}
    anywhere: dict[str, list[Venue]] = {}
    for v in venues:
        for name in {v.acronym.lower(), _ORG_PREFIX.sub("", v.acronym).lower()}:
            anywhere.setdefault(name, []).append(v)
    for entry in data:
        if not isinstance(entry, dict) or not _text(entry.get("title")):
            raise SourceFormatError("an entry without a title")
        title = str(entry["title"]).strip().lower()
        others = anywhere.get(title) or anywhere.get(_ORG_PREFIX.sub("", title), [])
        venue = same_field.get(title) or (others[0] if len(others) == 1 else None)
        if venue is None and len(data) == 1:  # named otherwise, in the file of the same name: "UbiComp"
            venue = next((v for v in venues if v.key == f"{field}/{stem.lower()}"), None)
        if venue is None:
            raise SourceFormatError(f"{entry['title']}: no such venue in conference/")
        for figures in entry.get("accept_rates") or []:
            year = figures.get("year") if isinstance(figures, dict) else None
            if not isinstance(year, int):
                raise SourceFormatError(f"{venue.acronym}: an acceptance rate without a year")
            edition = next((e for e in venue.editions if e.year == year), None)
            if edition is None:
                edition = Edition(year=year)
                venue.editions.append(edition)
                venue.editions.sort(key=lambda e: e.year)
            edition.submitted = _count(figures.get("submitted"))
            edition.accepted = _count(figures.get("accepted"))
            edition.acceptance_rate = _rate(figures.get("rate"), edition.submitted, edition.accepted)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None


def _rate(value: Any, submitted: int | None, accepted: int | None) -> float | None:
    """The rate as given; one file writes a decimal comma ('0,2212'); else accepted/submitted."""
    try:
        rate = float(str(value).replace(",", "."))
    except ValueError:
        rate = -1.0
    if 0 <= rate <= 1:
        return round(rate, 4)
    if submitted and accepted is not None:
        return round(accepted / submitted, 4)
    return None
