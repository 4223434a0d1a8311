"""The home page's paper browser: its query string read into the search parameters (the API's own model, so an
overview link works on both), with the form's empty "any" choices left out. No I/O."""

from typing import Any

from pydantic import ValidationError

from papertrail.search_document import SortKey
from services.query.catalogue.reads.search import PaperListing

SORTS: tuple[SortKey, ...] = ("relevance", "updated", "ingested", "published")  # relevance only with a query
LISTS = ("category", "source")  # parameters that may repeat


def parse_browse(pairs: list[tuple[str, str]]) -> tuple[PaperListing, str | None]:
    """Query-string pairs → the search parameters; on bad values the defaults and a message naming the parameters."""
    raw: dict[str, Any] = {}
    for name, value in pairs:
        if value.strip() == "":
            continue  # a form's "any" choice sends an empty value
        if name in LISTS:
            raw.setdefault(name, []).append(value)
        elif name in PaperListing.model_fields:
            raw[name] = value
    try:
        return PaperListing.model_validate(raw), None
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        return PaperListing(), problems


def api_query_to_page(query: str | None) -> str | None:
    """An overview figure's API query (/api/papers?…) as the same list on the home page (/?…)."""
    if not query:
        return None
    return "/" + query.removeprefix("/api/papers") + "#papers"
