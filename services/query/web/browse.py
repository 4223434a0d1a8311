"""The home page's paper browser: its query string read into the search parameters (the API's own model, so an
overview link works on both), with the form's empty "any" choices left out. No I/O."""

from typing import Any

from pydantic import ValidationError

from papertrail.domain.search_document import SortKey
from services.query.catalogue.reads.search import PaperListing
from services.query.web.i18n import Translator
from services.query.web.refusals import rejected_fields, validation_text

# relevance only with a query
SORTS: tuple[SortKey, ...] = ("relevance", "updated", "ingested", "published", "cited", "hot")
LISTS = ("category", "source")  # parameters that may repeat


def parse_browse(
    pairs: list[tuple[str, str]], t: Translator | None = None
) -> tuple[PaperListing, str | None, dict[str, str]]:
    """Query-string pairs → the search parameters. On bad values: the parameters without them, a message in the
    reader's language naming each, and what the reader wrote in them (the form shows it again, to be corrected)."""
    raw: dict[str, Any] = {}
    for name, value in pairs:
        if value.strip() == "":
            continue  # a form's "any" choice sends an empty value
        if name in LISTS:
            raw.setdefault(name, []).append(value)
        elif name in PaperListing.model_fields:
            raw[name] = value
    try:
        return PaperListing.model_validate(raw), None, {}
    except ValidationError as error:
        problems = validation_text(error, t or Translator("zh"))
        bad = rejected_fields(error)
        rejected = {name: " ".join(v) if isinstance(v, list) else v for name, v in raw.items() if name in bad}
    try:
        return PaperListing.model_validate({k: v for k, v in raw.items() if k not in bad}), problems, rejected
    except ValidationError:
        return PaperListing(), problems, rejected


def api_query_to_page(query: str | None) -> str | None:
    """An overview figure's API query (/api/papers?…) as the same list on the home page (/?…)."""
    if not query:
        return None
    return "/" + query.removeprefix("/api/papers") + "#papers"
