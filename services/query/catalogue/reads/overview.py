"""The overview: what is new in the window (papers, AI-related ones, revisions, summaries), the totals, and how fresh
each source is, every figure with the API query that lists the papers behind it."""

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, Field

from papertrail.domain.search_document import PaperFilter
from schemas.events import AnnouncementReport
from schemas.summary import NO_MODEL_CONFIGURED, SUMMARY_PRIORITIES
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.freshness import freshness, parse_window
from services.query.catalogue.repositories import CatalogueRecords
from services.query.settings import QuerySettings


class Figure(BaseModel):
    value: int = Field(description="the number")
    query: str | None = Field(None, description="API query listing the papers behind the number")


class VenueFigure(Figure):
    venue: str = Field(description="the venue as the catalogue names it", examples=["ICML"])


# "Accepted this week": papers whose newest version came this week and that hold an accepted claim or a published
# record (the comment of a new version, a proceedings record); at most this many venues, the most papers first.
ACCEPTED_DAYS = 7
ACCEPTED_VENUES = 12


class SourceState(BaseModel):
    source: str
    state: str = Field(description="ok, failing, running or unknown")
    last_completed_scan: datetime | None = None
    last_new_record: datetime | None = None
    last_error: str | None = None
    next_run_at: datetime | None = None
    announcement: AnnouncementReport | None = Field(
        None, description="the announcement watcher's latest window: its categories' batches, stale ones, the gap"
    )


class Overview(BaseModel):
    window_start: datetime
    window_end: datetime
    display_timezone: str
    new_papers: Figure
    new_ai_related: Figure
    revisions: Figure = Field(description="new versions of papers already held")
    new_summaries: Figure
    total_papers: Figure
    total_ai_related: Figure
    total_with_revisions: Figure
    total_hf_picks: Figure
    accepted_this_week: list[VenueFigure] = Field(
        default_factory=list,
        description="venues of the papers accepted this week (a new version's accepted claim or published record), "
        "the most papers first",
    )
    sources: list[SourceState]
    any_source_failing: bool
    last_version_observed: datetime | None = None


def _papers_query(**params: Any) -> str:
    return "/api/papers?" + urlencode({k: v for k, v in params.items() if v is not None}, doseq=True)


async def source_states(catalogue: CatalogueRecords) -> list[SourceState]:
    states = []
    for source in await catalogue.source_runs.sources():
        states.append(
            SourceState(**freshness(source, await catalogue.source_runs.recent_runs(source, limit=50)).as_dict())
        )
    return states


class SourceDetail(SourceState):
    recent_runs: list[dict[str, Any]] = Field(default_factory=list, description="latest runs, newest first")


async def overview(
    index: PaperIndex, catalogue: CatalogueRecords, settings: QuerySettings, window: str | None
) -> Overview:
    """The overview of the window (`window`, else the OVERVIEW_WINDOW setting); ValueError for a window that is
    not one."""
    span = parse_window(window or settings.overview_window)
    end = datetime.now(UTC)
    start = end - span
    since = int(start.timestamp())
    in_window = PaperFilter(dated_by="ingested", since_ts=since)
    new, new_ai, revisions, summaries, total, total_ai, revised, hf, accepted = await asyncio.gather(
        index.count(in_window),
        index.count(replace(in_window, ai_related=True)),
        catalogue.papers.count_versions("new_version", start, end),
        index.count(PaperFilter(summarized_since_ts=since)),  # papers, so the number equals its list's total
        index.count(PaperFilter()),
        index.count(PaperFilter(ai_related=True)),
        index.count(PaperFilter(has_revisions=True)),
        index.count(PaperFilter(sources=["hf"])),
        accepted_this_week(index, end),
    )
    states = await source_states(catalogue)
    since_text = start.isoformat()
    return Overview(
        window_start=start,
        window_end=end,
        display_timezone=settings.display_timezone,
        new_papers=Figure(value=new, query=_papers_query(sort="ingested", since=since_text)),
        new_ai_related=Figure(value=new_ai, query=_papers_query(sort="ingested", since=since_text, ai_related="true")),
        revisions=Figure(value=revisions, query=_papers_query(sort="updated", since=since_text, has_revisions="true")),
        new_summaries=Figure(value=summaries, query=_papers_query(sort="ingested", summarized_since=since_text)),
        total_papers=Figure(value=total, query=_papers_query()),
        total_ai_related=Figure(value=total_ai, query=_papers_query(ai_related="true")),
        total_with_revisions=Figure(value=revised, query=_papers_query(has_revisions="true")),
        total_hf_picks=Figure(value=hf, query=_papers_query(source="hf")),
        accepted_this_week=accepted,
        sources=states,
        any_source_failing=any(s.state == "failing" for s in states),
        last_version_observed=await catalogue.papers.latest_version_time(),
    )


