"""Where a paper's vector stands, and the `paper_vectors` document an embedding outcome makes; no I/O."""

from datetime import datetime
from typing import Any

from papertrail.embedding import Embedded, content_hash
from schemas.events import PaperEmbedding
from schemas.paper import Paper


def paper_digest(paper: Paper) -> str:
    return content_hash(paper.title, paper.abstract or "")


def settled_state(document: dict[str, Any] | None, digest: str, model: str) -> str | None:
    """embedded or failed when the document is of this text and model (a metadata-only change keeps it); else None."""
    if document is None or document.get("model") != model or document.get("content_hash") != digest:
        return None
    return str(document["state"])


def vector_document(paper_id: str, digest: str, model: str, outcome: Embedded, now: datetime) -> dict[str, Any]:
    """The paper's document for a final outcome (a vector or a failure; an unavailable endpoint makes none)."""
    document: dict[str, Any] = {"_id": paper_id, "model": model, "content_hash": digest, "updated_at": now}
    if outcome.vector is not None:
        return document | {"state": "embedded", "vector": [float(x) for x in outcome.vector]}
    return document | {"state": "failed", "error": outcome.failure or "unknown failure"}


def copied(document: dict[str, Any], paper_id: str, now: datetime) -> dict[str, Any]:
    """Another paper's outcome for the same text, as this paper's: the cache costs a copy, not a model run."""
    return document | {"_id": paper_id, "updated_at": now}


def embedding_status(model: str, state: str | None) -> PaperEmbedding:
    return PaperEmbedding(model=model, state=state or "pending")  # type: ignore[arg-type]
