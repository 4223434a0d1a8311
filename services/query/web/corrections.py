"""The "纠错" (report an error) form of a paper: GET shows it, POST stores the report through the API's own checks
and goes back to the paper page with a thank-you notice; a refusal re-renders the form with the reason."""

from typing import Any
from urllib.parse import parse_qsl, quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from services.query.api.routes.corrections import report_error
from services.query.corrections import FIELDS, CorrectionDraft
from services.query.deps import StoreDep
from services.query.store import QueryStore
from services.query.web.i18n import Translator
from services.query.web.render import error_page, language, render, see_other, signed_in_user

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


def paper_url(paper_id: str) -> str:
    return "/papers/" + quote(paper_id, safe="/:")


async def _form_page(
    request: Request, store: QueryStore, paper_id: str, form: dict[str, Any], status_code: int = 200, **context: Any
) -> HTMLResponse:
    user = await signed_in_user(request)
    paper = await store.paper(paper_id) if paper_id.isprintable() and len(paper_id) <= 300 else None
    if paper is None:
        return error_page(request, 404, Translator(language(request))("paper_not_found", id=paper_id), user)
    return render(
        request, "correct.html", status_code, user=user, paper_id=paper_id, paper_url=paper_url(paper_id),
        title=paper.get("title", paper_id), fields=FIELDS, form=form, **context,
    )  # fmt: skip


@router.get("/papers/{paper_id:path}/correct", response_class=HTMLResponse)
async def show_correction_form(paper_id: str, request: Request, store: StoreDep, field: str = "other") -> HTMLResponse:
    """The form: which field is wrong (preselected from ?field=), what it should be, an optional contact."""
    return await _form_page(request, store, paper_id, {"field": field if field in FIELDS else "other"})


@router.post("/papers/{paper_id:path}/correct", response_class=HTMLResponse)
async def send_correction(paper_id: str, request: Request, store: StoreDep) -> Response:
    """Store the report (signed-in readers' user id kept with it) and show the paper with a thank-you notice."""
    form = await report_form(request)
    if form is None:
        detail = Translator(language(request))("correct_too_long", limit=MAX_FORM_BYTES // 1024)
        return await _form_page(request, store, paper_id, {}, 413, error=detail)
    user = await signed_in_user(request)
    try:
        draft = CorrectionDraft.model_validate({k: v for k, v in form.items() if k in ("field", "message", "contact")})
        await report_error(store, paper_id, draft, user["_id"] if user else None)
    except ValidationError as error:
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        return await _form_page(request, store, paper_id, form, 422, error=detail)
    except HTTPException as error:
        return await _form_page(request, store, paper_id, form, error.status_code, error=str(error.detail))
    return see_other(paper_url(paper_id) + "?reported=1#reported")
