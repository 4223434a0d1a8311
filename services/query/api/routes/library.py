"""The reader's record (bearer token): the library (saved papers with tags and notes), feedback marks, and citations
of a paper or of the library in BibTeX, RIS or CSL-JSON."""

import asyncio
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, HTTPException, Path, Query, Response, UploadFile
from pydantic import BaseModel, Field

from services.query.catalogue.reads.search import Moment
from services.query.http.deps import HELD_PAPER_ERRORS, CurrentUser, HeldPaper, ImportsDep, LibraryDep
from services.query.http.problems import problem_responses
from services.query.http.write_limits import WriteLimit
from services.query.library.citations import MEDIA_TYPES, CitationFormat, export
from services.query.library.files import CitationFile, citation_file, library_file
from services.query.library.importing import MAX_FILE_BYTES, VERDICTS_SHOWN, ImportBusy
from services.query.library.imports import FileTooLarge, MalformedLibrary, ResolutionStatus
from services.query.library.shelf import (
    LIBRARY_CURSOR_PATTERN,
    BadCursor,
    EntryChange,
    LibraryCursor,
    Mark,
    library_filter,
)
from services.query.library.store import citable

router = APIRouter(prefix="/api", tags=["library"], responses=problem_responses(422))
# your own record: 401 without a valid token; writes count against LIMIT_LIBRARY_WRITES per user
YOURS = problem_responses(401)
WRITES = [Depends(WriteLimit("library_writes", by="user"))]
WRITTEN = YOURS | HELD_PAPER_ERRORS | problem_responses((400, "the body is no JSON"), 429)


class PaperCard(BaseModel):
    title: str
    authors: list[str]
    year: int | None = None
    venue: str | None = None
    status: str
    ids: dict[str, Any]
    current_version: str | None = Field(None, description="label of the paper's newest version", examples=["v3"])


class LibraryEntry(BaseModel):
    paper_id: str = Field(description="the paper's canonical id")
    tags: list[str]
    note: str
    saved_at: datetime
    updated_at: datetime
    paper: PaperCard | None = Field(None, description="the paper, when the normalizer still holds it")
    updated_to: str | None = Field(
        None, description="the version the paper is at now, when a new one appeared after it was saved", examples=["v3"]
    )


class LibraryPage(BaseModel):
    total: int = Field(description="entries matching the filters, on every page")
    items: list[LibraryEntry]
    next_cursor: str | None = Field(None, description="pass as `cursor` for the next page; absent on the last")


class Marks(BaseModel):
    saved: bool = Field(description="in the library (收藏)")
    label: str | None = Field(None, description="positive (saved), negative (不相关, not relevant), or none")
    read: bool = Field(description="marked read (已读)")


class MarkBody(BaseModel):
    mark: Mark = Field(description="save, not_relevant (also takes it out of the library), read; unread, remove undo")


def _entry(entry: dict[str, Any], paper: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**entry, "paper": paper if paper is not None else entry.get("paper")}


