"""What the index stage writes for a batch of enriched events, decided from what the index holds; no I/O.

Meilisearch merges each written document into the one it holds (update documents), so a field left out keeps its
value. Its user-provided embedder refuses a new document without `_vectors.paper` (null opts out), and null drops a
vector a document holds: so a paper whose vector is pending is written with null only when the index does not hold
it yet, and leaves `_vectors` out otherwise, keeping the vector it has.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from papertrail.search_document import document_id, paper_document, with_vector
from schemas.events import PaperEnriched


def is_pending(event: PaperEnriched) -> bool:
    """The summarizer has not embedded the paper's text yet (older producers say nothing: their state is unknown)."""
    return event.embedding is not None and event.embedding.state == "pending"


def index_writes(
    events: Sequence[PaperEnriched],
    topics: Sequence[dict[str, list[dict[str, Any]]]],
    held: Mapping[str, int],
    vectors: Mapping[str, np.ndarray],
    holds_our_vectors: bool,
) -> list[dict[str, Any] | None]:
    """The document each event writes, in the batch's order (None: it writes nothing).

    `held` is the version seq of each paper the index holds, `vectors` the papers' stored vectors of the service's
    model, `holds_our_vectors` whether every vector the index holds is of that model (not so after a model change
    until the stored vectors are attached again: a document's vector is then kept by nobody).
    - An event older than the document the index holds (a paper emitted again for its vector after a newer version
      was indexed) writes none of its fields, only its vector, when it brings one.
    - An event whose vector is pending writes the stored vector when there is one of this model; else it keeps the
      vector of a document the index holds (`_vectors` left out), or opts a new one out (null): it is searchable at
      once and gets its vector when the summarizer emits it again, embedded.
    - Any other event writes its stored vector, or null (none, or another model's)."""
    versions = dict(held)  # grows with the batch: a paper's second event in it finds the first's document
    writes: list[dict[str, Any] | None] = []
    for event, reasons in zip(events, topics, strict=True):
        paper_id, seq = event.paper.id, event.version.seq
        vector = vectors.get(paper_id)
        if versions.get(paper_id, 0) > seq:
            writes.append(None if is_pending(event) else with_vector({"id": document_id(paper_id)}, vector))
            continue
        document = paper_document(event, reasons)
        keeps_vector = is_pending(event) and vector is None and paper_id in versions and holds_our_vectors
        writes.append(document if keeps_vector else with_vector(document, vector))
        versions[paper_id] = seq
    return writes
