"""The reader's library page and the one-click marks (收藏 / 不相关 / 已读) on every card and paper page.

A mark is a plain form POST that redirects back, so it works without JavaScript; static/library.js posts the same
form in the background (asking for JSON) so the page does not reload. Every form carries the CSRF token field.
"""

import re
from datetime import UTC, datetime
from typing import Any, get_args
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError
from starlette.datastructures import UploadFile as StarletteUploadFile

from services.query.http.deps import CatalogueDep, ImportsDep, LibraryDep, PapersDep, SettingsDep, resources_of
from services.query.http.write_limits import WriteLimit
from services.query.library.citations import FORMATS
from services.query.library.files import library_file
from services.query.library.importing import MAX_FILE_BYTES, ImportBusy
from services.query.library.imports import FileTooLarge, MalformedLibrary
from services.query.library.shelf import (
    MAX_TEXT_FILTER,
    BadCursor,
    EntryChange,
    LibraryCursor,
    Mark,
    library_filter,
    tags_from_text,
)
from services.query.moments import in_utc
from services.query.web.account import form_fields, local_path, login_required
from services.query.web.render import (
    Reader,
    Words,
    check_csrf,
    error_page,
    held_paper_or_error_page,
    render,
    see_other,
    signed_in_user,
    words_of,
)

router = APIRouter(include_in_schema=False)
JOB_ID = re.compile(r"^[0-9a-f]{32}$")
PAGE_SIZE = 50
MARKS: tuple[str, ...] = get_args(Mark)


def wants_json(request: Request) -> bool:
    """The page's script asks for JSON; a browser's own form post for a page."""
    return "application/json" in request.headers.get("accept", "")


# every form here: this browser's CSRF token, and the reader's write limits
MARK_WRITES = [Depends(check_csrf), Depends(WriteLimit("library_writes", by="user"))]
IMPORT_WRITES = [Depends(check_csrf), Depends(WriteLimit("imports", by="user"))]


@router.post("/me/marks", response_model=None, dependencies=MARK_WRITES)
async def mark(request: Request, catalogue: CatalogueDep, library: LibraryDep) -> Response:
    """One click on a paper (form fields paper_id, mark, next): the marks after, as JSON for the page's script, or
    back to the page the click came from."""
    user = await signed_in_user(request)
    if user is None:
        if wants_json(request):
            return JSONResponse({"detail": "sign in first"}, status_code=401)
        return login_required(request)
    form = await form_fields(request)
    if form.get("mark") not in MARKS:
        return error_page(request, 422, words_of(request).gettext("Unknown action"), user)
    paper = await held_paper_or_error_page(request, catalogue, form.get("paper_id", ""), user)
    if isinstance(paper, Response):
        return paper
    marks = await library.apply(user["_id"], paper, form["mark"], datetime.now(UTC))  # type: ignore[arg-type]
    if wants_json(request):
        return JSONResponse({"paper_id": paper["_id"], **marks})
    return see_other(local_path(form.get("next"), "/me/library"))


@router.post("/me/library/entry", response_model=None, dependencies=MARK_WRITES)
async def edit_entry(request: Request, user: Reader, catalogue: CatalogueDep, library: LibraryDep) -> Response:
    """Change an entry's tags and note from the library page (saving the paper if it was not saved)."""
    form = await form_fields(request)
    paper = await held_paper_or_error_page(request, catalogue, form.get("paper_id", ""), user)
    if isinstance(paper, Response):
        return paper
    try:
        change = EntryChange(tags=tags_from_text(form.get("tags", "")), note=form.get("note", ""))
    except ValidationError as error:
        detail = "; ".join(e["msg"] for e in error.errors())
        return error_page(request, 422, detail, user)
    await library.save(user["_id"], paper, change, datetime.now(UTC))
    return see_other(local_path(form.get("next"), "/me/library") + f"#entry-{paper['_id']}")


