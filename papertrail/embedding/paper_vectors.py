"""A paper's stored vector as the services that read `paper_vectors` (and `search_vectors`, the second, multilingual
vector made for search) decode it: through `PaperVector` (schemas/paper_vector.py), the summarizer's contract.
No I/O."""

from typing import Any

import numpy as np

from papertrail.embedding.embedder import SEARCH_OFF
from schemas.paper_vector import PaperVector

PAPER_VECTORS_FIELDS = tuple(field.alias or name for name, field in PaperVector.model_fields.items())
PAPER_VECTORS_PROJECTION = dict.fromkeys(PAPER_VECTORS_FIELDS, 1)
# `embedding_model`'s documents: the model key the summarizer makes `paper_vectors` with, and the one it makes
# `search_vectors` with (`none`: it makes none), each written at its start
VECTORS_MODEL_ID = "paper_vectors"
SEARCH_VECTORS_MODEL_ID = "search_vectors"


def vector_of(document: dict[str, Any] | None, model_key: str) -> np.ndarray | None:
    """The paper's vector as float32, or None when it has none: no document, a failed one, or another model's."""
    if document is None or document.get("state") != "embedded" or document.get("model") != model_key:
        return None
    vector = PaperVector.model_validate(document).vector
    return vector if vector is not None and vector.size else None


def model_mismatch(recorded: dict[str, Any] | None, model_key: str) -> str | None:
    """Why a service reading `paper_vectors` with `model_key` cannot start: the summarizer makes them with another
    model (its lookups would find nothing); None when they agree or the summarizer never started."""
    if recorded is None or recorded.get("model") == model_key:
        return None
    return (
        f"EMBEDDING_*: this service's embedding model is {model_key}, but the summarizer makes paper_vectors with "
        f"{recorded['model']}: give every service the same EMBEDDING_* settings (for a new model, start the "
        "summarizer with it first: it records its model and re-embeds every paper)"
    )


def search_model_mismatch(recorded: dict[str, Any] | None, search_model_key: str) -> str | None:
    """Why a service searching `search_vectors` with `search_model_key` cannot start: the summarizer makes them with
    another model or none (a Chinese search would find nothing); None when they agree, when this service makes no use
    of them (`none`) or the summarizer never started."""
    if search_model_key == SEARCH_OFF or recorded is None or recorded.get("model") == search_model_key:
        return None
    made = "makes no search vectors" if recorded.get("model") == SEARCH_OFF else f"makes them with {recorded['model']}"
    return (
        f"SEARCH_EMBEDDING_MODEL: this service searches in Chinese with search vectors of {search_model_key}, but the "
        f"summarizer {made}: give both services the same SEARCH_EMBEDDING_* and EMBEDDING_* settings (for a new "
        "one, start the summarizer with it first: it records it and embeds every paper again in the background)"
    )
