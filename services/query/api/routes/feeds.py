"""Atom feeds: per follow (a private key in the URL, since feed readers send no tokens), per topic, per venue, per
search."""

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response

from schemas.paper import ClaimTrack
from services.query.accounts.follows import follow_feed
from services.query.catalogue.index import NoVectors
from services.query.catalogue.reads.atom import FEED_SIZE
from services.query.catalogue.reads.feeds import search_feed, topic_feed, venue_feed
from services.query.catalogue.reads.search import TOPIC_ID_PATTERN, PaperSearch
from services.query.catalogue.reads.venues import VENUE_KEY_PATTERN, venue_by_key
from services.query.http.deps import CatalogueDep, PaperIndexDep, PapersDep, ReadersDep, SettingsDep
from services.query.http.problems import problem_responses
from services.query.settings import QuerySettings

ATOM = "application/atom+xml; charset=utf-8"
ATOM_FEED: dict[int | str, dict[str, Any]] = {
    200: {"description": "an Atom feed", "content": {"application/atom+xml": {"schema": {"type": "string"}}}}
}
router = APIRouter(prefix="/feeds", tags=["feeds"], responses=ATOM_FEED | problem_responses(422))


def feed_url(settings: QuerySettings, request: Request) -> str:
    """The feed's own address (its rel="self" link) under PUBLIC_URL: never the request's Host header, which anyone
    sending the request chooses (and a cache or feed service would then hand the chosen host to others)."""
    query = f"?{request.url.query}" if request.url.query else ""
    return f"{settings.public_url.rstrip('/')}{request.url.path}{query}"


@router.get(
    "/follows/{follow_id}.atom",
    response_class=Response,
    responses=problem_responses((404, "no such feed (wrong follow id or key)")),
)
async def read_follow_feed(
    follow_id: Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")],
    key: Annotated[str, Query(max_length=64)],
    readers: ReadersDep,
    papers: PapersDep,
    settings: SettingsDep,
    request: Request,
) -> Response:
    """The latest papers matching one follow."""
    body = await follow_feed(readers, papers, settings.public_url, follow_id, key, feed_url(settings, request))
    if body is None:
        raise HTTPException(404, "no such feed (wrong follow id or key)")
    return Response(body, media_type=ATOM)


@router.get("/topics/{topic_id}.atom", response_class=Response)
async def read_topic_feed(
    topic_id: Annotated[str, Path(pattern=TOPIC_ID_PATTERN)],
    index: PaperIndexDep,
    settings: SettingsDep,
    request: Request,
) -> Response:
    """The latest papers hitting a catalogue topic."""
    return Response(
        await topic_feed(index, settings.public_url, topic_id, feed_url(settings, request)), media_type=ATOM
    )


@router.get(
    "/venues/{key:path}.atom",
    response_class=Response,
    responses=problem_responses((404, "the catalogue holds no venue of this key")),
)
async def read_venue_feed(
    key: Annotated[str, Path(pattern=VENUE_KEY_PATTERN, examples=["AI/icml"])],
    index: PaperIndexDep,
    catalogue: CatalogueDep,
    settings: SettingsDep,
    request: Request,
    year: Annotated[int | None, Query(ge=1950, le=2100, description="only this edition")] = None,
    track: Annotated[ClaimTrack | None, Query(description="only this track (none: every track but workshops)")] = None,
) -> Response:
    """The latest papers accepted at a catalogue venue (its key as GET /api/venues gives it), newest first by when
    PaperTrail first saw them; each entry says where the acceptance was read."""
    venue = venue_by_key(key, await catalogue.venues.current())
    if venue is None:
        raise HTTPException(404, f"the catalogue holds no venue {key!r} (GET /api/venues lists them)")
    body = await venue_feed(index, settings.public_url, venue, year, track, feed_url(settings, request))
    return Response(body, media_type=ATOM)


@router.get("/search.atom", response_class=Response, responses=problem_responses(503))
async def read_search_feed(
    index: PaperIndexDep,
    settings: SettingsDep,
    request: Request,
    search: Annotated[PaperSearch, Query()],
) -> Response:
    """The latest papers of a search (the filters of GET /api/papers), newest first by when PaperTrail first saw
    them, for a feed reader."""
    query = search.paper_query(sort="ingested", page=1, size=FEED_SIZE)
    try:
        body = await search_feed(index, settings.public_url, query, request.url.query, feed_url(settings, request))
    except NoVectors as error:
        raise HTTPException(503, str(error)) from error
    return Response(body, media_type=ATOM)