@router.post("/me/library/import", response_model=None, dependencies=IMPORT_WRITES)
async def import_file(t: Words, request: Request, user: Reader, imports: ImportsDep) -> Response:
    """The library page's import form (multipart: file, format): the job's page, which shows its progress."""
    form = await request.form()
    upload, chosen = form.get("file"), str(form.get("format") or "")
    if not isinstance(upload, StarletteUploadFile) or chosen not in ("", *FORMATS):
        return error_page(request, 422, t.gettext("Choose a file to import"), user)
    data = await upload.read(MAX_FILE_BYTES + 1)
    try:
        job = await imports.create(user["_id"], data, upload.filename or "", chosen or None)  # type: ignore[arg-type]
    except MalformedLibrary as error:
        return error_page(
            request,
            422,
            t.gettext("Cannot read %(file)s: %(error)s", file=upload.filename or "", error=str(error)),
            user,
        )
    except (ImportBusy, FileTooLarge) as error:
        return error_page(request, 409 if isinstance(error, ImportBusy) else 413, str(error), user)
    imports.begin(job)
    return see_other(f"/me/library/imports/{job['_id']}")


@router.get("/me/library/imports/{job_id}", response_class=HTMLResponse)
async def show_import(job_id: str, request: Request, user: Reader, imports: ImportsDep) -> HTMLResponse:
    """An import's progress (the page refreshes itself while it runs) and every entry's verdict."""
    job = await imports.job(user["_id"], job_id) if JOB_ID.match(job_id) else None
    if job is None:
        return error_page(request, 404, words_of(request).gettext("Page not found."), user)
    return render(request, "import.html", user=user, job=job)


@router.get("/me/library/export", response_model=None)
async def export_library(
    request: Request, user: Reader, library: LibraryDep, format: str = "bibtex", tag: str | None = None
) -> Response:
    """Your library (or one tag) as a file to download, from the library page's export links."""
    if format not in FORMATS:
        return error_page(request, 422, words_of(request).gettext("The filter is not valid"), user)
    file = await library_file(library, user["_id"], format, tag or None)  # type: ignore[arg-type]
    headers = {"Content-Disposition": f'attachment; filename="{file.filename}"'}
    return Response(file.text, media_type=file.media_type, headers=headers)


@router.get("/me/library", response_class=HTMLResponse)
async def show_library(
    t: Words,
    request: Request,
    user: Reader,
    library: LibraryDep,
    papers: PapersDep,
    settings: SettingsDep,
    tag: str | None = None,
    since: str | None = None,
    q: str | None = None,
    cursor: str | None = None,
) -> HTMLResponse:
    """Your saved papers with their tags and notes (editable), filtered by tag, date saved and text."""
    problem = None
    try:
        # a day as the page's date field gives it, from its start in the zone the pages show times in
        zone = ZoneInfo(settings.display_timezone)
        since_time = in_utc(datetime.fromisoformat(since).replace(tzinfo=zone)) if since else None
        after = LibraryCursor.decode(cursor) if cursor else None
    except (ValueError, BadCursor):
        since_time, after, problem = None, None, t.gettext("The filter is not valid")
    query = library_filter(user["_id"], tag or None, since_time, (q or "")[:MAX_TEXT_FILTER] or None)
    entries, total, next_cursor = await library.entries_page(query, after, PAGE_SIZE)
    filters = {k: v for k, v in {"tag": tag, "since": since, "q": q}.items() if v}
    next_url = "/me/library?" + urlencode({**filters, "cursor": next_cursor.encode()}) if next_cursor else None
    return render(
        request,
        "library.html",
        422 if problem else 200,
        user=user,
        entries=entries,
        total=total,
        tags=await library.tags(user["_id"]),
        filters=filters,
        next_url=next_url,
        problem=problem,
        marks=await library.marks(user["_id"], [e["paper_id"] for e in entries]),
        formats=FORMATS,
        indexed=await papers.by_ids([e["paper_id"] for e in entries]),  # their AI 导读, as cards show it
    )


async def marks_of(request: Request, user: dict[str, Any] | None, paper_ids: list[str]) -> dict[str, Any]:
    """The signed-in reader's marks on a page's papers, for their buttons' state (none when signed out)."""
    if user is None or not paper_ids:
        return {}
    return await resources_of(request).library.marks(user["_id"], paper_ids)
