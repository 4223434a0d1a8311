"""The Meilisearch paper document, the contract between the query service (which writes the index) and every reader
of it (the query service's reads, the matcher's backfill): a paper and its summary as one flat document, the fields
the index searches, filters and sorts by, and the filter builder. Filter values are quoted, never pasted raw. No I/O.
"""

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

import numpy as np

from papertrail.domain.author_institutions import (
    institution_entries,
    institution_ids,
    paper_institutions,
    searchable_names,
)
from papertrail.domain.names import display_name_key
from papertrail.domain.tex import tex_plain
from papertrail.domain.venues.accepted import accepted_claims
from papertrail.domain.venues.catalogue import default_index, fold
from schemas.events import PaperEnriched
from schemas.paper import Paper, VenueClaim

# `abstract_text` is the abstract as read (`30\%` → `30%`, `\textbf{I}nference` → `Inference`); the abstract as
# written stays searchable too, so documents indexed before `abstract_text` existed are still found by it.
# The AI summary's Chinese sections (the paper page's 导读), kept in the document's `summary`: a Chinese query finds a
# paper by words its guide says, not only by its Chinese title and TL;DR.
SUMMARY_ZH = [f"summary.{name}" for name in ("motivation_zh", "method_zh", "result_zh", "conclusion_zh")]
SEARCHABLE = [
    "title",
    "title_zh",
    "abstract_text",
    "abstract",
    "tldr_zh",
    *SUMMARY_ZH,
    "authors",
    "institutions",
    "keywords",
]
# Segmented as Mandarin: Meilisearch would otherwise guess each text's language, and a short run of Chinese characters
# guessed as Japanese is cut into other words. Keywords mix Chinese and English; Latin script keeps its own segmenter.
CHINESE_FIELDS = ["title_zh", "tldr_zh", *SUMMARY_ZH, "keywords"]
FILTERABLE = [
    "paper_id",
    "categories",
    "sources",
    "venue",
    "year",
    "status",
    "ai_related",
    "author_keys",
    "author_names",
    "topic_ids",
    "has_revisions",
    # `links.code EXISTS` is the has_code filter: it holds for documents indexed before the filter existed too
    "links.code",
    "summary_status",
    "summarized_ts",
    "updated_ts",
    "ingested_ts",
    "published_ts",
    # the venue filters: the paper's accepted claims (and published record), each value also faceted
    "accepted",
    "accepted_venues",
    "venue_years",
    "ccf_ranks",
    "venue_tracks",
    "venue_tags",
    # the authors' institutions: ROR ids (the `institution` filter, follows), and each with its names (the facet)
    "institution_ids",
    "institution_entries",
    # the paper's citation count (the `min_citations` filter; sort `cited`)
    "citation_count",
]
INSTITUTION_FACET = "institution_entries"
VENUE_FACETS = ["accepted", "accepted_venues", "venue_years", "ccf_ranks", "venue_tracks"]
# `citations_per_month`: the paper's citations per month since it was first published (sort `hot`), as of the moment
# its document was written
SORTABLE = ["updated_ts", "ingested_ts", "published_ts", "citation_count", "citations_per_month"]
# The index's user-provided embedder: each document's `_vectors.paper` is the paper's vector from `paper_vectors`
# (the summarizer's), or null while it has none.
EMBEDDER = "paper"
# The second one, while SEARCH_EMBEDDING_MODEL makes search vectors: `_vectors.paper_multilingual` is the paper's
# vector from `search_vectors` (a multilingual model's), or null; a search whose text holds CJK characters uses it.
SEARCH_EMBEDDER = "paper_multilingual"
DatedSort = Literal["updated", "ingested", "published"]
# relevance: Meilisearch's own ranking of the query's matches (the default with a query); the dated ones, newest first;
# cited, the most cited first; hot, the most cited per month since first publication first
SortKey = Literal["relevance", "updated", "ingested", "published", "cited", "hot"]
SORT_FIELDS: dict[str, str] = {
    "updated": "updated_ts",
    "ingested": "ingested_ts",
    "published": "published_ts",
    "cited": "citation_count",
    "hot": "citations_per_month",
}
# A paper younger than this counts as this old in its citations per month: a week-old paper's two citations are
# not a hundred a month.
HOT_MIN_AGE = timedelta(days=30)
MONTH = timedelta(days=365.25 / 12)


