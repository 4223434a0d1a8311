"""GET /api/papers (search and browse) and GET /api/papers/{id}."""

import re
from datetime import date, datetime, time
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, Field

from services.query.deps import PaperIndexDep
from services.query.search import PaperQuery, SortKey

router = APIRouter(prefix="/api/papers", tags=["papers"])

CATEGORY_PATTERN = r"^[A-Za-z\-]+(\.[A-Za-z\-]+)?$"
SOURCE_PATTERN = r"^[a-z_]+$"


class PaperHit(BaseModel):
    paper_id: str = Field(description="canonical paper id")
    title: str
    title_zh: str | None = None
    authors: list[str] = []
    abstract: str = ""
    categories: list[str] = []
    sources: list[str] = []
    venue: str | None = None
    year: int | None = None
    status: str
    ai_related: bool = False
    tldr_zh: str | None = None
    summary_status: str | None = None
    links: dict[str, str] = {}


class PaperSearchResponse(BaseModel):
    total: int = Field(description="papers matching the query and filters")
    page: int
    size: int
    hits: list[PaperHit]
    facets: dict[str, dict[str, int]] = Field(default_factory=dict, description="counts per filter value")


def _epoch(day: date | None, end: bool = False) -> int | None:
    if day is None:
        return None
    return int(datetime.combine(day, time.max if end else time.min).timestamp())


@router.get("", response_model=PaperSearchResponse)
async def search_papers(
    index: PaperIndexDep,
    q: Annotated[str, Query(max_length=500, description="full-text query")] = "",
    category: Annotated[list[str], Query(description="categories (any of)")] = [],  # noqa: B006
    source: Annotated[list[str], Query(description="sources (any of)")] = [],  # noqa: B006
    venue: Annotated[str | None, Query(max_length=200)] = None,
    status: Annotated[str | None, Query(pattern="^(preprint|published)$")] = None,
    ai_related: bool | None = None,
    since: Annotated[date | None, Query(description="from this day, on the chosen sort's time")] = None,
    until: Annotated[date | None, Query(description="up to this day, inclusive")] = None,
    sort: SortKey = "updated",
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    size: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """Search and browse papers with filters, one of three sorts and facet counts."""
    for value in category:
        if not re.match(CATEGORY_PATTERN, value):
            raise HTTPException(422, f"category {value!r} is not a category such as cs.CL")
    for value in source:
        if not re.match(SOURCE_PATTERN, value):
            raise HTTPException(422, f"source {value!r} is not a source name such as arxiv")
    query = PaperQuery(
        q=q,
        categories=category,
        sources=source,
        venue=venue,
        status=status,
        ai_related=ai_related,
        since_ts=_epoch(since),
        until_ts=_epoch(until, end=True),
        sort=sort,
        page=page,
        size=size,
    )
    results = await index.search(query)
    return {
        "total": results.total_hits or 0,
        "page": page,
        "size": size,
        "hits": results.hits,
        "facets": results.facet_distribution or {},
    }


@router.get("/{paper_id:path}", response_model=PaperHit)
async def read_paper(paper_id: str, index: PaperIndexDep) -> dict[str, Any]:
    """One paper by its canonical id, e.g. arxiv:2401.12345."""
    document = await index.get(paper_id)
    if document is None:
        raise HTTPException(404, f"no paper {paper_id!r}")
    return document
