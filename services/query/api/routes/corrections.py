"""POST /api/papers/{id}/corrections: a reader reports an error in a paper's model-written fields ("纠错").

There is no public route that lists reports: they carry contact addresses. Operators use
`papertrail corrections list` and `papertrail corrections close ID`.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel, Field

from services.query.accounts.corrections import CorrectionDraft, TooManyOpenReports, report_error
from services.query.http.deps import BEARER, HELD_PAPER_ERRORS, HeldPaper, ReadersDep, bearer_token
from services.query.http.problems import problem_responses
from services.query.http.write_limits import WriteLimit, reporter

router = APIRouter(prefix="/api", tags=["corrections"])


class CorrectionCreated(BaseModel):
    id: str = Field(description="the report's id (operators close it by this id)")
    status: str = Field(description="open until an operator handles it", examples=["open"])
    paper_id: str = Field(description="the canonical id of the paper reported on, whichever of its ids was used")


async def optional_user(readers: ReadersDep, request: Request) -> dict[str, Any] | None:
    """The signed-in reader, or None without a token; a token that is given but unknown is refused (401). The
    scheme is read here, not declared as a dependency: FastAPI would then document the token as required."""
    credentials = await bearer_token(request)
    if credentials is None or not credentials.credentials:
        return None
    user = await readers.tokens.user_for_token(credentials.credentials)
    if user is None:
        raise HTTPException(401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"})
    return user


OptionalUser = Annotated[dict[str, Any] | None, Depends(optional_user)]


@router.post(
    "/papers/{paper_id:path}/corrections",
    response_model=CorrectionCreated,
    status_code=201,
    dependencies=[Depends(WriteLimit("corrections", by="user"))],
    responses=problem_responses(400, (401, "a token is given but is unknown or revoked (without one: anonymous)"))
    | HELD_PAPER_ERRORS
    | problem_responses(
        (
            429,
            "the paper has too many open reports, or this client (address or user) has too many open on it, or "
            "wrote too many reports in the window (Retry-After says when to try again)",
        )
    ),
    openapi_extra={"security": [{}, {BEARER: []}]},  # anonymous or signed in
)
async def create_correction(
    paper: HeldPaper, body: CorrectionDraft, readers: ReadersDep, user: OptionalUser, request: Request
) -> CorrectionCreated:
    """Report a wrong institution name, Chinese title, summary or author list; signed-in or anonymous.

    The paper may be named by any id it holds (as in `GET /api/papers/{paper_id}`); the report is filed on the
    canonical paper, whose id the answer gives.
    """
    try:
        report = await report_error(
            readers.corrections, paper["_id"], body, user["_id"] if user else None, reporter(request, user)
        )
    except TooManyOpenReports as error:
        raise HTTPException(429, str(error)) from error
    return CorrectionCreated(id=report.id, status=report.status, paper_id=report.paper_id)
