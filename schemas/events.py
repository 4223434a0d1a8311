"""One pydantic model per Kafka topic; the payload of every message is the JSON of one of these."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.added_fields import left_out
from schemas.paper import ClaimSource, ClaimTrack, Paper, PaperIds, PaperVersion
from schemas.summary import Summary

RawFormat = Literal[
    "arXivRaw",
    "arXiv",
    "arxiv_atom",
    "oai_dc",
    "acl_xml",
    "hf_daily_json",
    "kaggle_arxiv_json",
    "corpus_json",
    "daily_arxiv_json",
    "pmlr_bibtex",
    "openreview_note",
    "dblp_xml",
    "arxiv_html_authors",
    "arxiv_pdf_first_page",
    "s2_paper_json",
]
NormalizedKind = Literal["new", "revised", "published", "updated"]


class RawRecord(BaseModel):
    """harvest.raw.v1: one record exactly as a source served it. Key: `source:record_id`."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="source module that harvested it", examples=["arxiv", "acl", "hf"])
    record_id: str = Field(description="the source's id of the record", examples=["2401.12345"])
    format: RawFormat = Field(description="format of `content`, which picks the parser")
    content: str = Field(description="the original XML element or JSON object, as text")
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="sha256 of `content` (UTF-8)")
    datestamp: str | None = Field(None, description="the source's own datestamp of the record", examples=["2026-11-14"])
    run_id: str = Field(description="harvest run that fetched it")
    harvested_at: datetime = Field(description="when it was fetched (UTC)")


class AnnouncedCategory(BaseModel):
    """One category of an announcement as the watcher saw it."""

    model_config = ConfigDict(extra="forbid")

    category: str = Field(description="arXiv category", examples=["cs.CL"])
    outcome: Literal["announced", "stale", "none"] | None = Field(
        None, description="when the window closed: the new batch came, the feed still served the last one, or none"
    )
    entries: int = Field(0, ge=0, description="entries (ids) of the category's latest batch")
    seen_at: datetime | None = Field(None, description="when the watcher saw that batch (UTC)")


class AnnouncementReport(BaseModel):
    """What an announcement watch saw, and how the reconciliation with OAI-PMH stands."""

    model_config = ConfigDict(extra="forbid")

    day: str = Field(description="the announcement's US Eastern date", examples=["2026-05-19"])
    announced_at: datetime = Field(description="20:00 US Eastern of that day (UTC)")
    categories: list[AnnouncedCategory] = Field(default_factory=list, description="each watched category")
    gap_papers: int | None = Field(
        None, ge=0, description="announced longer than ARXIV_FEED_GAP_S ago, OAI-PMH record not come"
    )


class HarvestStatus(BaseModel):
    """harvest.status.v1: a harvest run started, finished or failed. Key: the source."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="source", examples=["arxiv"])
    run_id: str = Field(description="id of the run")
    state: Literal["started", "finished", "failed"] = Field(description="what happened")
    window_from: str | None = Field(None, description="start of the harvested window (source datestamp)")
    window_until: str | None = Field(None, description="end of the window, if bounded")
    pages: int = Field(0, ge=0, description="pages fetched so far")
    records: int = Field(0, ge=0, description="records published so far")
    started_at: datetime = Field(description="when the run started (UTC)")
    finished_at: datetime | None = Field(None, description="when it finished or failed (UTC)")
    error: str | None = Field(None, description="why it failed")
    next_run_at: datetime | None = Field(None, description="when the next run is scheduled (UTC)")
    announcement: AnnouncementReport | None = Field(
        None, exclude_if=left_out, description="announcement watcher (arxiv_feed): what its window saw; else absent"
    )
    skipped: list[str] = Field(
        [],
        exclude_if=left_out,
        description="what the run read but could not use and left out, each named with why (a ccf_deadlines file); "
        "absent when nothing was",
        examples=[["conference/AI/icml.yml: not readable YAML: while parsing a flow mapping …"]],
    )


class PaperNormalized(BaseModel):
    """papers.normalized.v1: the canonical paper after a source record changed it. Key: paper id."""

    model_config = ConfigDict(extra="forbid")

    kind: NormalizedKind = Field(
        description="new paper, new source version, published version found, or metadata update"
    )
    paper: Paper = Field(description="the canonical paper after the change")
    version: PaperVersion = Field(description="the version record this change wrote")
    harvested_at: datetime | None = Field(None, description="when the raw record was fetched, for end-to-end latency")


class PaperEmbedding(BaseModel):
    """Where a paper's vector stands. The vector itself stays off the event: readers batch-read `paper_vectors`."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(
        description="what makes the vectors: backend/model/dimensions/max tokens",
        examples=["local/all-MiniLM-L6-v2-int8/384/256"],
    )
    state: Literal["embedded", "failed", "pending"] = Field(
        description="embedded: in `paper_vectors`; failed: the text cannot be embedded (`paper_vectors` says why); "
        "pending: waiting for the background sweep, which emits the paper again once embedded"
    )


