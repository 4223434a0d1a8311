"""Your API tokens (bearer token): listed and revoked. A token is made on the account page (`/me/account`), which asks
for the current password of a confirmed account; a password change, a reset and "sign out everywhere" revoke them all.
"""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path
from pydantic import BaseModel, Field

from services.query.http.deps import CurrentUser, ReadersDep
from services.query.http.problems import problem_responses

router = APIRouter(prefix="/api/me", tags=["tokens"], responses=problem_responses(401))
TokenId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="token id (never the token itself)")]


class TokenOut(BaseModel):
    id: str = Field(description="the token's id, by which it is revoked")
    name: str = Field(description="the name given when it was made", examples=["zotero"])
    created_at: datetime
    last_used_at: datetime | None = Field(description="its last use (noted at most once a minute); null: never")


@router.get("/tokens", response_model=list[TokenOut])
async def list_tokens(user: CurrentUser, readers: ReadersDep) -> list[TokenOut]:
    """Your API tokens, newest first: names and times, never the tokens (only their hashes are kept)."""
    return [
        TokenOut(id=t["_id"], name=t["name"], created_at=t["created_at"], last_used_at=t["last_used_at"])
        for t in await readers.tokens.list_tokens(user["_id"])
    ]


@router.delete(
    "/tokens/{token_id}", status_code=204, responses=problem_responses((404, "you have no token of this id"), 422)
)
async def revoke_token(token_id: TokenId, user: CurrentUser, readers: ReadersDep) -> None:
    """Revoke one of your tokens (this one too, if it is the one sent): it is refused from then on."""
    if not await readers.tokens.revoke_token(user["_id"], token_id):
        raise HTTPException(404, f"you have no token {token_id}")
