"""The home page's paper browser: query-string parameters checked like the API's, and links that keep them. No I/O."""

from datetime import date, datetime
from typing import Any, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, Field, ValidationError

from papertrail.search_document import SortKey

PAGE_SIZE = 20
SORTS: tuple[SortKey, ...] = ("updated", "ingested", "published")


class Browse(BaseModel):
    """What the browser shows; the same names and limits as GET /api/papers, so an overview link works on both."""

    q: str = Field("", max_length=500)
    category: list[str] = Field(default_factory=list, max_length=20)
    source: list[str] = Field(default_factory=list, max_length=10)
    status: Literal["preprint", "published"] | None = None
    ai_related: bool | None = None
    has_revisions: bool | None = None
    has_code: bool | None = None
    summarized_since: datetime | date | None = None
    since: datetime | date | None = None
    until: datetime | date | None = None
    sort: SortKey = "updated"
    page: int = Field(1, ge=1, le=1000)

    def params(self, **changes: Any) -> dict[str, Any]:
        """The non-default parameters, with `changes` applied (None removes one); a changed filter resets the page."""
        values = self.model_dump(exclude_defaults=True, mode="json") | changes
        if "page" not in changes:
            values.pop("page", None)
        return {k: _text(v) for k, v in values.items() if v not in (None, "", [])}

    def url(self, path: str = "/", **changes: Any) -> str:
        query = urlencode(self.params(**changes), doseq=True)
        return f"{path}?{query}" if query else path

    @property
    def filtered(self) -> bool:
        return bool(self.params(sort=None))


def _text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def parse_browse(pairs: list[tuple[str, str]]) -> tuple[Browse, str | None]:
    """Query-string pairs → Browse; on bad values the defaults and a message naming the parameters."""
    raw: dict[str, Any] = {}
    for name, value in pairs:
        if value.strip() == "":
            continue  # a form's "any" choice sends an empty value
        if name in ("category", "source"):
            raw.setdefault(name, []).append(value)
        elif name in Browse.model_fields:
            raw[name] = value
    try:
        return Browse.model_validate(raw), None
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        return Browse(), problems


def api_query_to_page(query: str | None) -> str | None:
    """An overview figure's API query (/api/papers?…) as the same list on the home page (/?…)."""
    if not query:
        return None
    return "/" + query.removeprefix("/api/papers") + "#papers"
