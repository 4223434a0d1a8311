"""A paper's stored vector as the services that read `paper_vectors` decode it: through `PaperVector`
(schemas/paper_vector.py), the summarizer's contract. No I/O."""

from typing import Any

import numpy as np

from schemas.paper_vector import PaperVector

PAPER_VECTORS_FIELDS = tuple(field.alias or name for name, field in PaperVector.model_fields.items())
PAPER_VECTORS_PROJECTION = dict.fromkeys(PAPER_VECTORS_FIELDS, 1)


def vector_of(document: dict[str, Any] | None, model_key: str) -> np.ndarray | None:
    """The paper's vector as float32, or None when it has none: no document, a failed one, or another model's."""
    if document is None or document.get("state") != "embedded" or document.get("model") != model_key:
        return None
    vector = PaperVector.model_validate(document).vector
    return vector if vector is not None and vector.size else None
