"""Searching papers: the search parameters as one model (the API's search route, the Atom search feed and the home
page's browser all take it), and the search of the index they make, its values checked and quoted, never pasted raw
(papertrail/search_document.py builds the filter)."""

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, Field

from papertrail.search_document import SORT_FIELDS, PaperFilter, SortKey

CATEGORY_PATTERN = re.compile(r"^[A-Za-z\-]+(\.[A-Za-z\-]+)?$")
SOURCE_PATTERN = re.compile(r"^[a-z_]+$")


SearchMode = Literal["keyword", "hybrid", "semantic"]


@dataclass(slots=True)
class PaperQuery:
    q: str = ""
    filter: PaperFilter = field(default_factory=PaperFilter)
    sort: SortKey = "updated"
    page: int = 1
    size: int = 20
    semantic: float = 0.0  # 0: words only; 1: meaning only (the query text's vector against the papers')

    @property
    def mode(self) -> SearchMode:
        """Which search answers: words alone without text to embed or with no weight on meaning."""
        if not self.q.strip() or self.semantic <= 0:
            return "keyword"
        return "semantic" if self.semantic >= 1 else "hybrid"

    def filters(self) -> list[str | list[str]]:
        return self.filter.clauses()

    def sort_by(self) -> list[str]:
        return [f"{SORT_FIELDS[self.sort]}:desc"]


class BadSearch(ValueError):
    """A search parameter does not look like what it should; the message names it (the API answers 422)."""


HAS_CODE = (
    "true: only papers with a code link (`links.code`: a source's own field, or a GitHub, GitLab … repository "
    "named in the abstract or comments); false: only papers without one"
)
AUTHOR_KEY_PATTERN = r"^[\w .'\-]{1,100}$"
TOPIC_ID_PATTERN = r"^[a-z0-9_\-]{1,64}$"


Categories = Annotated[list[str], Field(description="categories (any of)")]
Status = Annotated[str | None, Field(pattern="^(preprint|published)$")]
Since = Annotated[datetime | date | None, Field(description="from this time, on the chosen sort's time")]


class PaperSearch(BaseModel):
    """What to look for: the free text and the filters, by GET /api/papers' names and limits. The Atom search feed
    takes them too, and so does the home page's browser, so a link made for one works on the other."""

    q: str = Field("", max_length=500, description="full-text query")
    semantic: float = Field(
        0.0,
        ge=0,
        le=1,
        description="weight of meaning against words for `q`: 0 words only (the default), 1 meaning only (the "
        "query's vector against the papers'), between: both, blended; the response's `mode` says which answered",
    )
    category: Categories = []
    source: list[str] = Field([], description="sources (any of)")
    venue: str | None = Field(None, max_length=200)
    status: Status = None
    ai_related: bool | None = None
    has_revisions: bool | None = None
    has_code: bool | None = Field(None, description=HAS_CODE)
    topic: str | None = Field(None, pattern=TOPIC_ID_PATTERN, description="catalogue topic id")
    author: str | None = Field(None, pattern=AUTHOR_KEY_PATTERN, description="author key, e.g. 'zhang w'")
    since: Since = None
    until: datetime | date | None = Field(None, description="up to this time (a day is inclusive)")
    summarized_since: datetime | date | None = Field(
        None, description="only papers whose AI summary was written from this time"
    )

    def paper_query(self, sort: SortKey, page: int, size: int) -> PaperQuery:
        """This search, sorted and paged; BadSearch names a category or source that is not one."""
        wanted = PaperFilter(
            categories=checked(self.category, CATEGORY_PATTERN, "category", "cs.CL"),
            sources=checked(self.source, SOURCE_PATTERN, "source", "arxiv"),
            venue=self.venue,
            status=self.status,
            ai_related=self.ai_related,
            has_revisions=self.has_revisions,
            has_code=self.has_code,
            topic_id=self.topic,
            author_key=self.author,
            summarized_since_ts=_epoch(self.summarized_since),
            dated_by=sort,  # the date range applies to the chosen time, as on the seed site
            since_ts=_epoch(self.since),
            until_ts=_epoch(self.until, end=True),
        )
        return PaperQuery(q=self.q, filter=wanted, sort=sort, page=page, size=size, semantic=self.semantic)


class PaperListing(PaperSearch):
    """A page of a search: the search, one of three sorts, the page and its size (GET /api/papers, the home page)."""

    sort: SortKey = "updated"
    page: int = Field(1, ge=1, le=1000)
    size: int = Field(20, ge=1, le=100)

    def query(self) -> PaperQuery:
        return self.paper_query(self.sort, self.page, self.size)

    def params(self, **changes: Any) -> dict[str, Any]:
        """The non-default parameters, with `changes` applied (None removes one); a changed filter resets the page."""
        values = self.model_dump(exclude_defaults=True, mode="json") | changes
        if "page" not in changes:
            values.pop("page", None)
        return {k: _text(v) for k, v in values.items() if v not in (None, "", [])}

    def url(self, path: str = "/", **changes: Any) -> str:
        """A link to `path` with these parameters (and `changes`), as the home page's browser makes them."""
        query = urlencode(self.params(**changes), doseq=True)
        return f"{path}?{query}" if query else path

    @property
    def filtered(self) -> bool:
        return bool(self.params(sort=None))


class SimilarSearch(BaseModel):
    """Which similar papers: how many, and the search's category, status and since filters (by their names there)."""

    size: int = Field(10, ge=1, le=50, description="how many similar papers")
    category: Categories = []
    status: Status = None
    since: Since = None

    def paper_filter(self) -> PaperFilter:
        """The filter; BadSearch names a category that is not one."""
        categories = checked(self.category, CATEGORY_PATTERN, "category", "cs.CL")
        return PaperFilter(categories=categories, status=self.status, since_ts=_epoch(self.since))


def _text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _epoch(value: datetime | date | None, end: bool = False) -> int | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        value = datetime.combine(value, time.max if end else time.min)
    return int(value.timestamp())


def checked(values: list[str], pattern: re.Pattern[str], name: str, example: str) -> list[str]:
    """The values, or BadSearch naming the parameter when one does not look like what it should."""
    for value in values:
        if not pattern.match(value):
            raise BadSearch(f"{name} {value!r} is not a {name} such as {example}")
    return values
