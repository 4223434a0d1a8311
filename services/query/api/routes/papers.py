"""GET /api/papers (search and browse, by words and meaning), GET /api/papers/{id} (one paper with its history),
GET /api/papers/{id}/similar (the papers closest in meaning), authors."""

from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field

from services.query.catalogue.index import NoVectors
from services.query.catalogue.reads.papers import (
    PaperHit,
    SimilarHit,
    author_papers,
    find_papers,
    paper_detail,
    paper_url,
    similar_papers,
)
from services.query.catalogue.reads.search import AUTHOR_KEY_PATTERN, PaperListing, SearchMode, SimilarSearch
from services.query.http.deps import HELD_PAPER_ERRORS, CatalogueDep, HeldPaper, PaperIndexDep, SettingsDep
from services.query.http.problems import problem_responses

router = APIRouter(prefix="/api", tags=["papers"], responses=problem_responses(422))


class InstitutionName(BaseModel):
    name: str = Field(description="the ROR record's name", examples=["Tsinghua University"])
    name_zh: str | None = Field(None, description="its Chinese label, when ROR has one", examples=["清华大学"])
    country: str | None = Field(None, description="ISO 3166 country code", examples=["CN"])


class PaperSearchResponse(BaseModel):
    total: int = Field(description="papers matching the query and filters")
    page: int
    size: int
    sort: str
    mode: SearchMode = Field(
        description="which search answered: keyword (words), hybrid (words and meaning blended by `semantic`) or "
        "semantic (meaning only); keyword when there is no `q` to embed"
    )
    by_meaning_instead: bool = Field(
        False,
        description="true: `q` was searched by words (`semantic=0`), holds Chinese (Japanese, Korean) characters and "
        "no paper holds them, so the multilingual search vectors answered by meaning (`mode`: semantic)",
    )
    closest: int | None = Field(
        None,
        description="a search by meaning alone lists at most this many papers, the closest first (fewer when fewer "
        "reach `min_score`): `total` counts those listed, not every paper somewhat near",
        examples=[50],
    )
    min_score: float | None = Field(
        None, description="a search with weight on meaning: the ranking score a paper needed to be listed"
    )
    hits: list[PaperHit]
    more_by_meaning: list[PaperHit] = Field(
        default_factory=list,
        description="a search by words (`semantic=0`) in Chinese (Japanese, Korean) that found fewer than 10 papers "
        "(only papers with an AI summary hold Chinese words): up to 10 more closest in meaning to the papers found "
        "(the centroid of their vectors; while none of those has its vector yet, of the first five embedded by the "
        "search itself), else to the words by the multilingual search vectors; those in `hits` left out; not counted "
        "in `total`; empty otherwise",
    )
    facets: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="counts per filter value; `institution`: papers per ROR id (the most counted 100)",
        examples=[{"categories": {"cs.CL": 12}, "institution": {"03cve4549": 3, "03vs3wt56": 1}}],
    )
    institution_names: dict[str, InstitutionName] = Field(
        default_factory=dict,
        description="the names of the institutions the `institution` facet counts, by ROR id",
        examples=[{"03cve4549": {"name": "Tsinghua University", "name_zh": "清华大学"}}],
    )


class PaperDetail(PaperHit):
    searchable: bool = Field(
        description="whether search, browse and feeds find the paper yet; false for a paper the index does not hold "
        "yet (its fields then come from the canonical record, with no summary or topics)"
    )
    paper: dict[str, Any] = Field(description="the canonical paper: every id, authors, versions, times")
    history: list[dict[str, Any]] = Field(description="version records #1..n: what changed, from which source")
    changes: list[dict[str, Any]] = Field(
        default_factory=list,
        description="what each new version changed, newest first: `seq`, `version` (the source's label), "
        "`previous_version`, `date` (the source's, else when observed), `observed_at` and `fields`, each with "
        "`field` (title, authors, abstract, comments, categories), `before`, `after`, and for title and abstract a "
        "word-level `diff` (runs with `op` equal, delete or insert and their `text`), for lists `added` and "
        "`removed`; versions recorded before this was kept list none",
    )
    summary: dict[str, Any] | None = Field(
        None,
        description="the AI summary, or its status; a community summary (shown until ours is written) names its "
        "`publisher`, `model` and `published_on`",
    )
    summary_queue_place: int | None = Field(
        None,
        description="while a summary of ours is being written: the paper's place in the queue (1 is next); null when "
        "it is written, or when none is being written (no summary model configured)",
        examples=[3],
    )
    topic_reasons: dict[str, list[dict[str, Any]]] = Field(default_factory=dict, description="why it hits topics")


