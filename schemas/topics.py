"""Topic names and the model each topic carries: the one catalogue every service and the exporter use."""

from pydantic import BaseModel

from schemas.events import (
    FollowChanged,
    FollowMatched,
    HarvestStatus,
    PaperEnriched,
    PaperNew,
    PaperNormalized,
    PaperWithdrawn,
    RawRecord,
)

HARVEST_RAW = "harvest.raw.v1"
HARVEST_STATUS = "harvest.status.v1"
PAPERS_NORMALIZED = "papers.normalized.v1"
PAPERS_ENRICHED = "papers.enriched.v1"
PAPERS_NEW = "papers.new.v1"
PAPERS_WITHDRAWN = "papers.withdrawn.v1"
FOLLOWS_CHANGED = "follows.changed.v1"
FOLLOWS_MATCHED = "follows.matched.v1"

CATALOGUE: dict[str, tuple[type[BaseModel], str]] = {
    HARVEST_RAW: (RawRecord, "harvester → normalizer: raw source records, key source:record_id"),
    HARVEST_STATUS: (HarvestStatus, "harvester → query: harvest runs started, finished, failed; key source"),
    PAPERS_NORMALIZED: (PaperNormalized, "normalizer → summarizer: canonical papers after a change; key paper id"),
    PAPERS_ENRICHED: (PaperEnriched, "summarizer → matcher, query: papers with AI summaries; key paper id"),
    PAPERS_NEW: (PaperNew, "summarizer → other systems (public): papers seen for the first time; key paper id"),
    PAPERS_WITHDRAWN: (
        PaperWithdrawn,
        "normalizer → summarizer, matcher, query, other systems (public): a paper that is none, removed; key paper id",
    ),
    FOLLOWS_CHANGED: (FollowChanged, "query → matcher: follows created, updated, deleted; key user id"),
    FOLLOWS_MATCHED: (
        FollowMatched,
        "matcher → webhooks, other systems: a user's follow matched a paper; key paper id",
    ),
}