class PaperEnriched(BaseModel):
    """papers.enriched.v1: a normalized paper with its AI summary (or the summary's status). Key: paper id."""

    # Unknown fields are ignored, not refused: a consumer keeps reading the events of a newer producer that added a
    # field (fields are only ever added to a .v1 topic; docs/events.md says how an addition is rolled out).
    model_config = ConfigDict(extra="ignore")

    kind: NormalizedKind = Field(description="the kind of the normalized event this follows")
    paper: Paper = Field(description="the canonical paper")
    version: PaperVersion = Field(description="the version record behind this event")
    summary: Summary = Field(description="AI summary, or status pending / failed")
    harvested_at: datetime | None = Field(None, description="when the raw record was fetched")
    embedding: PaperEmbedding | None = Field(
        None, description="the paper's vector: embedded, failed or pending; absent from older producers (unknown)"
    )


class PaperNew(BaseModel):
    """papers.new.v1, the public topic: a paper PaperTrail sees for the first time. Key: paper id.

    Other systems consume this; its fields only ever grow (a breaking change gets papers.new.v2).
    """

    model_config = ConfigDict(extra="forbid")

    paper: Paper = Field(description="the canonical paper")
    summary: Summary = Field(description="AI summary, or status pending when not written yet")
    first_seen: datetime = Field(description="when PaperTrail first observed it (UTC)")


class PaperWithdrawn(BaseModel):
    """papers.withdrawn.v1: a paper PaperTrail published before is not a paper after all and is gone from its
    store. Every consumer drops what it holds of it (index document, matches, pending summary). Key: paper id.

    Other systems that keep papers from papers.new.v1 should drop it too; its fields only ever grow.
    """

    model_config = ConfigDict(extra="forbid")

    paper_id: str = Field(description="canonical id of the withdrawn paper", examples=["acl:2024.acl-long.0"])
    ids: PaperIds = Field(description="every id it was known by, for systems that keyed it by another id")
    title: str = Field(description="its title, for logs and people", examples=["Proceedings of the 62nd Annual …"])
    reason: str = Field(
        description="why: `front_matter` (an ACL Anthology volume's front matter, which earlier releases stored as "
        "a paper); more reasons may come",
        examples=["front_matter"],
    )
    withdrawn_at: datetime = Field(description="when PaperTrail withdrew it (UTC)")


FollowKind = Literal["keyword", "author", "topic", "similar", "venue", "institution"]
CcfFieldCode = Literal["AI", "CG", "CT", "DB", "DS", "HI", "MX", "NW", "SC", "SE"]
VenueEvidence = Literal[ClaimSource, "proceedings"]


