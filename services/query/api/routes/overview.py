"""GET /api/overview and GET /api/sources: what is new in the window, and how fresh each source is."""

from fastapi import APIRouter, HTTPException, Query

from services.query.deps import PaperIndexDep, SettingsDep, StoreDep
from services.query.reads.overview import Overview, SourceDetail, overview, source_details

router = APIRouter(prefix="/api", tags=["overview"])


@router.get("/overview", response_model=Overview)
async def read_overview(
    index: PaperIndexDep,
    store: StoreDep,
    settings: SettingsDep,
    window: str | None = Query(None, description="e.g. 24h or 7d; defaults to the OVERVIEW_WINDOW setting"),
) -> Overview:
    """New papers, AI-related among them, revisions and new summaries in the window; totals; source freshness."""
    try:
        return await overview(index, store, settings, window)
    except ValueError as error:
        raise HTTPException(422, str(error)) from error


@router.get("/sources", response_model=list[SourceDetail])
async def list_sources(store: StoreDep) -> list[SourceDetail]:
    """Each source's state, recent runs and last error."""
    return await source_details(store)
