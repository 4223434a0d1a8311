"""GET /api/papers (search and browse), GET /api/papers/{id} (one paper with its history), authors."""

import re
from datetime import date, datetime, time
from typing import Annotated, Any
from urllib.parse import quote

import orjson
from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field

from papertrail.search_document import PaperFilter, SortKey
from schemas.paper import Paper
from services.query.deps import HeldPaper, PaperIndexDep, StoreDep
from services.query.index import PaperIndex
from services.query.search import PaperQuery
from services.query.store import QueryStore

router = APIRouter(prefix="/api", tags=["papers"])

CATEGORY_PATTERN = re.compile(r"^[A-Za-z\-]+(\.[A-Za-z\-]+)?$")
SOURCE_PATTERN = re.compile(r"^[a-z_]+$")
AUTHOR_KEY_PATTERN = r"^[\w .'\-]{1,100}$"
HAS_CODE = (
    "true: only papers with a code link (`links.code`: a source's own field, or a GitHub, GitLab … repository "
    "named in the abstract or comments); false: only papers without one"
)


class PaperHit(BaseModel):
    paper_id: str = Field(description="canonical paper id")
    title: str = ""
    title_zh: str | None = None
    authors: list[str] = []
    authors_detail: list[dict[str, Any]] = []
    abstract: str = ""
    categories: list[str] = []
    sources: list[str] = []
    ids: dict[str, Any] = {}
    venue: str | None = None
    year: int | None = None
    status: str = "preprint"
    ai_related: bool = False
    tldr_zh: str | None = None
    tldr_en: str | None = None
    summary_status: str | None = None
    current_version: str | None = None
    version_seq: int | None = None
    version_kind: str | None = Field(None, description="what the latest record is: first_observed, new_version, …")
    has_revisions: bool = False
    links: dict[str, str] = Field(
        default_factory=dict,
        description="named links: abs, pdf, anthology, doi, hf, video; code, dataset, model, demo (a Hugging Face "
        "space) and project (page), from a source's own field or found in the abstract or comments",
    )
    comments: str | None = None
    journal_ref: str | None = None
    topic_ids: list[str] = []
    community: dict[str, Any] | None = None
    updated_ts: int | None = None
    ingested_ts: int | None = None
    published_ts: int | None = None


# Search lists return what a hit shows; the summary's long sections and the history stay on the paper page.
LIST_FIELDS = list(PaperHit.model_fields)
# What a hit holds when its document lacks a field (topic_ids before the paper's first topic hit, say), so every
# hit has the documented shape without validating each one through the model.
HIT_DEFAULTS = {name: field.get_default(call_default_factory=True) for name, field in PaperHit.model_fields.items()}


class PaperSearchResponse(BaseModel):
    total: int = Field(description="papers matching the query and filters")
    page: int
    size: int
    sort: str
    hits: list[PaperHit]
    facets: dict[str, dict[str, int]] = Field(default_factory=dict, description="counts per filter value")


class PaperDetail(PaperHit):
    paper: dict[str, Any] = Field(description="the canonical paper: every id, authors, versions, times")
    history: list[dict[str, Any]] = Field(description="version records #1..n: what changed, from which source")
    summary: dict[str, Any] | None = Field(None, description="the AI summary, or its status")
    topic_reasons: dict[str, list[dict[str, Any]]] = Field(default_factory=dict, description="why it hits topics")


def _epoch(value: datetime | date | None, end: bool = False) -> int | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        value = datetime.combine(value, time.max if end else time.min)
    return int(value.timestamp())


def checked(values: list[str], pattern: re.Pattern[str], name: str, example: str) -> list[str]:
    """The values, or a 422 naming the parameter when one does not look like what it should."""
    for value in values:
        if not pattern.match(value):
            raise HTTPException(422, f"{name} {value!r} is not a {name} such as {example}")
    return values


async def find_papers(index: PaperIndex, query: PaperQuery) -> dict[str, Any]:
    """One page of papers in the search response's shape (what the API returns and the home page shows)."""
    found = await index.search(query, attributes=LIST_FIELDS)
    for hit in found.hits:
        for name, default in HIT_DEFAULTS.items():
            hit.setdefault(name, default)
    return {
        "total": found.total,
        "page": query.page,
        "size": query.size,
        "sort": query.sort,
        "hits": found.hits,
        "facets": found.facets,
    }


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
    """The search request's parameters as a query; a 422 names a category or source that is not one."""
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