def with_vector(document: dict[str, Any], vector: np.ndarray | None, embedder: str = EMBEDDER) -> dict[str, Any]:
    """The document with the paper's vector for `embedder`, or with none (null: Meilisearch drops a vector it held);
    the vectors it holds for other embedders are kept."""
    vectors = document.get("_vectors", {}) | {embedder: vector.tolist() if vector is not None else None}
    return document | {"_vectors": vectors}


def document_id(paper_id: str) -> str:
    """Meilisearch ids allow only [A-Za-z0-9_-]; paper ids have ':' '.' '/', so the id is a digest."""
    return hashlib.sha256(paper_id.encode("utf-8")).hexdigest()[:32]


def _ts(value: Any) -> int | None:
    return int(value.timestamp()) if value is not None else None


def paper_fields(paper: Paper) -> dict[str, Any]:
    """The fields of a paper's document that its canonical record alone gives (no summary, version or topics): what
    the query service shows of a paper the index does not hold yet."""
    authors_detail = [a.model_dump(mode="json", exclude={"source_ids"}) for a in paper.authors]
    return {
        "paper_id": paper.id,
        "title": paper.title,
        "abstract": paper.abstract,  # as the author wrote it: the API's field, and the pages render its markup
        "abstract_text": tex_plain(paper.abstract),
        "authors": [a.name for a in paper.authors],
        "author_keys": [a.key for a in paper.authors],  # "li y": family name and initial (papertrail/domain/names.py)
        "author_names": author_names(a.name for a in paper.authors),  # "li yinghui": full names, the pages' keys
        "affiliations": sorted({aff for a in paper.authors for aff in a.affiliations}),
        "categories": paper.categories,
        "sources": paper.sources,
        "ids": paper.ids.model_dump(exclude_none=True),
        "venue": paper.venue,
        "year": paper.year,
        "status": paper.status,
        # the paper's flag, which the summarizer's verdict already refined: it can add a paper, never remove one
        "ai_related": paper.ai_related,
        "current_version": paper.current_version,
        "versions": [v.model_dump(mode="json") for v in paper.versions],
        "has_revisions": len(paper.versions) > 1,
        "authors_detail": authors_detail,
        "institution_ids": institution_ids(authors_detail),
        "institution_entries": institution_entries(authors_detail),
        "community": paper.community.model_dump(mode="json") if paper.community else None,
        "links": paper.links,
        "comments": paper.comments,
        "journal_ref": paper.journal_ref,
        **venue_fields(paper),
        "updated_ts": _ts(paper.version_updated_at or paper.updated_at),
        "ingested_ts": _ts(paper.first_seen),
        "published_ts": _ts(paper.published_at),
        "citations": paper.citations.model_dump(mode="json") if paper.citations else None,
        "citation_count": paper.citations.count if paper.citations else None,
    }


def citations_per_month(paper: Paper, now: datetime) -> float | None:
    """The paper's citations per month since it was first published, as of `now` (a paper younger than a month
    counted a month old); None without a count or a first-published date."""
    if paper.citations is None or paper.published_at is None:
        return None
    return _per_month(paper.citations.count, paper.published_at, now)


def _per_month(count: int, published_at: datetime, now: datetime) -> float:
    age = max(now - published_at, HOT_MIN_AGE)
    return round(count / (age / MONTH), 3)


HOTNESS_FIELDS = ["id", "citation_count", "published_ts", "citations_per_month"]
# What the index holds of papers that have a count: the documents whose citations per month drift as time passes.
COUNTED = "citation_count IS NOT NULL AND published_ts IS NOT NULL"


def hotness_update(held: dict[str, Any], now: datetime) -> dict[str, Any] | None:
    """The partial update that brings a held document's citations per month (its `HOTNESS_FIELDS`) to `now`, or None
    when it is already right: the rate falls as a paper ages though its count stays, so `sort=hot` orders by the
    rate of today, not of the day each document was last written."""
    count, published_ts = held.get("citation_count"), held.get("published_ts")
    if count is None or published_ts is None:
        return None
    rate = _per_month(count, datetime.fromtimestamp(published_ts, UTC), now)
    if held.get("citations_per_month") == rate:
        return None
    return {"id": held["id"], "citations_per_month": rate}