class MatchReason(BaseModel):
    """Why a paper matched a follow: which subtopic, which term, in which field; for a `similar` follow, which seed
    paper (or the description) it was closest to, and the score; for a `venue` follow, the venue and edition the paper
    was accepted at, from which field and version; for an `institution` follow, the institution an author is at."""

    model_config = ConfigDict(extra="forbid")

    subtopic: str | None = Field(None, description="subtopic of a topic follow", examples=["math reasoning"])
    subtopic_id: str | None = Field(None, description="id of that subtopic", examples=["math-reasoning"])
    term: str = Field(
        description="term or author key that hit; for a similar follow, the closest seed's title, or `description`; "
        "for a venue follow, the venue and year accepted at (and the track, when not the main one); for an "
        "institution follow, the institution's name (ROR's)",
        examples=["reasoning", "ICML 2026", "Tsinghua University"],
    )
    field: Literal["title", "abstract", "authors", "categories", "keywords", "similar", "venue", "institution"] = Field(
        description="where it hit; `similar`: the paper's vector is close to the follow's seeds; `venue`: the paper "
        "was accepted at a followed venue; `institution`: an author is at the followed institution"
    )
    categories: list[str] = Field(default_factory=list, description="categories that satisfied the filter")
    seed_id: str | None = Field(
        None,
        exclude_if=left_out,
        description="similar follow: the canonical id of the closest seed paper (absent: the description)",
        examples=["arxiv:2605.01234"],
    )
    score: float | None = Field(
        None, exclude_if=left_out, description="similar follow: the cosine similarity that reached the threshold"
    )
    evidence: VenueEvidence | None = Field(
        None,
        exclude_if=left_out,
        description="venue follow: where the acceptance was read: the paper's comment, journal reference or DOI, or "
        "its published record (`proceedings`)",
        examples=["comment"],
    )
    source_version: str | None = Field(
        None, exclude_if=left_out, description="venue follow: the version whose comment says so", examples=["v3"]
    )
    term_zh: str | None = Field(
        None,
        exclude_if=left_out,
        description="institution follow: the institution's Chinese name (ROR's label), when it has one",
        examples=["清华大学"],
    )
    name_match: Literal["initials", "initial", "family"] | None = Field(
        None,
        exclude_if=left_out,
        description="author follow: the name agreed only through initials (`J. Y.` ~ `Jun-Yan`), a bare initial "
        "(`Y. Li` ~ `Yinghui Li`) or the family name alone; absent: as written, or by a pinned id",
        examples=["initial"],
    )


class FollowMatched(BaseModel):
    """follows.matched.v1: a paper satisfies a user's follow. Key: paper id."""

    model_config = ConfigDict(extra="forbid")

    user_id: str = Field(description="user who follows")
    follow_id: str = Field(description="the follow")
    follow_kind: FollowKind = Field(description="kind of follow")
    paper_id: str = Field(description="canonical paper id")
    reasons: list[MatchReason] = Field(description="every reason it matched")
    matched_at: datetime = Field(description="when (UTC)")
    follow_name: str | None = Field(None, description="what the user calls the follow", examples=["LLM reasoning"])
    topic_id: str | None = Field(None, description="catalogue topic of a topic follow", examples=["llm-reasoning"])
    paper_title: str | None = Field(None, description="title of the paper, for notifications")
    backfill: bool = Field(False, description="found by the backfill of a new follow over papers already held")


