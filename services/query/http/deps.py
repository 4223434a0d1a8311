"""The FastAPI dependencies on the query service's resources (services/query/resources.py) and on the signed-in user,
as Annotated aliases. All are `async def`: FastAPI runs a plain
`def` dependency in its thread pool, a hop on every request."""

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator
from starlette.convertors import Convertor, register_url_convertor

from services.query.accounts.repositories import ReaderRecords
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.interface import Catalogue
from services.query.catalogue.reads.paper_lookup import MAX_ID_LENGTH, PAPER_ID_FORMS, paper_key
from services.query.catalogue.reads.papers import held_paper
from services.query.catalogue.repositories import CatalogueRecords
from services.query.http.problems import problem_responses
from services.query.library.importing import ImportJobs
from services.query.library.store import LibraryStore
from services.query.recommender.recommend import ReaderModels
from services.query.resources import QueryResources
from services.query.settings import QuerySettings

# one scheme, "bearer", in the document: required by the per-user routes, optional where the token is
BEARER = "bearer"
bearer_token = HTTPBearer(
    auto_error=False,
    scheme_name=BEARER,
    description="an API token: made on /me/account, or by `papertrail users create`",
)


def resources_of(request: Request) -> QueryResources:
    resources: QueryResources = request.app.state.resources
    return resources


async def get_paper_index(request: Request) -> PaperIndex:
    return resources_of(request).paper_index


async def get_catalogue(request: Request) -> CatalogueRecords:
    return resources_of(request).catalogue


async def get_readers(request: Request) -> ReaderRecords:
    return resources_of(request).readers


async def get_papers(request: Request) -> Catalogue:
    return resources_of(request).papers


async def get_library(request: Request) -> LibraryStore:
    return resources_of(request).library


async def get_imports(request: Request) -> ImportJobs:
    return resources_of(request).imports


async def get_reader_models(request: Request) -> ReaderModels:
    return resources_of(request).reader_models


async def get_settings(request: Request) -> QuerySettings:
    return resources_of(request).settings


async def get_site_secret(request: Request) -> bytes:
    return resources_of(request).site_secret


async def get_follow_announcer(request: Request) -> Any:
    return resources_of(request).announce_follow_change


async def get_now() -> datetime:
    """The time a request is answered at: one dependency, so a test sets the clock (app.dependency_overrides)."""
    return datetime.now(UTC)


PaperIndexDep = Annotated[PaperIndex, Depends(get_paper_index)]
NowDep = Annotated[datetime, Depends(get_now)]
CatalogueDep = Annotated[CatalogueRecords, Depends(get_catalogue)]
ReadersDep = Annotated[ReaderRecords, Depends(get_readers)]
PapersDep = Annotated[Catalogue, Depends(get_papers)]
LibraryDep = Annotated[LibraryStore, Depends(get_library)]
ImportsDep = Annotated[ImportJobs, Depends(get_imports)]
ReaderModelsDep = Annotated[ReaderModels, Depends(get_reader_models)]
SettingsDep = Annotated[QuerySettings, Depends(get_settings)]
FollowAnnouncerDep = Annotated[Any, Depends(get_follow_announcer)]
SiteSecretDep = Annotated[bytes, Depends(get_site_secret)]
PAPER_ID_DESCRIPTION = (
    "any id the paper holds: its canonical id (`arxiv:2401.12345`, `acl:2024.acl-long.1`), an arXiv id with or "
    "without version (`2401.12345v2`, `arxiv:hep-th/9901001`), a DOI in any case, bare or as `doi:…` or "
    "`https://doi.org/…` (arXiv's own `10.48550/arXiv.…` too), an ACL Anthology id, or an arXiv / Anthology URL"
)


# The paths below a paper's own, and the library's own below /api/me/library/: what the paper-id address leaves them.
BELOW_A_PAPER = "corrections|similar|cite"
ADDRESSABLE_PAPER_ID = re.compile(f"^(?!imports/)(?!.*/(?:{BELOW_A_PAPER})$)(?:{PAPER_ID_FORMS})$")


class PaperIdConvertor(Convertor[str]):
    """`{paper_id:paper_id}` in a route's path: any text, slashes included (hep-th/9901001, DOIs), but not one
    ending in /corrections, /similar or /cite (a paper's error reports, similar papers, citation), nor the library's
    own `import`, `imports/…` and `export`, so a wrong method on any of those is 405 and not a paper id."""

    regex = f"(?!imports/|import$|export$)(?!.*/({BELOW_A_PAPER})$).+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("paper_id", PaperIdConvertor())


def addressable_paper_id(written: str) -> str:
    """A paper id in any of its forms, as the document's pattern states them; a ValueError (a 422 naming the path
    parameter) says what is wrong with any other text."""
    if ADDRESSABLE_PAPER_ID.fullmatch(written):
        return written
    paper_key(written)  # NotAPaperId, a ValueError, names what is wrong with text that is no paper id
    if written != written.strip():
        raise ValueError(f"a paper id with space around it: write {written.strip()!r}")
    raise ValueError(
        f"{written!r}: an id ending in /{BELOW_A_PAPER.replace('|', ', /')} or beginning imports/ is read as "
        "a path below a paper's or the library's own; address the paper by another id it holds"
    )


PaperIdText = Annotated[
    str,
    AfterValidator(addressable_paper_id),
    Path(
        description=PAPER_ID_DESCRIPTION,
        examples=["arxiv:2401.12345"],
        max_length=MAX_ID_LENGTH,
        json_schema_extra={"pattern": ADDRESSABLE_PAPER_ID.pattern},
    ),
]


async def get_held_paper(paper_id: PaperIdText, catalogue: CatalogueDep) -> dict[str, Any]:
    """The paper (its `papers` document) holding the id in any of its forms: 404 for an id no paper holds."""
    paper = await held_paper(catalogue, paper_id)
    if paper is None:
        raise HTTPException(404, f"no paper {paper_id!r}")
    return paper


HeldPaper = Annotated[dict[str, Any], Depends(get_held_paper)]
HELD_PAPER_ERRORS = problem_responses(
    (404, "no paper holds this id"),
    (422, "the text is no paper id, or a parameter is not what the API takes: `errors` says what is wrong"),
)


async def get_current_user(
    readers: ReadersDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_token)]
) -> dict[str, Any]:
    """The user whose bearer token this is; every per-user route depends on it, so none reads another's data."""
    if credentials is None or not credentials.credentials:
        raise HTTPException(401, "missing bearer token", headers={"WWW-Authenticate": "Bearer"})
    user = await readers.tokens.user_for_token(credentials.credentials)
    if user is None:
        raise HTTPException(401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"})
    return user


SESSION_COOKIE = "pt_session"


async def session_user(request: Request) -> dict[str, Any] | None:
    """The user signed in to the pages with this request's session cookie, or None."""
    session = request.cookies.get(SESSION_COOKIE)
    return await resources_of(request).readers.sessions.session_user(session) if session else None


CurrentUser = Annotated[dict[str, Any], Depends(get_current_user)]