@router.get("/me/library", response_model=LibraryPage, responses=YOURS)
async def list_library(
    user: CurrentUser,
    library: LibraryDep,
    tag: Annotated[str | None, Query(max_length=40, description="only entries with this tag")] = None,
    since: Annotated[Moment | None, Query(description="only entries saved at or after this time")] = None,
    q: Annotated[str | None, Query(max_length=200, description="text in the title or the note, case aside")] = None,
    cursor: Annotated[
        str | None,
        Query(
            pattern=LIBRARY_CURSOR_PATTERN,
            max_length=1000,
            description="the page before's `next_cursor`: a place in the list, `<ms since 1970>.<entry id, base64url>`",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """Your saved papers, newest saved first, with the total and a cursor to the next page."""
    try:
        after = LibraryCursor.decode(cursor) if cursor else None
    except BadCursor as error:
        raise HTTPException(422, str(error)) from error
    page, total, next_cursor = await library.entries_page(library_filter(user["_id"], tag, since, q), after, limit)
    return {"total": total, "items": page, "next_cursor": next_cursor.encode() if next_cursor else None}


def citation_response(file: CitationFile, attachment: bool) -> Response:
    headers = {"Content-Disposition": f'attachment; filename="{file.filename}"'} if attachment else {}
    return Response(file.text, media_type=file.media_type, headers=headers)


FormatQuery = Annotated[CitationFormat, Query(alias="format", description="bibtex, ris or csl-json")]
CSL_JSON_ITEMS = {"type": "array", "items": {"type": "object"}}
CITATION_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {
            # CSL-JSON is JSON (an array of items); BibTeX and RIS are text
            media: {
                "schema": {"type": "array", "items": {"type": "object"}} if name == "csl-json" else {"type": "string"}
            }
            for name, media in MEDIA_TYPES.items()
        }
    }
}


@router.get("/papers/{paper_id:path}/cite", response_class=Response, responses=CITATION_RESPONSES | HELD_PAPER_ERRORS)
async def cite_paper(paper: HeldPaper, citation_format: FormatQuery = "bibtex") -> Response:
    """The paper as a citation: BibTeX (arXiv preprints as arXiv writes them: `@misc` with `eprint`,
    `archivePrefix`, `primaryClass`; published papers with venue and DOI), RIS or CSL-JSON, under a stable key."""
    file = citation_file(export([citable(paper)], citation_format), citation_format, paper["_id"])
    return citation_response(file, attachment=False)


@router.get("/me/library/export", response_class=Response, responses=CITATION_RESPONSES | YOURS)
async def export_library(
    user: CurrentUser,
    library: LibraryDep,
    citation_format: FormatQuery = "bibtex",
    tag: Annotated[str | None, Query(max_length=40, description="only the entries with this tag")] = None,
) -> Response:
    """Your whole library (or one tag) as one BibTeX, RIS or CSL-JSON file, newest saved first."""
    return citation_response(await library_file(library, user["_id"], citation_format, tag), attachment=True)


class ImportVerdict(BaseModel):
    line: int = Field(description="where the entry starts in the file, from 1")
    label: str = Field(description="the file's key for it (BibTeX key, RIS ID, CSL id)")
    title: str
    paper_id: str | None = Field(None, description="the paper it is (resolved)")
    by: str | None = Field(None, description="what found it: doi, arxiv, acl, title+author")
    candidates: list[str] | None = Field(None, description="the papers it may be (ambiguous)")


class ImportEntry(ImportVerdict):
    status: str = Field(description="resolved, ambiguous or unresolved")


class ImportEntriesPage(BaseModel):
    total: int = Field(description="verdicts of this kind recorded so far, on every page")
    items: list[ImportEntry]
    next_cursor: str | None = Field(None, description="pass as `cursor` for the next page; absent on the last")


SHOWN = (
    f"the first {VERDICTS_SHOWN:,} in file order (`counts` says how many there are): every one, a page at a time, "
    "from `GET /api/me/library/imports/{id}/entries`"
)


class ImportJob(BaseModel):
    id: str
    filename: str
    format: str | None = Field(None, description="as given; none when detected from the file")
    state: str = Field(description="running or done")
    created_at: datetime
    finished_at: datetime | None = None
    total: int = Field(description="entries in the file")
    cursor: int = Field(description="entries processed so far")
    counts: dict[str, int] = Field(description="resolved, ambiguous, unresolved; added: papers new to your library")
    resolved: list[ImportVerdict] = Field(description=SHOWN)
    ambiguous: list[ImportVerdict] = Field(description=SHOWN)
    unresolved: list[ImportVerdict] = Field(description=SHOWN)


def _job(job: dict[str, Any]) -> dict[str, Any]:
    return {"id": job["_id"], **{k: v for k, v in job.items() if k not in JOB_HIDDEN}}


JOB_HIDDEN = {"_id", "file", "user_id"}
IMPORT_LINKS = {
    operation: {"operationId": operation, "parameters": {"job_id": "$response.body#/id"}}
    for operation in ("read_import", "read_import_entries")
}


@router.post(
    "/me/library/import",
    response_model=ImportJob,
    status_code=201,
    dependencies=[Depends(WriteLimit("imports", by="user"))],
    responses={
        # the job's id reads its progress and verdicts (and schemathesis's stateful phase follows these links)
        201: {"links": IMPORT_LINKS},
        202: {
            "model": ImportJob,
            "description": "a large file: the import runs; follow its Location",
            "links": IMPORT_LINKS,
        },
        **YOURS,
        **problem_responses(
            (400, "the body is not multipart form data that can be read"),
            (409, "an import of yours is still running, or another file of yours is being read"),
            (413, "the file is larger, or holds more entries (LIBRARY_IMPORT_MAX_ENTRIES), than an import takes"),
            429,
        ),
    },
)
async def import_library(
    user: CurrentUser,
    imports: ImportsDep,
    response: Response,
    file: Annotated[UploadFile, File(description="a BibTeX (.bib), RIS (.ris) or CSL-JSON (.json) file")],
    library_format: Annotated[CitationFormat | None, Form(alias="format")] = None,
) -> dict[str, Any]:
    """Import a library file: each entry resolves to a paper by DOI, arXiv id, ACL id, then title + first author;
    resolved papers are saved to your library (a paper already saved keeps its tags and note, so the same file
    twice stores nothing twice). A file whose entries fit one chunk is answered done (201); a larger one runs in
    the background (202) and `GET /api/me/library/imports/{id}` shows its progress. A malformed file is a 422
    naming the line; a file of more entries than LIBRARY_IMPORT_MAX_ENTRIES is a 413 naming the cap and the line of
    the first entry past it, where reading stopped."""
    data = await file.read(MAX_FILE_BYTES + 1)
    try:
        job = await imports.create(user["_id"], data, file.filename or "", library_format)
    except MalformedLibrary as error:
        raise HTTPException(422, f"{file.filename or 'the file'}: {error}") from error
    except ImportBusy as error:
        raise HTTPException(409, str(error)) from error
    except FileTooLarge as error:
        raise HTTPException(413, str(error)) from error
    task = imports.begin(job)
    if task is not None and job["total"] <= imports.chunk_size:
        await asyncio.shield(task)
    done = await imports.job(user["_id"], job["_id"])
    assert done is not None
    response.headers["Location"] = f"/api/me/library/imports/{job['_id']}"
    if done["state"] != "done":
        response.status_code = 202
    return _job(done)


@router.get(
    "/me/library/imports/{job_id}",
    response_model=ImportJob,
    responses=YOURS | problem_responses((404, "no such import of yours")),
)
async def read_import(
    job_id: Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")], user: CurrentUser, imports: ImportsDep
) -> dict[str, Any]:
    """One of your imports: its progress (`cursor` of `total`), its counts and the first verdicts of each kind."""
    job = await imports.job(user["_id"], job_id)
    if job is None:
        raise HTTPException(404, f"no import {job_id}")
    return _job(job)


@router.get(
    "/me/library/imports/{job_id}/entries",
    response_model=ImportEntriesPage,
    responses=YOURS | problem_responses((404, "no such import of yours")),
)
async def read_import_entries(
    job_id: Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")],
    user: CurrentUser,
    imports: ImportsDep,
    status: Annotated[ResolutionStatus | None, Query(description="one kind of verdict; all kinds if left out")] = None,
    cursor: Annotated[str | None, Query(pattern=r"^[0-9]{1,7}$", description="the page before's `next_cursor`")] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
) -> dict[str, Any]:
    """Your import's verdicts recorded so far, in file order, a page at a time: each entry's line, label, title and
    status, with the paper (resolved) or the papers it may be (ambiguous)."""
    page = await imports.verdicts(user["_id"], job_id, status, int(cursor) if cursor else None, limit)
    if page is None:
        raise HTTPException(404, f"no import {job_id}")
    items, total, last = page
    return {"total": total, "items": items, "next_cursor": None if last is None else str(last)}


@router.get(
    "/me/library/{paper_id:paper_id}",
    response_model=LibraryEntry,
    responses=YOURS | problem_responses((404, "no paper holds this id, or it is not in your library"), 422),
)
async def read_entry(user: CurrentUser, paper: HeldPaper, library: LibraryDep) -> dict[str, Any]:
    """One paper of your library, by any id the paper holds; 404 when it is not in your library."""
    entry = await library.entry(user["_id"], paper["_id"])
    if entry is None:
        raise HTTPException(404, f"{paper['_id']} is not in your library")
    cards = await library.paper_cards([paper["_id"]])
    return _entry(entry, cards.get(paper["_id"]))


@router.put("/me/library/{paper_id:paper_id}", response_model=LibraryEntry, dependencies=WRITES, responses=WRITTEN)
async def save_entry(user: CurrentUser, paper: HeldPaper, library: LibraryDep, body: EntryChange) -> dict[str, Any]:
    """Save a paper (by any id it holds; the entry is keyed by its canonical id), or change its tags and note; a
    field left out keeps its value, so the same PUT twice leaves the same entry."""
    entry = await library.save(user["_id"], paper, body, datetime.now(UTC))
    cards = await library.paper_cards([paper["_id"]])
    return _entry(entry, cards.get(paper["_id"]))


@router.delete("/me/library/{paper_id:paper_id}", status_code=204, dependencies=WRITES, responses=WRITTEN)
async def remove_entry(user: CurrentUser, paper: HeldPaper, library: LibraryDep) -> Response:
    """Take a paper out of your library (done already, it is still a 204)."""
    await library.remove(user["_id"], paper["_id"], datetime.now(UTC))
    return Response(status_code=204)


@router.put("/me/feedback/{paper_id:paper_id}", response_model=Marks, dependencies=WRITES, responses=WRITTEN)
async def mark_paper(user: CurrentUser, paper: HeldPaper, library: LibraryDep, body: MarkBody) -> dict[str, Any]:
    """One click on a paper, as the 收藏 / 不相关 / 已读 buttons: save (positive feedback), not_relevant (negative),
    read (neither); your marks on it after. Your feedback trains your 为你推荐 ranking."""
    return await library.apply(user["_id"], paper, body.mark, datetime.now(UTC))


@router.get("/me/feedback", responses=YOURS)
async def list_feedback(
    user: CurrentUser, library: LibraryDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> list[dict[str, Any]]:
    """Your marks, latest change first: paper_id, label (positive / negative / null), labelled_at, read_at."""
    marks = await library.feedback_list(user["_id"], limit)
    return [{k: v for k, v in doc.items() if k not in ("_id", "user_id")} for doc in marks]
