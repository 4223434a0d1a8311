"""Search requests → Meilisearch parameters. Filter values are validated and quoted, never pasted raw."""

from dataclasses import dataclass, field
from typing import Literal

from papertrail.search import quote

SortKey = Literal["updated", "ingested", "published"]
SORT_FIELDS: dict[str, str] = {"updated": "updated_ts", "ingested": "ingested_ts", "published": "published_ts"}


@dataclass(slots=True)
class PaperQuery:
    q: str = ""
    categories: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    venue: str | None = None
    status: str | None = None
    ai_related: bool | None = None
    author_key: str | None = None
    has_revisions: bool | None = None
    has_code: bool | None = None
    topic_id: str | None = None
    since_ts: int | None = None
    until_ts: int | None = None
    summarized_since_ts: int | None = None
    sort: SortKey = "updated"
    page: int = 1
    size: int = 20

    def filters(self) -> list[str | list[str]]:
        """Meilisearch's array filter form: inner lists are OR, the outer list is AND."""
        clauses: list[str | list[str]] = []
        if self.categories:
            clauses.append([f"categories = {quote(c)}" for c in self.categories])
        if self.sources:
            clauses.append([f"sources = {quote(s)}" for s in self.sources])
        if self.venue:
            clauses.append(f"venue = {quote(self.venue)}")
        if self.status:
            clauses.append(f"status = {quote(self.status)}")
        if self.ai_related is not None:
            clauses.append(f"ai_related = {'true' if self.ai_related else 'false'}")
        if self.author_key:
            clauses.append(f"author_keys = {quote(self.author_key)}")
        if self.has_revisions is not None:
            clauses.append(f"has_revisions = {'true' if self.has_revisions else 'false'}")
        if self.has_code is not None:
            clauses.append("links.code EXISTS" if self.has_code else "NOT links.code EXISTS")
        if self.topic_id:
            clauses.append(f"topic_ids = {quote(self.topic_id)}")
        if self.summarized_since_ts is not None:
            clauses.append(f"summarized_ts >= {int(self.summarized_since_ts)}")
        time_field = SORT_FIELDS[self.sort]  # the date range applies to the chosen time, as on the seed site
        if self.since_ts is not None:
            clauses.append(f"{time_field} >= {int(self.since_ts)}")
        if self.until_ts is not None:
            clauses.append(f"{time_field} < {int(self.until_ts)}")
        return clauses

    def sort_by(self) -> list[str]:
        return [f"{SORT_FIELDS[self.sort]}:desc"]
