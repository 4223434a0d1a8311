"""The indexer's handlers: papers.enriched.v1 into the search index (each paper tagged with the catalogue topics it
hits), papers.withdrawn.v1 out of it, harvest.status.v1 into the sources' runs."""

import time
from datetime import UTC, datetime
from typing import Annotated, Any

from faststream import Context
from faststream.kafka.annotations import KafkaMessage
from prometheus_client import Histogram

from papertrail.embedding.embedder import SEARCH_OFF
from schemas.events import HarvestStatus, PaperEnriched, PaperWithdrawn
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.indexer.topic_tags import TopicTagger
from services.query.catalogue.indexer.writes import SearchVectorWrites, index_writes
from services.query.catalogue.repositories import CatalogueRecords
from services.query.deps import QueryResources

Resources = Annotated[QueryResources, Context()]  # what every handler takes, from the lifespan

INDEX_LAG = Histogram(
    "papertrail_index_lag_seconds",
    "Raw record harvested → searchable, per indexed paper.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600),
)


async def on_papers_enriched(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Index a batch, each paper with its catalogue topics and its vector (or none yet: searchable either way);
    offsets are committed only after Meilisearch applied it; bad records are parked."""
    dead_letters = resources.dead_letters
    valid = await dead_letters.keep_valid(message.raw_message, PaperEnriched)  # type: ignore[arg-type]
    events = [event for _, event in valid]
    settings = resources.settings
    failures = await index_enriched(events, resources.paper_index, resources.catalogue, resources.topic_tagger,
                                    settings.model_key, settings.search_model_key)  # fmt: skip
    for position, error in failures:
        await dead_letters.park(valid[position][0], error)
    now = time.time()
    parked = {position for position, _ in failures}  # never searchable: no latency to observe
    for position, event in enumerate(events):
        if event.harvested_at is not None and position not in parked:
            INDEX_LAG.observe(max(0.0, now - event.harvested_at.timestamp()))


async def index_enriched(
    events: list[PaperEnriched],
    index: PaperIndex,
    catalogue: CatalogueRecords,
    tagger: TopicTagger,
    model_key: str,
    search_model_key: str = SEARCH_OFF,
    now: datetime | None = None,
) -> list[tuple[int, Exception]]:
    """Write a batch into the index (`index_writes` decides each document from what the index holds: three reads
    for the whole batch, two more with search vectors) and return (position, error) of the events whose document
    Meilisearch refused. `now` (default: the moment of the call) dates the papers' citations per month."""
    if not events:  # every record of the batch was parked
        return []
    paper_ids = [event.paper.id for event in events]
    held = await index.held_documents(paper_ids)
    vectors = await catalogue.vectors.vectors_of(paper_ids, model_key)
    holds_our_vectors = await catalogue.index_state.vectors_model(index.name) == model_key
    search = None
    if index.search_dimensions and search_model_key != SEARCH_OFF:
        search = SearchVectorWrites(
            await catalogue.vectors.search_vectors_of(paper_ids, search_model_key),
            await catalogue.index_state.search_vectors_model(index.name) == search_model_key,
        )
    topics = [tagger.of(event.paper) for event in events]
    writes = index_writes(events, topics, held, vectors, holds_our_vectors, search, now=now or datetime.now(UTC))
    positions = [position for position, document in enumerate(writes) if document is not None]
    failures = await index.upsert_isolating_failures([document for document in writes if document is not None])
    return [(positions[at], error) for at, error in failures]


async def on_paper_withdrawn(event: PaperWithdrawn, resources: Resources) -> None:
    """A withdrawn paper leaves the index, and with it search, browse, feeds and every count of the overview."""
    await resources.paper_index.remove([event.paper_id])


async def on_harvest_status(status: HarvestStatus, resources: Resources) -> None:
    """Keep every source's runs for the overview and the sources page."""
    await resources.catalogue.source_runs.record_run(status)