@router.get(
    "/papers",
    response_model=PaperSearchResponse,
    # a hit's id reads the paper and reports an error in it (and schemathesis's stateful phase follows these links)
    responses={
        200: {
            "links": {
                operation: {"operationId": operation, "parameters": {"paper_id": "$response.body#/hits/0/paper_id"}}
                for operation in ("read_paper", "read_similar_papers", "create_correction")
            }
        },
        **problem_responses(503),
    },
)
async def search_papers(index: PaperIndexDep, search: Annotated[PaperListing, Query()]) -> Response:
    """Search and browse papers with filters, one of three sorts and facet counts."""
    query = search.query()
    try:
        found = await find_papers(index, query)
    except NoVectors as error:
        raise HTTPException(503, str(error)) from error
    # Serialized here rather than validated through the response model: the hits come from our own index in
    # the documented shape, and the model round trip cost more than the search itself (docs/benchmarks.md).
    return Response(orjson.dumps(found), media_type="application/json")


class SimilarPapers(BaseModel):
    paper_id: str = Field(description="canonical id of the paper asked about")
    vector: Literal["embedded", "pending", "failed"] = Field(
        description="the paper's own vector: embedded (hits listed); pending (not embedded yet: no hits for now); "
        "failed (its text cannot be embedded: no hits)"
    )
    model: str = Field(description="the model the vectors are of", examples=["local/all-MiniLM-L6-v2-int8/384/256"])
    hits: list[SimilarHit] = Field(description="the closest papers first, the paper itself left out")


@router.get(
    "/papers/{paper_id:path}/similar",
    response_model=SimilarPapers,
    responses=HELD_PAPER_ERRORS,
)
async def read_similar_papers(
    paper: HeldPaper,
    index: PaperIndexDep,
    catalogue: CatalogueDep,
    settings: SettingsDep,
    search: Annotated[SimilarSearch, Query()],
) -> dict[str, Any]:
    """The papers closest in meaning to one paper (title and abstract), each with its score; filters as on
    /api/papers. A paper without a vector yet says so in `vector` and lists none."""
    return await similar_papers(index, catalogue, paper["_id"], search, settings.model_key)


@router.get(
    "/papers/{paper_id:paper_id}",
    response_model=PaperDetail,
    responses={
        200: {
            "description": "the paper",
            "headers": {
                "Content-Location": {
                    "description": "the paper's canonical address, e.g. /api/papers/acl:2023.acl-long.2",
                    "schema": {"type": "string"},
                }
            },
        },
        **HELD_PAPER_ERRORS,
    },
)
async def read_paper(
    paper: HeldPaper, index: PaperIndexDep, catalogue: CatalogueDep, response: Response
) -> dict[str, Any]:
    """One paper by any id it holds, with every id, its version history and summary.

    The answer is the canonical paper itself (200, no redirect), whichever of its ids was asked: `paper_id` and
    `paper.id` name its canonical id, and the `Content-Location` header its canonical address. So
    `/api/papers/2212.09999v2`, `/api/papers/10.18653/V1/2023.ACL-LONG.2` and `/api/papers/acl:2023.acl-long.2`
    answer the same paper once the preprint and its ACL version are one.
    """
    response.headers["Content-Location"] = paper_url(paper["_id"], under="/api/papers/")
    return await paper_detail(paper, index, catalogue)


class AuthorCandidate(BaseModel):
    key: str = Field(description="the author's page key: the full name as written", examples=["li yinghui"])
    name: str = Field(description="the name as most papers write it", examples=["Yinghui Li"])
    papers: int = Field(description="how many papers sign it, among the latest 1,000 of the family name and initial")


class AuthorPapers(BaseModel):
    key: str = Field(description="the full name as written, folded, family name first", examples=["li yinghui"])
    names: list[str] = Field(description="the names this author appears under")
    total: int
    hits: list[PaperHit]
    initial_key: str = Field(description="family name and initial: every author it may stand for", examples=["li y"])
    initials_only: bool = Field(description="the name gives only initials (`Y. Li`): it may be any candidate")
    candidates: list[AuthorCandidate] = Field(
        description="for a name of initials only: the authors with its family name and initial, most papers first"
    )


@router.get("/authors/{key}", response_model=AuthorPapers)
async def read_author(
    index: PaperIndexDep,
    key: Annotated[str, Path(pattern=AUTHOR_KEY_PATTERN)],
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    size: Annotated[int, Query(ge=1, le=100)] = 50,
) -> dict[str, Any]:
    """An author's papers across years and venues, newest first: `key` is the full name as written, folded, family
    name first (`li yinghui`, as `/authors/` pages link it). A key of initials only (`li y`, `li y k`), the form of
    every key before full names, lists the papers signed so and the authors it may stand for (`candidates`)."""
    return await author_papers(index, key, page, size)
