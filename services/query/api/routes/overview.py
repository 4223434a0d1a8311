"""GET /api/overview, GET /api/sources and GET /api/summaries/progress: what is new in the window, how fresh each
source is, and how far the AI summaries have come."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query

from services.query.catalogue.reads.freshness import WINDOW_PATTERN
from services.query.catalogue.reads.overview import (
    Overview,
    SourceDetail,
    SummaryProgress,
    overview,
    source_details,
    summary_progress,
)
from services.query.http.deps import CatalogueDep, PaperIndexDep, SettingsDep
from services.query.http.problems import problem_responses

router = APIRouter(prefix="/api", tags=["overview"])


@router.get("/overview", response_model=Overview, responses=problem_responses(422))
async def read_overview(
    index: PaperIndexDep,
    catalogue: CatalogueDep,
    settings: SettingsDep,
    window: Annotated[
        str | None,
        Query(pattern=WINDOW_PATTERN, description="1h to 90d, e.g. 24h or 7d; defaults to the OVERVIEW_WINDOW setting"),
    ] = None,
) -> Overview:
    """New papers, AI-related among them, revisions and new summaries in the window; totals; source freshness."""
    return await overview(index, catalogue, settings, window)


@router.get("/sources", response_model=list[SourceDetail])
async def list_sources(catalogue: CatalogueDep) -> list[SourceDetail]:
    """Each source's state, recent runs and last error."""
    return await source_details(catalogue)


@router.get("/summaries/progress", response_model=SummaryProgress)
async def read_summary_progress(catalogue: CatalogueDep) -> SummaryProgress:
    """Papers waiting for an AI summary, by rank (readers' first) and by why they wait; the last day's summaries."""
    return await summary_progress(catalogue, datetime.now(UTC))