def author_names(names: Iterable[str]) -> list[str]:
    """The authors' full-name keys, each once, from their display names: what an author page filters by."""
    return list(dict.fromkeys(display_name_key(name) for name in names))


def venue_fields(paper: Paper) -> dict[str, Any]:
    """The paper's venue claims as shown, and what the venue filters and facets read: of its accepted claims and its
    published record's venue only (a submission is never counted as an acceptance)."""
    accepted = accepted_claims(paper)
    return {
        "venue_claims": [c.model_dump(mode="json") for c in paper.venue_claims],
        "accepted": bool(accepted) or paper.status == "published",
        "accepted_venues": sorted({c.venue for c in accepted}),
        "venue_years": sorted({c.year for c in accepted if c.year is not None}),
        "ccf_ranks": sorted({c.ccf_rank for c in accepted if c.ccf_rank}),
        "venue_tracks": sorted({c.track for c in accepted}),
        "venue_tags": sorted({tag for claim in accepted for tag in _claim_tags(claim)}),
    }


def venue_name(name: str) -> str:
    """The form a venue is filtered by: the catalogue's acronym for any of its names, else the name as written,
    folded ("icml", "International Conference on Machine Learning" and "ICML" are one)."""
    venue = default_index().resolve(name)
    return fold(venue.acronym if venue else name)


def venue_tag(venue: str | None, year: int | None, rank: str | None, track: str | None) -> str:
    """One accepted claim's conditions as one value: filtering by it asks that one claim meet them all (separate
    fields would let ICML 2025 and NeurIPS 2026 pass venue=ICML&venue_year=2026)."""
    parts = [("v", venue_name(venue) if venue else None), ("y", year), ("r", rank), ("t", track)]
    return "|".join(f"{key}={value}" for key, value in parts if value is not None)


def _claim_tags(claim: VenueClaim) -> Iterator[str]:
    """Every combination of the claim's venue, year, rank and track that a filter may ask for."""
    values = (claim.venue, claim.year, claim.ccf_rank, claim.track)
    for mask in range(1, 16):
        chosen = [value if mask & (1 << n) else None for n, value in enumerate(values)]
        if all(chosen[n] is not None for n in range(4) if mask & (1 << n)):
            yield venue_tag(*chosen)  # type: ignore[arg-type]