async def accepted_this_week(index: PaperIndex, now: datetime) -> list[VenueFigure]:
    """The venues of the papers accepted in the week before `now`, by the date of their newest version."""
    since = (now - timedelta(days=ACCEPTED_DAYS)).replace(microsecond=0)
    week = PaperFilter(
        accepted=True, dated_by="updated", since_ts=int(since.timestamp()), until_ts=int(now.timestamp())
    )
    return accepted_by_venue(await index.facet(week, "accepted_venues"), since)


def accepted_by_venue(counts: dict[str, int], since: datetime) -> list[VenueFigure]:
    """The venues of the week's accepted papers, the most first (ties by name), each with its list's query."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:ACCEPTED_VENUES]
    return [
        VenueFigure(
            venue=venue,
            value=papers,
            query=_papers_query(venue=venue, accepted="true", sort="updated", since=since.isoformat()),
        )
        for venue, papers in ranked
    ]


async def source_details(catalogue: CatalogueRecords) -> list[SourceDetail]:
    """Each source's state, recent runs and last error."""
    details = []
    for source in await catalogue.source_runs.sources():
        runs = await catalogue.source_runs.recent_runs(source, limit=20)
        for run in runs:
            run.pop("_id", None)
        details.append(SourceDetail(**freshness(source, runs).as_dict(), recent_runs=runs))
    return details


# The summaries' part of the status page: the backlog by rank and by why papers wait, and the last day's summaries.
PROGRESS_WINDOW = timedelta(days=1)
PROGRESS_REASONS = 5


class WaitingRank(BaseModel):
    priority: str = Field(description="the rank, in the sweep's order: readers, community, newest")
    papers: int


class WaitingReason(BaseModel):
    reason: str = Field(description="why they wait, as the summarizer says it", examples=[NO_MODEL_CONFIGURED])
    papers: int


class SummaryProgress(BaseModel):
    waiting: int = Field(description="papers waiting for a summary")
    by_priority: list[WaitingRank] = Field(description="every rank, in the order the sweep takes them")
    by_reason: list[WaitingReason] = Field(description="the commonest reasons, the most papers first")
    no_model: bool = Field(description="papers wait because the summarizer has no model endpoint at all")
    window_start: datetime
    written: int = Field(description="summaries written in the window")
    failed: int = Field(description="summaries that failed their checks (or the model) in the window")


async def summary_progress(catalogue: CatalogueRecords, now: datetime) -> SummaryProgress:
    backlog = catalogue.summary_backlog
    start = now - PROGRESS_WINDOW
    ranks, reasons, written = await asyncio.gather(
        backlog.waiting_by_priority(), backlog.waiting_by_reason(PROGRESS_REASONS), backlog.written_since(start)
    )
    return SummaryProgress(
        waiting=sum(ranks.values()),
        by_priority=[WaitingRank(priority=name, papers=ranks.get(i, 0)) for i, name in enumerate(SUMMARY_PRIORITIES)],
        by_reason=[WaitingReason(reason=reason, papers=papers) for reason, papers in reasons],
        no_model=any(reason == NO_MODEL_CONFIGURED for reason, _ in reasons),
        window_start=start,
        written=written.get("ok", 0),
        failed=written.get("failed", 0),
    )
