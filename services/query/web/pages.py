"""Public pages: home (overview and paper browser), paper, topics, topic, author, institution and sources. Read-only
GETs."""

import asyncio
import re
from datetime import UTC, datetime
from typing import Any, get_args
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from papertrail.domain.author_institutions import is_ror_id
from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.search_document import SEARCH_EMBEDDER, PaperFilter
from papertrail.domain.text import has_han
from schemas.paper import ClaimTrack
from services.query.catalogue.index import NoVectors, PaperIndex
from services.query.catalogue.reads.institutions import institution_papers
from services.query.catalogue.reads.overview import overview, source_details, summary_progress
from services.query.catalogue.reads.papers import author_papers, find_papers, paper_detail, paper_url, similar_papers
from services.query.catalogue.reads.search import (
    AUTHOR_KEY_PATTERN,
    MEANING_MIN_SCORE,
    TOPIC_ID_PATTERN,
    SimilarSearch,
)
from services.query.catalogue.reads.topics import NoSuchTopic, topic_papers
from services.query.catalogue.repositories import CatalogueRecords
from services.query.http.deps import CatalogueDep, PaperIndexDep, ReadersDep, SettingsDep
from services.query.library.citations import FORMATS, export
from services.query.library.store import citable
from services.query.web import format as fmt
from services.query.web.browse import SORTS, api_query_to_page, parse_browse
from services.query.web.follow_here import follows_here
from services.query.web.library import marks_of
from services.query.web.render import (
    Words,
    error_page,
    held_paper_or_error_page,
    moved_permanently,
    render,
    signed_in_user,
    words_of,
)

router = APIRouter(include_in_schema=False)
AUTHOR_KEY = re.compile(AUTHOR_KEY_PATTERN)
TOPIC_ID = re.compile(TOPIC_ID_PATTERN)
PAGE_SIZE = 20  # papers of a topic page


async def _meaning_ready(index: PaperIndex, catalogue: CatalogueRecords, text: str) -> tuple[str, str] | None:
    """(papers with a vector of the model this text is searched by, papers indexed) while some still wait for one
    (a fresh start embeds its papers in the background, minutes for a thousand): a search by meaning sees only those."""
    meaning = index.meaning_for(text)
    ready = await catalogue.vectors.settled_count(
        meaning.query_embedder.model_key, search=meaning.embedder == SEARCH_EMBEDDER
    )
    total = await index.count(PaperFilter())
    return (f"{ready:,}", f"{total:,}") if ready < total else None


@router.get("/", response_class=HTMLResponse)
async def show_home(
    request: Request, index: PaperIndexDep, catalogue: CatalogueDep, settings: SettingsDep
) -> HTMLResponse:
    """The overview of the window, source freshness and the paper browser."""
    window = await overview(index, catalogue, settings, None)
    browse, problem, rejected = parse_browse(request.query_params.multi_items(), words_of(request))
    results: dict[str, Any] = {"total": 0, "hits": [], "more_by_meaning": [], "facets": {}}
    try:
        if not problem:  # a bad filter lists nothing: the whole collection would read as the filter's answer
            results = await find_papers(index, browse.query())
    except NoVectors:  # the API says which of the two; a reader needs to know only that words still search
        problem = words_of(request).gettext(
            "Searching by meaning is not available here (the index holds no vectors, or this text cannot "
            "be embedded): choose matching by words."
        )
    by_meaning = results.get("mode", "keyword") != "keyword"
    # a search by meaning, or the papers close in meaning below a few found by words, sees only the papers embedded
    shows_meaning = by_meaning or bool(results["more_by_meaning"])
    meaning_ready = await _meaning_ready(index, catalogue, browse.q) if shows_meaning and not problem else None
    links = {name: api_query_to_page(getattr(window, name).query) for name in type(window).model_fields
             if name.startswith(("new_", "total_", "revisions"))}  # fmt: skip
    accepted = [(f.venue, f.value, api_query_to_page(f.query)) for f in window.accepted_this_week]
    user = await signed_in_user(request)
    marks = await marks_of(request, user, [hit["paper_id"] for hit in results["hits"]])
    return render(
        request, "home.html", 422 if problem else 200, user=user, marks=marks,
        overview=window, links=links, accepted=accepted, browse=browse, sorts=SORTS, results=results, problem=problem,
        rejected=rejected,
        track_names=get_args(ClaimTrack),
        meaning_min_score=results.get("min_score") or MEANING_MIN_SCORE,
        by_meaning_instead=results.get("by_meaning_instead", False),
        # the 匹配方式 selector shows what answered: by meaning, when Chinese words no paper holds were searched so
        semantic_shown=1.0 if results.get("by_meaning_instead") else browse.semantic,
        meaning_ready=meaning_ready,
        # a Chinese search that found nothing, and a model that cannot read it: say why, not only "0 papers"
        chinese_hint=not results["total"] and has_han(browse.q or "") and settings.reads_chinese is False,
        pages=fmt.page_numbers(browse.page, results["total"], browse.size),
        here=await follows_here(request, user),
    )  # fmt: skip