def paper_document(event: PaperEnriched, topic_reasons: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The document of a paper; `topic_reasons` are the catalogue topics it hits (the query service tags them)."""
    paper, summary = event.paper, event.summary
    authors = [a.model_dump(mode="json") for a in paper.authors]
    model_named = [i.model_dump() for i in summary.institutions]
    return {
        "id": document_id(paper.id),
        **paper_fields(paper),
        "title_zh": summary.title_zh,
        "tldr_zh": summary.tldr_zh,
        "tldr_en": summary.tldr_en,
        "summary_status": summary.status,
        # searched by words: the authors' institutions (ROR's names, as written) and the summary's
        "institutions": searchable_names(authors, model_named),
        # what a card shows: the authors' institutions, or the summary's where none (lists carry no summary)
        "shown_institutions": paper_institutions(authors, model_named),
        "keywords": summary.keywords,
        "version_seq": event.version.seq,
        "version_kind": event.version.kind,
        "summary": summary.model_dump(mode="json"),
        # when a usable summary was written: the overview's "new AI summaries" lists papers by it
        "summarized_ts": summarized_ts(event) if summary.status == "ok" else None,
        "topic_ids": sorted(topic_reasons),
        "topic_reasons": topic_reasons,
    }


def summarized_ts(event: PaperEnriched) -> int | None:
    """When the paper's 导读 came to be shown here: ours when written; another system's (a community summary, which
    carries no time of writing) once both the paper was here and the publisher had published it, so that a paper
    first seen with one counts as new, and a later update of the paper does not count it again."""
    summary = event.summary
    if summary.publisher is None or summary.generated_at is not None:
        return _ts(summary.generated_at)
    arrived = int(event.paper.first_seen.timestamp())
    try:
        published = datetime.combine(date.fromisoformat(summary.published_on or ""), time(), UTC)
    except ValueError:  # no day named: the paper's arrival alone
        return arrived
    return max(arrived, int(published.timestamp()))


def quote(value: str) -> str:
    """A Meilisearch filter string literal: backslashes and double quotes escaped, so a value is never syntax."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _flag(value: bool) -> str:
    return "true" if value else "false"


@dataclass(frozen=True, slots=True)
class PaperFilter:
    """Conditions on paper documents; unset ones do not filter. `since_ts` / `until_ts` bound the time `dated_by`
    names (the search pages date papers by the time they sort by)."""

    paper_ids: Sequence[str] = ()
    categories: Sequence[str] = ()
    sources: Sequence[str] = ()
    venue: str | None = None
    venue_year: int | None = None
    ccf_rank: str | None = None
    track: str | None = None
    accepted: bool | None = None
    status: str | None = None
    ai_related: bool | None = None
    author_key: str | None = None  # family name and initial ("li y"): every author it may stand for
    author_name: str | None = None  # the full name as written ("li yinghui")
    # either: a name key, or an initial key ("li y" is both: "Y. Li" as written, or any Li of initial Y)
    author: str | None = None
    has_revisions: bool | None = None
    has_code: bool | None = None
    topic_id: str | None = None
    institution: str | None = None  # a ROR id: papers one of whose authors is at that institution
    min_citations: int | None = None  # papers cited at least this often (papers without a count are left out)
    summarized_since_ts: int | None = None
    dated_by: DatedSort = "updated"
    since_ts: int | None = None
    until_ts: int | None = None

    def clauses(self) -> list[str | list[str]]:
        """Meilisearch's array filter form: inner lists are OR, the outer list is AND."""
        clauses: list[str | list[str]] = []
        if self.paper_ids:
            clauses.append([f"paper_id = {quote(p)}" for p in self.paper_ids])
        if self.categories:
            clauses.append([f"categories = {quote(c)}" for c in self.categories])
        if self.sources:
            clauses.append([f"sources = {quote(s)}" for s in self.sources])
        if self.venue_year is not None or self.ccf_rank or self.track:
            tag = venue_tag(self.venue, self.venue_year, self.ccf_rank, self.track)
            clauses.append(f"venue_tags = {quote(tag)}")
        elif self.venue:  # the venue of an accepted claim, or of the published record (as the source names it)
            clauses.append(
                [f"venue_tags = {quote(venue_tag(self.venue, None, None, None))}", f"venue = {quote(self.venue)}"]
            )
        if self.accepted is not None:
            clauses.append("accepted = true" if self.accepted else "NOT accepted = true")
        if self.status:
            clauses.append(f"status = {quote(self.status)}")
        if self.ai_related is not None:
            clauses.append(f"ai_related = {_flag(self.ai_related)}")
        if self.author_key:
            clauses.append(f"author_keys = {quote(self.author_key)}")
        if self.author_name:
            clauses.append(f"author_names = {quote(self.author_name)}")
        if self.author:
            clauses.append([f"author_names = {quote(self.author)}", f"author_keys = {quote(self.author)}"])
        if self.has_revisions is not None:
            clauses.append(f"has_revisions = {_flag(self.has_revisions)}")
        if self.has_code is not None:
            clauses.append("links.code EXISTS" if self.has_code else "NOT links.code EXISTS")
        if self.topic_id:
            clauses.append(f"topic_ids = {quote(self.topic_id)}")
        if self.institution:
            clauses.append(f"institution_ids = {quote(self.institution)}")
        if self.min_citations is not None:
            clauses.append(f"citation_count >= {int(self.min_citations)}")
        if self.summarized_since_ts is not None:
            clauses.append(f"summarized_ts >= {int(self.summarized_since_ts)}")
        time_field = SORT_FIELDS[self.dated_by]
        if self.since_ts is not None:
            clauses.append(f"{time_field} >= {int(self.since_ts)}")
        if self.until_ts is not None:
            clauses.append(f"{time_field} < {int(self.until_ts)}")
        return clauses
