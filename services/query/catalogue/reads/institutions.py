"""Institutions as the API and the pages show them: those the papers' authors are at (ROR-matched), with their
names and paper counts, and one institution with its papers, newest first. Counted by the index's facet of
institution entries (papertrail/domain/author_institutions.py), so an institution is known once a paper names it."""

from typing import Any

from pydantic import BaseModel, Field

from papertrail.domain.author_institutions import institution_counts, is_ror_id, matches_words
from papertrail.domain.search_document import PaperFilter
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.papers import HIT_DEFAULTS, LIST_FIELDS, PaperHit
from services.query.catalogue.reads.search import PaperQuery

TSINGHUA = {"ror": "03cve4549", "name": "Tsinghua University", "name_zh": "清华大学", "country": "CN"}


class InstitutionSummary(BaseModel):
    """An institution the papers' authors are at, by its ROR record."""

    ror: str = Field(description="the ROR id (https://ror.org/ + this)", examples=["03cve4549"])
    name: str = Field(description="the ROR record's name", examples=["Tsinghua University"])
    name_zh: str | None = Field(None, description="its Chinese label, when ROR has one", examples=["清华大学"])
    country: str | None = Field(None, description="ISO 3166 country code", examples=["CN"])
    papers: int = Field(description="papers with an author at the institution", examples=[42])


class InstitutionList(BaseModel):
    total: int = Field(description="institutions matching `q` (among the 100 with most papers of those it names)")
    page: int
    size: int
    institutions: list[InstitutionSummary]

    model_config = {"json_schema_extra": {"examples": [
        {"total": 1, "page": 1, "size": 20, "institutions": [TSINGHUA | {"papers": 42}]}]}}  # fmt: skip


class InstitutionPapers(InstitutionSummary):
    """One institution with a page of its papers, newest first (by first publication)."""

    page: int
    size: int
    hits: list[PaperHit]


class InstitutionQuery(BaseModel):
    """Which institutions: by words of their names (English or Chinese) or their id; paged."""

    q: str = Field("", max_length=200, description="words of the name, e.g. 'tsinghua', '清华', or a ROR id")
    page: int = Field(1, ge=1, le=100)
    size: int = Field(20, ge=1, le=100)


async def find_institutions(index: PaperIndex, query: InstitutionQuery) -> dict[str, Any]:
    """The institutions whose names hold the words, most papers first (then by name), one page of them."""
    q = query.q.strip()
    by_id = is_ror_id(q.lower())  # an id is no word of the names: the papers it filters count it
    entries = await (index.institution_entries(wanted=PaperFilter(institution=q.lower())) if by_id else
                     index.institution_entries(q))  # fmt: skip
    counts, names = institution_counts(entries)
    found = [
        {"ror": ror, **names[ror], "papers": papers}
        for ror, papers in counts.items()
        if matches_words({"ror": ror, **names[ror]}, query.q)
    ]
    found.sort(key=lambda i: (-i["papers"], i["name"].lower(), i["ror"]))
    start = (query.page - 1) * query.size
    return {"total": len(found), "page": query.page, "size": query.size,
            "institutions": found[start : start + query.size]}  # fmt: skip


async def institution_papers(index: PaperIndex, ror: str, page: int, size: int) -> dict[str, Any] | None:
    """The institution with a page of its papers, newest first; None when no paper names it."""
    wanted = PaperFilter(institution=ror)
    _, names = institution_counts(await index.institution_entries(wanted=wanted))
    if ror not in names:
        return None
    found = await index.search(PaperQuery(filter=wanted, sort="published", page=page, size=size), LIST_FIELDS)
    for hit in found.hits:
        for name, default in HIT_DEFAULTS.items():
            hit.setdefault(name, default)
    return {"ror": ror, **names[ror], "papers": found.total, "page": page, "size": size, "hits": found.hits}