@router.get("/papers/{paper_id:path}", response_class=HTMLResponse)
async def show_paper(
    paper_id: str, request: Request, index: PaperIndexDep, catalogue: CatalogueDep, settings: SettingsDep
) -> Response:
    """One paper: both titles, authors, institutions, summary, version history, ids and links, topic hits.
    Under any other id it holds (`/papers/2212.09999v2`, `/papers/10.18653/v1/…`): 301 to its canonical address."""
    user = await signed_in_user(request)
    paper = await held_paper_or_error_page(request, catalogue, paper_id, user)
    if isinstance(paper, Response):
        return paper
    if paper["_id"] != paper_id:
        return moved_permanently(request, paper_url(paper["_id"]))
    cite_format = request.query_params.get("cite")
    cite_format = cite_format if cite_format in FORMATS else "bibtex"
    citation = export([citable(paper)], cite_format)  # type: ignore[arg-type]
    detail = await paper_detail(paper, index, catalogue)
    topics = {topic.id: topic for topic in load_catalogue()}
    names = fmt.subtopic_names(list(topics.values()))
    hits = [
        (topics.get(topic_id), topic_id, fmt.with_zh_subtopics(topic_id, reasons, names))
        for topic_id, reasons in sorted(detail["topic_reasons"].items())
    ]
    reported = request.query_params.get("reported") == "1"  # back from the 纠错 form: thank the reader
    similar = await similar_papers(index, catalogue, paper_id, SimilarSearch(), settings.model_key)
    marks = await marks_of(request, user, [paper_id])
    return render(
        request, "paper.html", user=user, paper=detail, topic_hits=hits, reported=reported, marks=marks,
        citation=citation, cite_format=cite_format, cite_formats=FORMATS, cite_open="cite" in request.query_params,
        similar=similar,
        here=await follows_here(request, user),
    )  # fmt: skip


@router.get("/topics", response_class=HTMLResponse)
async def show_topics(request: Request) -> HTMLResponse:
    """The topic catalogue with Chinese names and subtopics."""
    return render(request, "topics.html", user=await signed_in_user(request), topics=load_catalogue())


@router.get("/topics/{topic_id}", response_class=HTMLResponse)
async def show_topic(
    t: Words, topic_id: str, request: Request, index: PaperIndexDep, readers: ReadersDep, page: int = 1
) -> HTMLResponse:
    """Papers hitting a topic, each with which subtopic and term hit in which field; a follow button (signed out:
    to the sign-in form, coming back here), or, when the reader follows the topic, a link to their follows."""
    user = await signed_in_user(request)
    if not TOPIC_ID.match(topic_id):
        return error_page(request, 404, t.gettext("No such topic: %(id)s", id=topic_id), user)
    page = min(max(page, 1), 1000)
    try:
        listing = await topic_papers(index, topic_id, page, PAGE_SIZE)
    except NoSuchTopic:
        return error_page(request, 404, t.gettext("No such topic: %(id)s", id=topic_id), user)
    names = fmt.subtopic_names(load_catalogue())
    for hit in listing["hits"]:
        hit["reasons"] = fmt.with_zh_subtopics(topic_id, hit["reasons"], names)
    marks = await marks_of(request, user, [hit["paper_id"] for hit in listing["hits"]])
    follows = await readers.follows.list_follows(user["_id"]) if user else []
    following = any(follow.kind == "topic" and follow.topic_id == topic_id for follow, _ in follows)
    return render(
        request, "topic.html", user=user, listing=listing, page=page, marks=marks, following=following,
        pages=fmt.page_numbers(page, listing["total"], PAGE_SIZE),
    )  # fmt: skip


@router.get("/authors/{key}", response_class=HTMLResponse)
async def show_author(key: str, request: Request, index: PaperIndexDep) -> Response:
    """An author's papers across years and venues, newest first. A key of initials only lists the authors it may
    stand for; an old initial key ("li y") that no paper signs as such and that stands for one name goes there."""
    user = await signed_in_user(request)
    if not AUTHOR_KEY.match(key):
        return error_page(request, 404, words_of(request).gettext("Not an author key: %(key)s", key=key), user)
    author = await author_papers(index, key, page=1, size=100)
    if author["key"] != key:  # an old initial key that stands for one name: that name's page
        return RedirectResponse(f"/authors/{quote(author['key'])}", status_code=307)
    return render(request, "author.html", user=user, author=author, here=await follows_here(request, user))


@router.get("/institutions/{ror}", response_class=HTMLResponse)
async def show_institution(t: Words, ror: str, request: Request, index: PaperIndexDep, page: int = 1) -> Response:
    """An institution's papers, newest first, with its Chinese name: 404 for an id no paper names, 422 for text that
    is no ROR id."""
    user = await signed_in_user(request)
    if not is_ror_id(ror):
        return error_page(request, 422, t.gettext("Not a ROR id: %(ror)s (like 03cve4549)", ror=ror), user)
    page = min(max(page, 1), 1000)
    institution = await institution_papers(index, ror, page, PAGE_SIZE)
    if institution is None:
        return error_page(
            request, 404, t.gettext("No paper has an author at this institution yet: %(ror)s", ror=ror), user
        )
    marks = await marks_of(request, user, [hit["paper_id"] for hit in institution["hits"]])
    return render(
        request, "institution.html", user=user, institution=institution, marks=marks,
        pages=fmt.page_numbers(page, institution["papers"], PAGE_SIZE), here=await follows_here(request, user),
    )  # fmt: skip


@router.get("/sources", response_class=HTMLResponse)
async def show_sources(request: Request, catalogue: CatalogueDep) -> HTMLResponse:
    """How far the AI summaries have come, then each source's state, last completed scan, last new record, recent runs
    and last error."""
    sources, summaries = await asyncio.gather(source_details(catalogue), summary_progress(catalogue, datetime.now(UTC)))
    return render(request, "sources.html", user=await signed_in_user(request), sources=sources, summaries=summaries)