class Subtopic(BaseModel):
    """One subtopic of a topic: a keyword rule over fields and categories."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="subtopic id, unique within its topic", examples=["math-reasoning"])
    name: str = Field(description="English name", examples=["math reasoning"])
    name_zh: str = Field("", description="Chinese name", examples=["数学推理"])
    rule: str = Field(
        description="keyword expression with AND / OR / NOT and parentheses",
        examples=["(math OR mathematical OR arithmetic) AND reasoning"],
    )
    fields: Literal["title", "abstract", "both"] = Field("both", description="where the rule's terms must occur")
    categories: list[str] = Field(default_factory=list, description="only papers in one of these categories")


class SeedPaper(BaseModel):
    """A paper a `similar` follow is seeded with: its canonical id and its title (what a match's reason names)."""

    model_config = ConfigDict(extra="forbid")

    paper_id: str = Field(description="canonical paper id", examples=["arxiv:2605.01234"])
    title: str = Field(description="its title when the follow was made", examples=["SafeConv: …"])


class Follow(BaseModel):
    """A user's follow of a keyword expression, an author, a topic, papers like some seed papers or a description
    (`similar`), the papers accepted at a venue (one of the catalogue, or every venue of a CCF field and rank), or the
    papers with an author at an institution (`institution`, by its ROR id)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="follow id")
    user_id: str = Field(description="owner")
    kind: FollowKind = Field(description="kind of follow")
    name: str = Field(description="what the user calls it", examples=["retrieval for LLMs"])
    query: str | None = Field(
        None,
        description="keyword expression with AND / OR / NOT and parentheses",
        examples=['retrieval AND ("language model" OR LLM) NOT survey'],
    )
    fields: Literal["title", "abstract", "both"] = Field("both", description="where a keyword must occur")
    categories: list[str] = Field(default_factory=list, description="only papers in one of these categories")
    author: str | None = Field(None, description="author name for an author follow")
    topic_id: str | None = Field(None, description="catalogue topic for a topic follow")
    created_at: datetime = Field(description="when it was created (UTC)")
    subtopics: list[Subtopic] = Field(
        default_factory=list, description="a user-defined topic's subtopics (topic follow without topic_id)"
    )
    affiliation: str | None = Field(None, description="author follow: pin to authors with this affiliation")
    orcid: str | None = Field(None, description="author follow: pin to this ORCID iD", examples=["0000-0002-1825-0097"])
    source_author_id: str | None = Field(
        None, description="author follow: pin to this source author id, as source:id", examples=["hf:68c8cece"]
    )
    webhook_url: str | None = Field(None, description="POST each match of this follow to this URL")
    webhook_secret: str | None = Field(None, description="key of the HMAC-SHA256 signature of webhook bodies")
    push_channel_id: str | None = Field(
        None,
        exclude_if=left_out,
        description="the owner's push channel (a group bot, a Telegram chat) this follow's matches go to; absent: "
        "the owner's default channel, else their webhook",
    )
    seeds: list[SeedPaper] = Field(
        default_factory=list, exclude_if=left_out, description="similar follow: the papers it is like (1-20)"
    )
    description: str | None = Field(
        None, exclude_if=left_out, description="similar follow: what it is about, in a reader's words"
    )
    threshold: float | None = Field(
        None,
        exclude_if=left_out,
        description="similar follow: the least cosine similarity a match has",
        examples=[0.65],
    )
    venue_key: str | None = Field(
        None, exclude_if=left_out, description="venue follow: the venue catalogue's key", examples=["AI/icml"]
    )
    venue_year: int | None = Field(
        None, exclude_if=left_out, description="venue follow: only this edition (absent: every year)", examples=[2026]
    )
    venue_track: ClaimTrack | None = Field(
        None, exclude_if=left_out, description="venue follow: only this track (absent: any)", examples=["main"]
    )
    venue_field: CcfFieldCode | None = Field(
        None,
        exclude_if=left_out,
        description="venue follow without a venue_key: every catalogue venue of this CCF field",
        examples=["AI"],
    )
    venue_rank: Literal["A", "B", "C"] | None = Field(
        None, exclude_if=left_out, description="venue follow: only venues of this CCF rank", examples=["A"]
    )
    institution: str | None = Field(
        None,
        exclude_if=left_out,
        description="institution follow: the ROR id of the institution an author of the paper is at",
        examples=["03cve4549"],
    )


class FollowChanged(BaseModel):
    """follows.changed.v1: a follow was created, updated or deleted. Key: user id."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["created", "updated", "deleted"] = Field(description="what happened")
    follow_id: str = Field(description="the follow")
    user_id: str = Field(description="its owner")
    follow: Follow | None = Field(None, description="the follow after the change; absent when deleted")
    changed_at: datetime = Field(description="when (UTC)")
