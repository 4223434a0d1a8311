"""The indexer's handlers: papers.enriched.v1 into the search index (each paper tagged with the catalogue topics it
hits), papers.withdrawn.v1 out of it, harvest.status.v1 into the sources' runs."""

import time
from typing import Annotated, Any

from faststream import Context
from faststream.kafka.annotations import KafkaMessage
from prometheus_client import Histogram

from papertrail.search_document import paper_document, with_vector
from schemas.events import HarvestStatus, PaperEnriched, PaperWithdrawn
from services.query.deps import QueryResources

Resources = Annotated[QueryResources, Context()]  # what every handler takes, from the lifespan

INDEX_LAG = Histogram(
    "papertrail_index_lag_seconds",
    "Raw record harvested → searchable, per indexed paper.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600),
)


async def on_papers_enriched(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Index a batch, each paper with its catalogue topics and its vector (read from `paper_vectors` for the whole
    batch: a paper embedded after it was indexed comes again with its vector); offsets are committed only after
    Meilisearch applied it; bad records are parked."""
    dead_letters = resources.dead_letters
    valid = await dead_letters.keep_valid(message.raw_message, PaperEnriched)  # type: ignore[arg-type]
    # A paper whose vector is pending has none to read yet: its document keeps whatever vector it holds (none when
    # new) until the summarizer emits it again, embedded. Older producers say nothing: their papers are looked up.
    looked_up = [not (event.embedding and event.embedding.state == "pending") for _, event in valid]
    wanted = list({event.paper.id for (_, event), look in zip(valid, looked_up, strict=True) if look})
    vectors = await resources.store.vectors_of(wanted, resources.settings.model_key)
    documents = [
        with_vector(document, vectors.get(event.paper.id)) if look else document
        for (_, event), look in zip(valid, looked_up, strict=True)
        for document in [paper_document(event, resources.topic_tagger.of(event.paper))]
    ]
    failures = await resources.paper_index.upsert_isolating_failures(documents)
    for position, error in failures:
        await dead_letters.park(valid[position][0], error)
    now = time.time()
    parked = {position for position, _ in failures}  # never searchable: no latency to observe
    for position, (_, event) in enumerate(valid):
        if event.harvested_at is not None and position not in parked:
            INDEX_LAG.observe(max(0.0, now - event.harvested_at.timestamp()))


async def on_paper_withdrawn(event: PaperWithdrawn, resources: Resources) -> None:
    """A withdrawn paper leaves the index, and with it search, browse, feeds and every count of the overview."""
    await resources.paper_index.remove([event.paper_id])


async def on_harvest_status(status: HarvestStatus, resources: Resources) -> None:
    """Keep every source's runs for the overview and the sources page."""
    await resources.store.record_run(status)
