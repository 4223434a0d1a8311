"""Search documents: a paper and its summary as one flat Meilisearch document, and the index settings. No I/O."""

import hashlib
from typing import Any

from schemas.events import PaperEnriched

SEARCHABLE = ["title", "title_zh", "abstract", "tldr_zh", "authors", "institutions", "keywords"]
FILTERABLE = [
    "paper_id",
    "categories",
    "sources",
    "venue",
    "year",
    "status",
    "ai_related",
    "author_keys",
    "topic_ids",
    "has_revisions",
    # `links.code EXISTS` is the has_code filter: it holds for documents indexed before the filter existed too
    "links.code",
    "summary_status",
    "summarized_ts",
    "updated_ts",
    "ingested_ts",
    "published_ts",
]
SORTABLE = ["updated_ts", "ingested_ts", "published_ts"]
INDEX_SETTINGS: dict[str, Any] = {
    "searchableAttributes": SEARCHABLE,
    "filterableAttributes": FILTERABLE,
    "sortableAttributes": SORTABLE,
}


def document_id(paper_id: str) -> str:
    """Meilisearch ids allow only [A-Za-z0-9_-]; paper ids have ':' '.' '/', so the id is a digest."""
    return hashlib.sha256(paper_id.encode("utf-8")).hexdigest()[:32]


def _ts(value: Any) -> int | None:
    return int(value.timestamp()) if value is not None else None


def paper_document(event: PaperEnriched, topic_reasons: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The document of a paper; `topic_reasons` are the catalogue topics it hits (services/query/topic_tags.py)."""
    paper, summary = event.paper, event.summary
    return {
        "id": document_id(paper.id),
        "paper_id": paper.id,
        "title": paper.title,
        "title_zh": summary.title_zh,
        "abstract": paper.abstract,
        "tldr_zh": summary.tldr_zh,
        "tldr_en": summary.tldr_en,
        "summary_status": summary.status,
        "authors": [a.name for a in paper.authors],
        "author_keys": [a.key for a in paper.authors],
        "affiliations": sorted({aff for a in paper.authors for aff in a.affiliations}),
        "institutions": [i.name_zh for i in summary.institutions] + [i.name for i in summary.institutions],
        "keywords": summary.keywords,
        "categories": paper.categories,
        "sources": paper.sources,
        "ids": paper.ids.model_dump(exclude_none=True),
        "venue": paper.venue,
        "year": paper.year,
        "status": paper.status,
        # the paper's flag, which the summarizer's verdict already refined: it can add a paper, never remove one
        "ai_related": paper.ai_related,
        "current_version": paper.current_version,
        "version_seq": event.version.seq,
        "version_kind": event.version.kind,
        "versions": [v.model_dump(mode="json") for v in paper.versions],
        "has_revisions": len(paper.versions) > 1,
        "authors_detail": [a.model_dump(mode="json", exclude={"source_ids"}) for a in paper.authors],
        "summary": summary.model_dump(mode="json"),
        "community": paper.community.model_dump(mode="json") if paper.community else None,
        "links": paper.links,
        "comments": paper.comments,
        "journal_ref": paper.journal_ref,
        "updated_ts": _ts(paper.version_updated_at or paper.updated_at),
        "ingested_ts": _ts(paper.first_seen),
        "published_ts": _ts(paper.published_at),
        # when a usable summary was written: the overview's "new AI summaries" lists papers by it
        "summarized_ts": _ts(summary.generated_at) if summary.status == "ok" else None,
        "topic_ids": sorted(topic_reasons),
        "topic_reasons": topic_reasons,
    }
