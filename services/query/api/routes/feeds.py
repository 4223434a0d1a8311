"""Atom feeds: per follow (a private key in the URL, since feed readers send no tokens), per topic, per search."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response

from papertrail.search_document import PaperFilter
from services.query.api.routes.papers import HAS_CODE, paper_query
from services.query.atom import render_atom
from services.query.deps import PaperIndexDep, SettingsDep, StoreDep
from services.query.search import PaperQuery

router = APIRouter(prefix="/feeds", tags=["feeds"])
ATOM = "application/atom+xml; charset=utf-8"


@router.get("/follows/{follow_id}.atom", response_class=Response)
async def read_follow_feed(
    follow_id: Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")],
    key: Annotated[str, Query(max_length=64)],
    store: StoreDep,
    index: PaperIndexDep,
    settings: SettingsDep,
    request: Request,
) -> Response:
    """The latest papers matching one follow."""
    follow = await store.follow_by_feed_key(follow_id, key)
    if follow is None:
        raise HTTPException(404, "no such feed (wrong follow id or key)")
    matches = await store.matches_for(follow.user_id, follow_id=follow_id, limit=50)
    papers = await index.by_ids([m["paper_id"] for m in matches])
    ordered = [papers[m["paper_id"]] for m in matches if m["paper_id"] in papers]
    body = render_atom(
        feed_id=f"{settings.public_url}/feeds/follows/{follow_id}",
        title=f"PaperTrail · {follow.name}",
        self_url=str(request.url),
        site_url=settings.public_url,
        papers=ordered,
        updated={m["paper_id"]: m["matched_at"] for m in matches},
    )
    return Response(body, media_type=ATOM)


@router.get("/topics/{topic_id}.atom", response_class=Response)
async def read_topic_feed(
    topic_id: Annotated[str, Path(pattern=r"^[a-z0-9_\-]{1,64}$")],
    index: PaperIndexDep,
    settings: SettingsDep,
    request: Request,
) -> Response:
    """The latest papers hitting a catalogue topic."""
    results = await index.search(PaperQuery(filter=PaperFilter(topic_id=topic_id), sort="ingested", size=50))
    body = render_atom(
        feed_id=f"{settings.public_url}/feeds/topics/{topic_id}",
        title=f"PaperTrail · {topic_id}",
        self_url=str(request.url),
        site_url=settings.public_url,
        papers=results.hits,
    )
    return Response(body, media_type=ATOM)


@router.get("/search.atom", response_class=Response)
async def read_search_feed(
    index: PaperIndexDep,
    settings: SettingsDep,
    request: Request,
    q: Annotated[str, Query(max_length=500)] = "",
    category: Annotated[list[str], Query(max_length=20)] = [],  # noqa: B006
    has_code: Annotated[bool | None, Query(description=HAS_CODE)] = None,
) -> Response:
    """The latest papers of a search, for a feed reader."""
    results = await index.search(paper_query(q=q, category=category, has_code=has_code, sort="ingested", size=50))
    body = render_atom(
        feed_id=f"{settings.public_url}/feeds/search?{request.url.query}",
        title=f"PaperTrail · {q or 'all papers'}",
        self_url=str(request.url),
        site_url=settings.public_url,
        papers=results.hits,
    )
    return Response(body, media_type=ATOM)
