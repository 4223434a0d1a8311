"""GET /api/institutions (the institutions the papers' authors are at, by name, with paper counts) and
GET /api/institutions/{ror} (one institution with its papers, newest first)."""

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query

from papertrail.domain.author_institutions import ROR_ID_PATTERN
from services.query.api.problems import problem_responses
from services.query.catalogue.reads.institutions import (
    TSINGHUA,
    InstitutionList,
    InstitutionPapers,
    InstitutionQuery,
    find_institutions,
    institution_papers,
)
from services.query.deps import PaperIndexDep

INSTITUTION_EXAMPLE = TSINGHUA | {"papers": 42, "page": 1, "size": 20, "hits": []}
router = APIRouter(prefix="/api/institutions", tags=["institutions"], responses=problem_responses(422))


@router.get("", response_model=InstitutionList)
async def list_institutions(index: PaperIndexDep, query: Annotated[InstitutionQuery, Query()]) -> dict[str, Any]:
    """The institutions (ROR records) the papers' authors are at, most papers first; by words of the English or
    Chinese name (`tsinghua`, `清华`) or the id. Affiliations matched to no ROR record are not listed."""
    return await find_institutions(index, query)


@router.get(
    "/{ror}",
    response_model=InstitutionPapers,
    responses={
        200: {"content": {"application/json": {"example": INSTITUTION_EXAMPLE}}},
        **problem_responses((404, "no paper has an author at an institution of this id")),
    },
)
async def read_institution(
    index: PaperIndexDep,
    ror: Annotated[str, Path(pattern=ROR_ID_PATTERN, description="a ROR id", examples=["03cve4549"])],
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    size: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """One institution by its ROR id, with its names and a page of its papers, newest first (by first
    publication)."""
    found = await institution_papers(index, ror, page, size)
    if found is None:
        raise HTTPException(404, f"no paper has an author at institution {ror!r} (GET /api/institutions lists them)")
    return found
