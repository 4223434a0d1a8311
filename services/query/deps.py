"""FastAPI dependencies: the resources opened in the lifespan and the signed-in user, as Annotated aliases.
All are `async def`: FastAPI runs a plain `def` dependency in its thread pool, a hop on every request."""

from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.query.index import PaperIndex
from services.query.paper_lookup import NotAPaperId, paper_key
from services.query.settings import QuerySettings
from services.query.store import QueryStore

_bearer = HTTPBearer(auto_error=False, description="the token `papertrail users create NAME` printed")


async def get_paper_index(request: Request) -> PaperIndex:
    index: PaperIndex = request.app.state.paper_index
    return index


async def get_store(request: Request) -> QueryStore:
    store: QueryStore = request.app.state.store
    return store


async def get_settings(request: Request) -> QuerySettings:
    settings: QuerySettings = request.app.state.settings
    return settings


async def get_follow_announcer(request: Request) -> Any:
    return request.app.state.follow_announcer


PaperIndexDep = Annotated[PaperIndex, Depends(get_paper_index)]
StoreDep = Annotated[QueryStore, Depends(get_store)]
SettingsDep = Annotated[QuerySettings, Depends(get_settings)]
FollowAnnouncerDep = Annotated[Any, Depends(get_follow_announcer)]
PAPER_ID_DESCRIPTION = (
    "any id the paper holds: its canonical id (`arxiv:2401.12345`, `acl:2024.acl-long.1`), an arXiv id with or "
    "without version (`2401.12345v2`, `arxiv:hep-th/9901001`), a DOI in any case, bare or as `doi:…` or "
    "`https://doi.org/…` (arXiv's own `10.48550/arXiv.…` too), an ACL Anthology id, or an arXiv / Anthology URL"
)


async def get_held_paper(
    paper_id: Annotated[str, Path(description=PAPER_ID_DESCRIPTION, examples=["arxiv:2401.12345"])], store: StoreDep
) -> dict[str, Any]:
    """The paper (its `papers` document) holding the id in any of its forms: 422 naming what is wrong with text that
    is no paper id, 404 for an id no paper holds."""
    try:
        key = paper_key(paper_id)
    except NotAPaperId as error:
        raise HTTPException(422, str(error)) from error
    paper = await store.paper(key)
    if paper is None:
        raise HTTPException(404, f"no paper {paper_id!r}")
    return paper


HeldPaper = Annotated[dict[str, Any], Depends(get_held_paper)]


async def get_current_user(
    store: StoreDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> dict[str, Any]:
    """The user whose bearer token this is; every per-user route depends on it, so none reads another's data."""
    if credentials is None or not credentials.credentials:
        raise HTTPException(401, "missing bearer token", headers={"WWW-Authenticate": "Bearer"})
    user = await store.user_for_token(credentials.credentials)
    if user is None:
        raise HTTPException(401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"})
    return user


CurrentUser = Annotated[dict[str, Any], Depends(get_current_user)]
