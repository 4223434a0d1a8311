"""The "纠错" (report an error) form of a paper: GET shows it, POST stores the report through the API's own checks
and goes back to the paper page with a thank-you notice; a refusal re-renders the form with the reason."""

from typing import Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from services.query.accounts.corrections import FIELDS, CorrectionDraft, TooManyOpenReports, report_error
from services.query.catalogue.reads.papers import paper_url
from services.query.http.deps import CatalogueDep, ReadersDep
from services.query.http.write_limits import WriteLimit, WriteLimited, reporter
from services.query.web.refusals import validation_text, write_limited_text
from services.query.web.render import (
    Words,
    check_csrf,
    held_paper_or_error_page,
    moved_permanently,
    render,
    see_other,
    signed_in_user,
)

# 2,000 characters of percent-encoded 4-byte UTF-8 plus a contact fit; a longer body is refused, never cut short.
MAX_FORM_BYTES = 32_768
# Included before the pages router: its GET /papers/{paper_id:path} would otherwise take /papers/<id>/correct.
router = APIRouter(include_in_schema=False)


async def report_form(request: Request) -> dict[str, str] | None:
    """The form's fields (the last value of a repeated name wins), or None when the body is too long."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


async def _form_page(
    request: Request, paper: dict[str, Any], form: dict[str, Any], status_code: int = 200, **context: Any
) -> HTMLResponse:
    paper_id = paper["_id"]
    return render(
        request, "correct.html", status_code, user=await signed_in_user(request), paper_id=paper_id,
        paper_url=paper_url(paper_id), title=paper.get("title", paper_id), fields=FIELDS, form=form, **context,
    )  # fmt: skip


@router.get("/papers/{paper_id:path}/correct", response_class=HTMLResponse)
async def show_correction_form(
    paper_id: str, request: Request, catalogue: CatalogueDep, field: str = "other"
) -> Response:
    """The form: which field is wrong (preselected from ?field=), what it should be, an optional contact.
    Under any other id the paper holds: 301 to the form at its canonical address."""
    paper = await held_paper_or_error_page(request, catalogue, paper_id, await signed_in_user(request))
    if isinstance(paper, Response):
        return paper
    if paper["_id"] != paper_id:
        return moved_permanently(request, paper_url(paper["_id"]) + "/correct")
    return await _form_page(request, paper, {"field": field if field in FIELDS else "other"})


CORRECTIONS_LIMIT = WriteLimit("corrections", by="user")


@router.post("/papers/{paper_id:path}/correct", response_class=HTMLResponse, dependencies=[Depends(check_csrf)])
async def send_correction(
    t: Words, paper_id: str, request: Request, catalogue: CatalogueDep, readers: ReadersDep
) -> Response:
    """Store the report (signed-in readers' user id kept with it) on the paper holding the id, and show that paper
    (at its canonical address) with a thank-you notice. A refusal (the write limit among them: counted here, once
    the form is read, so that the form comes back with the reader's text) re-renders the form in the reader's
    language."""
    form = await report_form(request)
    user = await signed_in_user(request)
    try:
        await CORRECTIONS_LIMIT(request)
    except WriteLimited as refused:
        paper = await held_paper_or_error_page(request, catalogue, paper_id, user)
        if isinstance(paper, Response):
            return paper
        error = write_limited_text(refused.limit, refused.retry_after, t)
        page = await _form_page(request, paper, form or {}, 429, error=error)
        page.headers["Retry-After"] = str(refused.retry_after)
        return page
    paper = await held_paper_or_error_page(request, catalogue, paper_id, user)
    if isinstance(paper, Response):
        return paper
    if form is None:
        return await _form_page(
            request,
            paper,
            {},
            413,
            error=t.gettext("the form is longer than %(limit)s KB; shorten it", limit=MAX_FORM_BYTES // 1024),
        )
    try:
        draft = CorrectionDraft.model_validate({k: v for k, v in form.items() if k in ("field", "message", "contact")})
        filer = reporter(request, user)
        await report_error(readers.corrections, paper["_id"], draft, user["_id"] if user else None, filer)
    except ValidationError as error:
        return await _form_page(request, paper, form, 422, error=validation_text(error, t))
    except TooManyOpenReports as refused:
        why = (
            t.ngettext(
                "You have %(count)s open error report on this paper: please wait until operators have handled it.",
                "You have %(count)s open error reports on this paper: please wait until operators have handled them.",
                refused.yours,
                count=refused.yours,
            )
            if refused.yours
            else t.gettext(
                "This paper already has many open error reports: please wait until operators have handled them."
            )
        )
        return await _form_page(request, paper, form, 429, error=why)
    return see_other(paper_url(paper["_id"]) + "?reported=1#reported")
