"""What the index stage writes for a batch of enriched events, decided from what the index holds; no I/O.

Meilisearch merges each written document into the one it holds (update documents), so a field left out keeps its
value. Its user-provided embedder refuses a new document without `_vectors.paper` (null opts out), and null drops a
vector a document holds: so a paper whose vector is pending is written with null only when the index does not hold
it yet, and leaves `_vectors.paper` out otherwise, keeping the vector it has. The search vectors' embedder
(`_vectors.paper_multilingual`, while SEARCH_EMBEDDING_MODEL makes them) is written alike: a paper without a stored
search vector yet keeps the one its document holds (the sweep emits it again once it has one).
"""

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
import orjson

from papertrail.domain.search_document import (
    SEARCH_EMBEDDER,
    citations_per_month,
    document_id,
    paper_document,
    with_vector,
)
from schemas.events import PaperEnriched

DIGEST = "fields_digest"  # the document field holding the digest of its other fields


class HeldDocument(NamedTuple):
    """What the index stage reads of a document the index holds: its version, and the digest of its fields (None
    for a document written before digests)."""

    version_seq: int
    digest: str | None


@dataclass(frozen=True, slots=True)
class SearchVectorWrites:
    """The batch's papers' stored search vectors of the service's search model, and whether every search vector the
    index holds is of that model (not so after a change of it, until they are attached again)."""

    vectors: Mapping[str, np.ndarray]
    holds_ours: bool


def is_pending(event: PaperEnriched) -> bool:
    """The summarizer has not embedded the paper's text yet (older producers say nothing: their state is unknown)."""
    return event.embedding is not None and event.embedding.state == "pending"


def fields_digest(document: dict[str, Any]) -> str:
    """A digest of a document's fields: equal digests, nothing but the vector to write."""
    return hashlib.blake2b(orjson.dumps(document, option=orjson.OPT_SORT_KEYS), digest_size=16).hexdigest()


def index_writes(
    events: Sequence[PaperEnriched],
    topics: Sequence[dict[str, list[dict[str, Any]]]],
    held: Mapping[str, HeldDocument],
    vectors: Mapping[str, np.ndarray],
    holds_our_vectors: bool,
    search: SearchVectorWrites | None = None,
    *,
    now: datetime,
) -> list[dict[str, Any] | None]:
    """The document each event writes, in the batch's order (None: it writes nothing).

    `held` is what the index holds of each paper, `vectors` the papers' stored vectors of the service's model,
    `holds_our_vectors` whether every vector the index holds is of that model (not so after a model change until
    the stored vectors are attached again: a document's vector is then kept by nobody).
    - Fields: an event whose fields are those the index holds (the summarizer emitting a paper again once its vector
      is made) or older than them (a paper emitted again after its next version was indexed) writes none: only its
      vector, a partial update. Any other event writes all of them.
    - Vector: the stored one, or none (null: a new document opts out, and is searchable at once). An event whose
      vector is pending leaves out the vector of a document the index holds (`_vectors` absent: it keeps it), unless
      that vector may be another model's.
    - Search vector (with `search`): the stored one, or none (null) for a new document; a document the index holds
      keeps its own while the paper has none stored, unless that one may be another model's.
    - Citations per month (sort `hot`): as of `now`, written with the fields; left out of their digest, so the passing
      of time alone writes nothing."""
    now_held = dict(held)  # grows with the batch: a paper's second event in it finds the first's document
    writes: list[dict[str, Any] | None] = []
    for event, reasons in zip(events, topics, strict=True):
        paper_id = event.paper.id
        vector = vectors.get(paper_id)
        document = paper_document(event, reasons)
        digest = fields_digest(document)
        before = now_held.get(paper_id)
        keeps_vector = is_pending(event) and vector is None and before is not None and holds_our_vectors
        vectors_only: dict[str, Any] = {"id": document_id(paper_id)}
        if not keeps_vector:
            vectors_only = with_vector(vectors_only, vector)
        if search is not None:
            search_vector = search.vectors.get(paper_id)
            if not (search_vector is None and before is not None and search.holds_ours):
                vectors_only = with_vector(vectors_only, search_vector, SEARCH_EMBEDDER)
        if before is not None and (before.version_seq > event.version.seq or before.digest == digest):
            writes.append(vectors_only if "_vectors" in vectors_only else None)
            continue
        document[DIGEST] = digest
        document["citations_per_month"] = citations_per_month(event.paper, now)
        writes.append(document | vectors_only)
        now_held[paper_id] = HeldDocument(event.version.seq, digest)
    return writes
