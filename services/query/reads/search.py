"""A search of the papers index: the free text, the filter (papertrail/search_document.py), sort and page; and the
search request's parameters as such a search, each checked and quoted, never pasted raw."""

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time

from papertrail.search_document import SORT_FIELDS, PaperFilter, SortKey

CATEGORY_PATTERN = re.compile(r"^[A-Za-z\-]+(\.[A-Za-z\-]+)?$")
SOURCE_PATTERN = re.compile(r"^[a-z_]+$")


@dataclass(slots=True)
class PaperQuery:
    q: str = ""
    filter: PaperFilter = field(default_factory=PaperFilter)
    sort: SortKey = "updated"
    page: int = 1
    size: int = 20

    def filters(self) -> list[str | list[str]]:
        return self.filter.clauses()

    def sort_by(self) -> list[str]:
        return [f"{SORT_FIELDS[self.sort]}:desc"]


class BadSearch(ValueError):
    """A search parameter does not look like what it should; the message names it (the API answers 422)."""


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


def paper_query(
    q: str = "",
    category: list[str] = [],  # noqa: B006
    source: list[str] = [],  # noqa: B006
    venue: str | None = None,
    status: str | None = None,
    ai_related: bool | None = None,
    has_revisions: bool | None = None,
    topic: str | None = None,
    author: str | None = None,
    since: datetime | date | None = None,
    until: datetime | date | None = None,
    sort: SortKey = "updated",
    page: int = 1,
    size: int = 20,
    summarized_since: datetime | date | None = None,
    has_code: bool | None = None,
) -> PaperQuery:
    """The search request's parameters as a query; BadSearch names a category or source that is not one."""
    wanted = PaperFilter(
        categories=checked(category, CATEGORY_PATTERN, "category", "cs.CL"),
        sources=checked(source, SOURCE_PATTERN, "source", "arxiv"),
        venue=venue,
        status=status,
        ai_related=ai_related,
        has_revisions=has_revisions,
        has_code=has_code,
        topic_id=topic,
        author_key=author,
        summarized_since_ts=_epoch(summarized_since),
        dated_by=sort,  # the date range applies to the chosen time, as on the seed site
        since_ts=_epoch(since),
        until_ts=_epoch(until, end=True),
    )
    return PaperQuery(q=q, filter=wanted, sort=sort, page=page, size=size)
