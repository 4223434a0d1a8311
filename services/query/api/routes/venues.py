"""GET /api/venues (the venue catalogue: by CCF field, rank and name) and GET /api/venues/{key} (one venue with its
editions, dates, places, deadlines and acceptance rates)."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query

from papertrail.domain.venues.catalogue import Venue
from services.query.api.problems import problem_responses
from services.query.catalogue.reads.venues import VENUE_KEY_PATTERN, VenueQuery, VenueSummary, find_venues, venue_by_key
from services.query.deps import CatalogueDep

router = APIRouter(prefix="/api/venues", tags=["venues"], responses=problem_responses(422))

VENUE_EXAMPLE = {
    "key": "AI/icml",
    "acronym": "ICML",
    "name": "International Conference on Machine Learning",
    "aliases": ["Proc. ICML"],
    "type": "conference",
    "field": "AI",
    "ccf_rank": "A",
    "core_rank": "A*",
    "thcpl_rank": "A",
    "dblp": "icml",
    "editions": [
        {
            "year": 2026,
            "id": "icml26",
            "link": "https://icml.cc/Conferences/2026",
            "dates": "July 6-11, 2026",
            "place": "Seoul, South Korea",
            "timezone": "AoE",
            "deadlines": [{"deadline": "2026-01-28 23:59:59", "abstract_deadline": "2026-01-23 23:59:59"}],
            "submitted": None,
            "accepted": None,
            "acceptance_rate": None,
        }
    ],
}


@router.get(
    "",
    response_model=list[VenueSummary],
    responses={200: {"content": {"application/json": {"example": [VENUE_EXAMPLE | {"editions": None}]}}}},
)
async def list_venues(query: Annotated[VenueQuery, Query()], catalogue: CatalogueDep) -> list[VenueSummary]:
    """The venues of the catalogue (computer science: the ten CCF fields), CCF-A first; by field, rank and name."""
    return find_venues(query, await catalogue.venues.current())


@router.get(
    "/{key:path}",
    response_model=Venue,
    responses={
        200: {"content": {"application/json": {"example": VENUE_EXAMPLE}}},
        **problem_responses((404, "the catalogue holds no venue of this key")),
    },
)
async def read_venue(
    key: Annotated[str, Path(pattern=VENUE_KEY_PATTERN, examples=["AI/icml"])], catalogue: CatalogueDep
) -> Venue:
    """One venue by its catalogue key (`field/acronym`, as a paper's venue claim names it), with every edition (as
    ccf-deadlines last gave them: the harvester reads it a few times a day)."""
    venue = venue_by_key(key, await catalogue.venues.current())
    if venue is None:
        raise HTTPException(404, f"the catalogue holds no venue {key!r} (GET /api/venues lists them)")
    return venue
