"""`papertrail venues refresh`: rebuild papertrail/domain/venues/catalogue.json from a checkout of ccfddl/ccf-deadlines;
`papertrail venues journals`: papertrail/domain/venues/ccf_journals.json from CCFrank4dblp's data/dataGen.js.

A maintainer's command, not an operator's: its output is a file committed with the code and shipped in the
image (read-only there); the harvester's ccf_deadlines source keeps the venues current after it (the shipped file
is only their first state)."""

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from papertrail.domain.venues.catalogue import CATALOGUE_PATH, JOURNALS_PATH, Catalogue, load
from papertrail.domain.venues.ccf_list import journals_from_rank_list
from papertrail.domain.venues.ccfddl import LICENSE, build_venues


@dataclass
class Built:
    catalogue: Catalogue
    errors: list[str] = field(default_factory=list)  # "path: what is wrong", one per bad file


def build(root: Path) -> Built:
    """Every conference/<FIELD>/*.yml and accept_rates/<FIELD>/*.yml under `root`; a bad file is reported by
    name and left out, the others all built."""
    if not (root / "conference").is_dir():
        raise FileNotFoundError(f"{root}: no conference/ folder (not a ccf-deadlines checkout)")
    files = {
        path.relative_to(root).as_posix(): path.read_bytes()
        for folder in ("conference", "accept_rates")
        for path in (root / folder).glob("*/*.yml")
    }
    reading = build_venues(files)
    return Built(Catalogue(origin=_origin(root), license=LICENSE, venues=reading.venues), reading.errors)


def _origin(root: Path) -> str:
    """The checkout's commit when it is a git checkout (the shipped file says which data it is)."""
    try:
        top, commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError, ValueError):
        top, commit = "", ""
    if Path(top).resolve() != root.resolve():  # a copy inside another repository (PaperTrail's fixtures): no commit
        commit = ""
    where = f"commit {commit}" if commit else "a copy of its files"
    return f"ccfddl/ccf-deadlines (https://github.com/ccfddl/ccf-deadlines), conference/ and accept_rates/, {where}"


def refresh(root: Path, out: Path = CATALOGUE_PATH) -> int:
    """Write the catalogue; 1 when a file was bad (named; the rest is still written), else 0."""
    built = build(root)
    out.write_text(built.catalogue.model_dump_json(indent=1, exclude_none=True) + "\n", encoding="utf-8")
    venues = built.catalogue.venues
    editions = sum(len(v.editions) for v in venues)
    ranked = sum(v.ccf_rank is not None for v in venues)
    print(f"wrote {out}: {len(venues)} venues, {editions} editions, {ranked} with a CCF rank")
    for error in built.errors:
        print(f"skipped {error}")
    return 1 if built.errors else 0


JOURNALS_ORIGIN = (
    "the CCF recommended list's journals as WenyanLiu/CCFrank4dblp (https://github.com/WenyanLiu/CCFrank4dblp) "
    "holds them in data/dataGen.js (the copy read: tests/fixtures/sources/ccfrank4dblp/, its commit in "
    "tests/fixtures/sources/SOURCES.md; the 2026 edition of the list, its README says); each journal's CCF field "
    "that of its block's conferences in catalogue.json, matched by DBLP key"
)
JOURNALS_LICENSE = "MIT (c) 2019-2023 WenyanLiu: https://github.com/WenyanLiu/CCFrank4dblp/blob/master/LICENSE"


def refresh_journals(source: Path, out: Path = JOURNALS_PATH) -> int:
    """Write the journals, their fields read against the shipped conferences."""
    journals = journals_from_rank_list(source.read_text(encoding="utf-8"), load(CATALOGUE_PATH).venues)
    catalogue = Catalogue(origin=JOURNALS_ORIGIN, license=JOURNALS_LICENSE, venues=journals)
    out.write_text(catalogue.model_dump_json(indent=1, exclude_none=True) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(journals)} journals, {sum(j.field is not None for j in journals)} with a CCF field")
    return 0
