"""会议截稿: the page of upcoming submission deadlines (/deadlines) by CCF field and rank, in the display zone (Beijing
time by default) or the one asked for, and the same deadlines as an iCal feed (/deadlines.ics) a calendar subscribes
to."""

from datetime import datetime
from zoneinfo import ZoneInfo, available_timezones

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from icalendar import Calendar, Event
from pydantic import ValidationError

from papertrail.domain.venues.deadlines import UpcomingDeadline
from papertrail.runtime.wording import SITE_NAME, BothLanguages, Translator
from services.query.catalogue.reads.venues import CCF_FIELDS, DeadlineQuery, awaited, deadlines
from services.query.http.deps import CatalogueDep, NowDep, SettingsDep
from services.query.web.follow_here import follows_here
from services.query.web.refusals import validation_text
from services.query.web.render import Words, render, signed_in_user

router = APIRouter(include_in_schema=False)
LISTS = ("field", "ccf_rank")


def _query(request: Request, t: Translator | None = None) -> tuple[DeadlineQuery, str | None]:
    """The page's filters from the query string; on bad values none and a message naming the parameters (in the
    reader's language when `t` is given: the page; the calendar feed's answer is the parameters' own words)."""
    raw: dict[str, list[str]] = {}
    for name, value in request.query_params.multi_items():
        if name in LISTS and value.strip():
            raw.setdefault(name, []).append(value)
    try:
        return DeadlineQuery.model_validate(raw), None
    except ValidationError as error:
        if t is not None:
            labels = {"field": t.gettext("Field"), "ccf_rank": t.gettext("CCF rank")}
            return DeadlineQuery(), validation_text(error, t, labels)
        return DeadlineQuery(), "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())


@router.get("/deadlines", response_class=HTMLResponse)
async def show_deadlines(
    t: Words, request: Request, settings: SettingsDep, now: NowDep, catalogue: CatalogueDep
) -> HTMLResponse:
    """Upcoming deadlines of the catalogue's venues, soonest first, filtered by field and rank; then the followed and
    CCF-A venues whose next deadline is not announced yet, each with its last one."""
    query, problem = _query(request, t)
    zone = request.query_params.get("tz") or settings.display_timezone
    if zone not in available_timezones():
        problem, zone = (
            t.gettext("No such time zone: %(zone)s (e.g. Asia/Shanghai)", zone=zone),
            settings.display_timezone,
        )
    user = await signed_in_user(request)
    here = await follows_here(request, user)
    venues = await catalogue.venues.current()
    followed = {f.venue_key for f in here.follows if f.kind == "venue" and f.venue_key}
    rows = [] if problem else deadlines(query, now, venues)
    waiting = [] if problem else awaited(query, now, venues, followed)
    return render(
        request, "deadlines.html", 422 if problem else 200, user=user, query=query,
        here=here, rows=rows, awaited=waiting, now=now, shown_zone=zone, fields=CCF_FIELDS,
        problem=problem,
        local=lambda moment: moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M"),
    )  # fmt: skip


@router.get("/deadlines.ics")
async def deadlines_calendar(request: Request, now: NowDep, catalogue: CatalogueDep) -> Response:
    """The upcoming deadlines as an iCalendar feed (RFC 5545), times in UTC; ?field= and ?ccf_rank= as on the page."""
    query, problem = _query(request)
    if problem:
        return Response(problem, status_code=422, media_type="text/plain; charset=utf-8")
    rows = deadlines(query, now, await catalogue.venues.current())
    return Response(
        calendar(rows, now), media_type="text/calendar; charset=utf-8",
        headers={"Content-Disposition": 'inline; filename="papertrail-deadlines.ics"'},
    )  # fmt: skip


def calendar(rows: list[UpcomingDeadline], now: datetime) -> bytes:
    """One event per deadline, at the deadline (UTC), its UID stable across refreshes of the feed."""
    feed = Calendar()
    feed.add("prodid", f"-//{SITE_NAME}//deadlines//ZH")
    feed.add("version", "2.0")
    feed.add("x-wr-calname", "PaperTrail " + BothLanguages(" ").gettext("Deadlines"))  # a calendar app has no ?lang=
    for row in rows:
        event = Event()
        edition = row.edition.id or f"{row.venue.acronym.lower()}{row.edition.year}"
        event.add("uid", f"{row.venue.key}/{edition}/{row.kind}/{row.at:%Y%m%dT%H%M%SZ}@papertrail")
        event.add("dtstamp", now)
        event.add("dtstart", row.at)
        event.add("dtend", row.at)
        rank = f" · CCF-{row.venue.ccf_rank}" if row.venue.ccf_rank else ""
        kind = "abstract" if row.kind == "abstract" else "paper"
        event.add("summary", f"{row.venue.acronym} {row.edition.year} {kind} deadline{rank}")
        lines = [row.venue.name, row.as_written, row.edition.place or "", row.comment or ""]
        event.add("description", "\n".join(line for line in lines if line))
        if row.edition.link:
            event.add("url", row.edition.link)
        feed.add_component(event)
    return feed.to_ical()
