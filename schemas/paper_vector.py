"""A paper's vector as `paper_vectors` holds it (and its search vector, as `search_vectors` holds it): the summarizer
writes them, the matcher and the query service read them."""

from datetime import datetime
from typing import Annotated, Any, Literal, Self

import numpy as np
from bson.binary import VECTOR_SUBTYPE, Binary, BinaryVectorDtype
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    SerializationInfo,
    WithJsonSchema,
    model_validator,
)

# A BSON binary vector (subtype 9) starts with its dtype and padding bytes, then the values little-endian.
_HEADER = BinaryVectorDtype.FLOAT32.value + b"\x00"
_FLOAT32 = np.dtype("<f4")


def _float32(value: Any) -> np.ndarray:
    """The stored vector as float32: BSON binary float32, or the array of doubles stored before it (read until
    `convert_vectors_to_float32` has rewritten them)."""
    if isinstance(value, Binary) and value.subtype == VECTOR_SUBTYPE:
        if bytes(value[:2]) != _HEADER:
            raise ValueError("a binary vector that is not float32")
        return np.frombuffer(value, dtype=_FLOAT32, offset=2).astype(np.float32)
    if isinstance(value, np.ndarray | list | tuple):
        vector = np.asarray(value, dtype=np.float32)
        if vector.ndim != 1:
            raise ValueError("a vector has one dimension")
        return vector
    raise ValueError(f"a vector is BSON binary float32 or an array of numbers, not {type(value).__name__}")


def _stored(vector: np.ndarray, info: SerializationInfo) -> Any:
    if info.mode == "json":
        return vector.tolist()
    return Binary.from_vector(vector.astype(_FLOAT32, copy=False), BinaryVectorDtype.FLOAT32)


Float32Vector = Annotated[
    np.ndarray,
    PlainValidator(_float32),
    PlainSerializer(_stored),
    WithJsonSchema({"type": "array", "items": {"type": "number"}}),
]


class PaperVector(BaseModel):
    """One paper's vector of one model, or why its text cannot have one. One document per paper (`_id`) in each
    collection (`paper_vectors`: the papers' model; `search_vectors`: the search model): a new outcome replaces the
    old; the vector is found again by content and model (the cache of a text seen before)."""

    model_config = ConfigDict(
        extra="forbid", validate_by_name=True, validate_by_alias=True, serialize_by_alias=True, frozen=True
    )

    paper_id: str = Field(alias="_id", description="the paper's id", examples=["arxiv:1706.03762"])
    model: str = Field(
        description="what made it: backend/model/dimensions/max tokens (EMBEDDING_*)",
        examples=["local/all-MiniLM-L6-v2-int8/384/256"],
    )
    content_hash: str = Field(description="sha256 of the title and abstract it was made of (papertrail.domain.text)")
    state: Literal["embedded", "failed"] = Field(description="embedded: `vector` holds it; failed: `error` says why")
    vector: Float32Vector | None = Field(
        None,
        description="the vector, length 1, float32; stored as a BSON binary vector (subtype 9, dtype float32), "
        "read also as the array of doubles stored before it",
    )
    error: str | None = Field(None, description="why the text cannot be embedded (failed only)")
    updated_at: datetime = Field(description="when this outcome was written (UTC)")

    @model_validator(mode="after")
    def _outcome(self) -> Self:
        if (self.state == "embedded") != (self.vector is not None):
            raise ValueError("an embedded paper has a vector, a failed one none")
        return self

    def document(self) -> dict[str, Any]:
        """The document as MongoDB stores it: `_id`, the vector as BSON binary float32, no empty fields."""
        return self.model_dump(by_alias=True, exclude_none=True)