@router.get("/papers", response_model=PaperSearchResponse)
async def search_papers(
    index: PaperIndexDep,
    q: Annotated[str, Query(max_length=500, description="full-text query")] = "",
    category: Annotated[list[str], Query(description="categories (any of)")] = [],  # noqa: B006
    source: Annotated[list[str], Query(description="sources (any of)")] = [],  # noqa: B006
    venue: Annotated[str | None, Query(max_length=200)] = None,
    status: Annotated[str | None, Query(pattern="^(preprint|published)$")] = None,
    ai_related: bool | None = None,
    has_revisions: bool | None = None,
    has_code: Annotated[bool | None, Query(description=HAS_CODE)] = None,
    topic: Annotated[str | None, Query(pattern=r"^[a-z0-9_\-]{1,64}$", description="catalogue topic id")] = None,
    author: Annotated[str | None, Query(pattern=AUTHOR_KEY_PATTERN, description="author key, e.g. 'zhang w'")] = None,
    since: Annotated[datetime | date | None, Query(description="from this time, on the chosen sort's time")] = None,
    until: Annotated[datetime | date | None, Query(description="up to this time (a day is inclusive)")] = None,
    sort: SortKey = "updated",
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    size: Annotated[int, Query(ge=1, le=100)] = 20,
    summarized_since: Annotated[
        datetime | date | None, Query(description="only papers whose AI summary was written from this time")
    ] = None,
) -> Response:
    """Search and browse papers with filters, one of three sorts and facet counts."""
    query = paper_query(
        q,
        category,
        source,
        venue,
        status,
        ai_related,
        has_revisions,
        topic,
        author,
        since,
        until,
        sort,
        page,
        size,
        summarized_since,
        has_code,
    )
    # Serialized here rather than validated through the response model: the hits come from our own index in
    # the documented shape, and the model round trip cost more than the search itself (docs/benchmarks.md).
    return Response(orjson.dumps(await find_papers(index, query)), media_type="application/json")


@router.get(
    "/papers/{paper_id:path}",
    response_model=PaperDetail,
    responses={
        200: {
            "headers": {
                "Content-Location": {
                    "description": "the paper's canonical address, e.g. /api/papers/acl:2023.acl-long.2",
                    "schema": {"type": "string"},
                }
            }
        },
        404: {"description": "no paper holds this id"},
        422: {"description": "the text is no paper id; the detail says what is wrong"},
    },
)
async def read_paper(paper: HeldPaper, index: PaperIndexDep, store: StoreDep, response: Response) -> dict[str, Any]:
    """One paper by any id it holds, with every id, its version history and summary.

    The answer is the canonical paper itself (200, no redirect), whichever of its ids was asked: `paper_id` and
    `paper.id` name its canonical id, and the `Content-Location` header its canonical address. So
    `/api/papers/2212.09999v2`, `/api/papers/10.18653/V1/2023.ACL-LONG.2` and `/api/papers/acl:2023.acl-long.2`
    answer the same paper once the preprint and its ACL version are one.
    """
    response.headers["Content-Location"] = paper_url(paper["_id"], under="/api/papers/")
    return await paper_detail(paper, index, store)


def paper_url(paper_id: str, under: str = "/papers/") -> str:
    """The address of a paper (its page, or under another route), the id percent-encoded but for its ':' and '/'."""
    return under + quote(paper_id, safe="/:")


def public_paper(paper_id: str, stored: dict[str, Any]) -> dict[str, Any]:
    """The canonical paper as the schema publishes it, without the normalizer's storage fields (fingerprints,
    write ids, version records pending their own collection)."""
    fields = {name: value for name, value in stored.items() if name in Paper.model_fields}
    return Paper.model_validate({**fields, "id": paper_id}).model_dump(mode="json")


async def paper_detail(paper: dict[str, Any], index: PaperIndex, store: QueryStore) -> dict[str, Any]:
    """A held paper (its `papers` document) with its search document, version history and summary."""
    paper_id = paper.pop("_id")
    document = await index.get(paper_id) or {"paper_id": paper_id, "title": paper.get("title", "")}
    return {
        **document,
        "paper": public_paper(paper_id, paper),
        "history": await store.versions_of(paper_id),
        "summary": document.get("summary"),
        "topic_reasons": document.get("topic_reasons", {}),
    }


class AuthorPapers(BaseModel):
    key: str
    names: list[str] = Field(description="the names this author appears under")
    total: int
    hits: list[PaperHit]


@router.get("/authors/{key}", response_model=AuthorPapers)
async def read_author(
    index: PaperIndexDep,
    key: Annotated[str, Path(pattern=AUTHOR_KEY_PATTERN)],
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    size: Annotated[int, Query(ge=1, le=100)] = 50,
) -> dict[str, Any]:
    """An author's papers across years and venues, newest first."""
    results = await index.search(PaperQuery(filter=PaperFilter(author_key=key), sort="published", page=page, size=size))
    names = sorted({a["name"] for hit in results.hits for a in hit.get("authors_detail", []) if a.get("key") == key})
    return {"key": key, "names": names, "total": results.total, "hits": results.hits}
