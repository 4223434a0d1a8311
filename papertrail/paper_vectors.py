"""A paper's stored vector as the services that read `paper_vectors` decode it (the summarizer writes it). No I/O.

One document per paper: `{"_id": paper id, "model": model key, "content_hash", "state": "embedded" | "failed",
"vector": [float, ...] (length 1; only when embedded), "error" (only when failed), "updated_at"}`.
"""

from typing import Any

import numpy as np

PAPER_VECTORS_FIELDS = ("model", "content_hash", "state", "vector", "error", "updated_at")
PAPER_VECTORS_PROJECTION = dict.fromkeys(PAPER_VECTORS_FIELDS, 1)


def vector_of(document: dict[str, Any] | None, model_key: str) -> np.ndarray | None:
    """The paper's vector as float32, or None when it has none: no document, a failed one, or another model's."""
    if document is None or document.get("state") != "embedded" or document.get("model") != model_key:
        return None
    vector = document.get("vector")
    if not vector:
        return None
    return np.asarray(vector, dtype=np.float32)
