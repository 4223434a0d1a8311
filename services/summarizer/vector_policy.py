"""Where a paper's vector stands, and the `paper_vectors` document an embedding outcome makes; no I/O."""

from datetime import datetime

from papertrail.embedding.embedder import Embedded
from schemas.events import PaperEmbedding
from schemas.paper_vector import PaperVector


def settled_state(stored: PaperVector | None, digest: str, model: str) -> str | None:
    """embedded or failed when the stored vector is of this text and model (a metadata-only change keeps it)."""
    if stored is None or stored.model != model or stored.content_hash != digest:
        return None
    return stored.state


def vector_document(paper_id: str, digest: str, model: str, outcome: Embedded, now: datetime) -> PaperVector:
    """The paper's stored vector for a final outcome (a vector or a failure; an unavailable endpoint makes none)."""
    if outcome.vector is not None:
        return PaperVector(
            paper_id=paper_id, model=model, content_hash=digest, state="embedded", vector=outcome.vector, updated_at=now
        )
    error = outcome.failure or "unknown failure"
    return PaperVector(paper_id=paper_id, model=model, content_hash=digest, state="failed", error=error, updated_at=now)


def copied(stored: PaperVector, paper_id: str, now: datetime) -> PaperVector:
    """Another paper's outcome for the same text, as this paper's: the cache costs a copy, not a model run."""
    return stored.model_copy(update={"paper_id": paper_id, "updated_at": now})


def embedding_status(model: str, state: str | None) -> PaperEmbedding:
    return PaperEmbedding(model=model, state=state or "pending")  # type: ignore[arg-type]
