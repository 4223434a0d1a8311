"""A search of the papers index: the free text, the filter (papertrail/search_document.py), sort and page."""

from dataclasses import dataclass, field

from papertrail.search_document import SORT_FIELDS, PaperFilter, SortKey


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
