"""The query service's rooms keep apart: the readers' rooms (accounts, library, recommender) reach the catalogue only
through its interface (and the pure parsing of paper ids), and the catalogue never reaches into the readers' rooms or
the HTTP layers."""

import ast
from pathlib import Path

QUERY = Path(__file__).resolve().parents[2] / "services" / "query"
READERS_MAY_IMPORT = {"services.query.catalogue.interface", "services.query.catalogue.reads.paper_lookup"}
READERS_ROOMS = ("accounts", "library", "recommender")
ABOVE_THE_CATALOGUE = (
    *(f"services.query.{room}" for room in READERS_ROOMS),
    "services.query.web",
    "services.query.api",
    "services.query.http",
)


def imported(folder: Path) -> dict[str, set[str]]:
    """Every module a folder's files import (by `import x` or `from x import y`), by file."""
    found: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        names = found.setdefault(str(path.relative_to(QUERY.parents[1])), set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
    return found


def test_readers_reach_the_catalogue_only_through_its_interface() -> None:
    assert all(any((QUERY / room).rglob("*.py")) for room in READERS_ROOMS)  # the rooms this test reads are there
    reaching_in = {
        path: sorted(n for n in names if n.startswith("services.query.catalogue") and n not in READERS_MAY_IMPORT)
        for room in READERS_ROOMS
        for path, names in imported(QUERY / room).items()
    }
    assert {path: names for path, names in reaching_in.items() if names} == {}


def test_the_catalogue_knows_nothing_of_readers_pages_or_routes() -> None:
    reaching_up = {
        path: sorted(n for n in names if n.startswith(ABOVE_THE_CATALOGUE))
        for path, names in imported(QUERY / "catalogue").items()
    }
    assert {path: names for path, names in reaching_up.items() if names} == {}
