"""The canonical paper document (MongoDB `papers`) and its version records (`paper_versions`)."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.added_fields import left_out

PublicationStatus = Literal["preprint", "published"]
ClaimStatus = Literal["accepted", "submitted"]
ClaimTrack = Literal[
    "main",
    "workshop",
    "findings",
    "demo",
    "short",
    "industry",
    "datasets_benchmarks",
    "position",
    "doctoral",
    "journal",
]
Presentation = Literal["oral", "spotlight", "highlight", "poster", "best_paper"]
ClaimSource = Literal["comment", "journal_ref", "doi"]
VersionKind = Literal["first_observed", "new_version", "published", "metadata_correction"]


EvidenceKind = Literal["domain", "name", "alias", "acronym", "label", "parent", "correction"]


class AuthorInstitution(BaseModel):
    """One of an author's affiliations as written, with the ROR record it was matched to (none when no record was
    matched: the words are kept, never guessed)."""

    model_config = ConfigDict(extra="forbid")

    affiliation: str = Field(description="the affiliation as the source or the paper's first page wrote it")
    ror: str | None = Field(
        None, description="the matched ROR id (the record's URL tail)", examples=["03cve4549"], exclude_if=left_out
    )
    name: str | None = Field(
        None, description="the ROR record's name", examples=["Tsinghua University"], exclude_if=left_out
    )
    name_zh: str | None = Field(
        None, description="the ROR record's Chinese label, when it has one", examples=["清华大学"], exclude_if=left_out
    )
    country: str | None = Field(None, description="ISO 3166 country code of the record", exclude_if=left_out)
    evidence: EvidenceKind | None = Field(
        None, description="what matched: an email domain, the name, an alias, an acronym, a label", exclude_if=left_out
    )
    source: str | None = Field(
        None,
        description="where the affiliation was read: the source's record, or the paper's first page",
        examples=["acl", "arxiv_html", "pdf"],
        exclude_if=left_out,
    )


class Author(BaseModel):
    """One author, in the order the source lists them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="display name as written by the source", examples=["Wei Zhang"])
    key: str = Field(
        description="normalized name key: case and diacritics folded, 'family given-initial'",
        examples=["zhang w"],
    )
    affiliations: list[str] = Field(default_factory=list, description="affiliations, when the source gives them")
    institutions: list[AuthorInstitution] = Field(
        default_factory=list,
        description="the affiliations matched to the ROR registry, in the author's order; left out when none",
        exclude_if=left_out,
    )
    orcid: str | None = Field(None, description="ORCID iD when the source gives one")
    source_ids: dict[str, str] = Field(
        default_factory=dict, description="the author's id per source, e.g. {'hf': '68c8cece…'}"
    )


class PaperIds(BaseModel):
    """Every identifier any source gave for the work."""

    model_config = ConfigDict(extra="forbid")

    arxiv: str | None = Field(None, description="arXiv id without version", examples=["2401.12345"])
    dois: list[str] = Field(
        default_factory=list, description="DOIs, lower-cased", examples=[["10.18653/v1/2024.acl-long.1"]]
    )
    acl: str | None = Field(None, description="ACL Anthology id", examples=["2024.acl-long.1"])
    openreview: str | None = Field(None, description="OpenReview forum id")
    semantic_scholar: str | None = Field(None, description="Semantic Scholar paper id")
    dblp: str | None = Field(
        None,
        exclude_if=left_out,
        description="DBLP record key of the published record (added after papers.new.v1's first release: absent "
        "when none)",
        examples=["conf/acl/ChangSRM23"],
    )
    pmlr: str | None = Field(
        None,
        exclude_if=left_out,
        description="PMLR volume and entry key (added after papers.new.v1's first release: absent when none)",
        examples=["v267/aamand25a"],
    )


class SourceVersion(BaseModel):
    """A version the source itself announces (arXiv v1, v2; an ACL revision)."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="source that announced it", examples=["arxiv"])
    label: str = Field(description="the source's version label", examples=["v2"])
    date: datetime | None = Field(None, description="when the source says the version appeared (UTC)")


class CommunityPick(BaseModel):
    """Hugging Face daily papers: a community pick of the paper."""

    model_config = ConfigDict(extra="forbid")

    date: str = Field(description="daily papers date the paper was listed on", examples=["2025-09-16"])
    upvotes: int = Field(0, description="community upvotes when harvested")
    submitter: str | None = Field(None, description="user who submitted it")
    organization: str | None = Field(None, description="organization that submitted it")


class CommunitySummary(BaseModel):
    """A Chinese summary another system published for the paper (daily-arXiv-ai-enhanced's `AI` fields): what that
    source says, kept with the paper like a Hugging Face pick. The summarizer shows it as the paper's 导读 while it
    has none of its own, once it passes the same checks as its own summaries."""

    model_config = ConfigDict(extra="forbid")

    publisher: str = Field(description="who published it", examples=["daily-arXiv-ai-enhanced"])
    model: str = Field(description="the model the publisher says wrote it", examples=["deepseek-chat"])
    date: str = Field(description="the day of the publisher's file that carried it", examples=["2026-05-08"])
    tldr_zh: str = Field(description="Chinese TL;DR")
    motivation_zh: str = Field("", description="motivation, in Chinese")
    method_zh: str = Field("", description="method, in Chinese")
    result_zh: str = Field("", description="results, in Chinese")
    conclusion_zh: str = Field("", description="conclusion, in Chinese")


class VenueClaim(BaseModel):
    """What the paper itself says about a venue (its comment, journal reference or DOI): accepted there, or only
    submitted. A workshop at a conference is that conference's venue with track `workshop`, not its main track."""

    model_config = ConfigDict(extra="forbid")

    venue: str = Field(description="the venue's acronym in the catalogue, else its name as written", examples=["ICML"])
    venue_key: str | None = Field(
        None, description="the venue catalogue's key; none for a venue it does not hold", examples=["AI/icml"]
    )
    year: int | None = Field(None, description="the edition's year, when written", examples=[2026])
    status: ClaimStatus = Field(description="accepted (or published); submitted covers 'under review'")
    track: ClaimTrack = Field("main", description="main unless the paper says which other track")
    workshop: str | None = Field(None, description="the workshop's name, as written", examples=["Workshop on AI4Math"])
    presentation: Presentation | None = Field(None, description="oral, spotlight, highlight, poster, best paper")
    ccf_rank: Literal["A", "B", "C"] | None = Field(
        None, description="the venue's CCF rank: a conference's for its main and findings tracks, a journal's own"
    )
    source: ClaimSource = Field(description="the field it was read from")
    text: str = Field(description="the words it was read from", examples=["Accepted to ICML 2026 (Spotlight)"])


class PublishedIn(BaseModel):
    """The volume a paper's published record prints it in, as printed there (an ACL Anthology record: its volume's
    metadata and the paper's pages): what a citation of the published paper writes beside its authors and year."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["proceedings", "journal"] = Field(description="a proceedings volume, or a journal's")
    title: str = Field(
        description="the paper's title as the volume prints it, as readable text",
        examples=["CSCD-NS: a Chinese Spelling Check Dataset for Native Speakers"],
    )
    title_latex: str = Field(
        description="the same title in LaTeX, as a BibTeX entry writes it: letters whose case must be kept braced, "
        "formulas as $…$, accents as commands",
        examples=["{CSCD}-{NS}: a {C}hinese Spelling Check Dataset for Native Speakers"],
    )
    booktitle: str = Field(
        description="the volume's title as printed, as readable text",
        examples=[
            "Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics (Volume 1: "
            "Long Papers)"
        ],
    )
    booktitle_latex: str = Field(description="the volume's title in LaTeX, as a BibTeX entry writes it")
    journal: str | None = Field(None, description="a journal volume's journal, when the volume names it")
    volume: str | None = Field(None, description="a journal's volume number", examples=["12"])
    issue: str | None = Field(None, description="a journal's issue number", examples=["3"])
    editors: list[Author] = Field(default_factory=list, description="the volume's editors, in order")
    publisher: str | None = Field(
        None, description="the volume's publisher, as printed", examples=["Association for Computational Linguistics"]
    )
    address: str | None = Field(None, description="the publisher's place, as printed", examples=["Bangkok, Thailand"])
    month: str | None = Field(None, description="the month of publication, as printed", examples=["August"])
    pages: str | None = Field(None, description="the paper's pages in the volume, as printed", examples=["146-159"])


class Citations(BaseModel):
    """How often the work is cited, as a citation index counted it on a day."""

    model_config = ConfigDict(extra="forbid")

    count: int = Field(ge=0, description="works citing it, as the source counts them", examples=[10059])
    source: Literal["semantic_scholar"] = Field(description="the citation index that counted them")
    as_of: datetime = Field(description="when the source answered with that count (UTC)")


class Paper(BaseModel):
    """One canonical record per work, whichever sources described it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(
        description="canonical id from the strongest id", examples=["arxiv:2401.12345", "acl:2024.acl-long.1"]
    )
    ids: PaperIds = Field(description="every id the work is known by")
    title: str = Field(description="title as readable text", examples=["Attention Is All You Need"])
    abstract: str = Field("", description="abstract as readable text")
    authors: list[Author] = Field(default_factory=list, description="authors in order")
    categories: list[str] = Field(
        default_factory=list, description="categories, primary first", examples=[["cs.CL", "cs.AI"]]
    )
    venue: str | None = Field(None, description="venue name when published", examples=["ACL 2024"])
    year: int | None = Field(None, description="year of first publication")
    status: PublicationStatus = Field("preprint", description="preprint, or published in a venue or journal")
    published_in: PublishedIn | None = Field(
        None,
        exclude_if=left_out,
        description="the volume the published record prints the paper in, as printed: its title, editors, "
        "publisher, place and month, the paper's pages (ACL Anthology records; added after papers.new.v1's first "
        "release: absent when none)",
    )
    comments: str | None = Field(None, description="the authors' comments (arXiv)")
    journal_ref: str | None = Field(None, description="journal reference (arXiv)")
    venue_claims: list[VenueClaim] = Field(
        default_factory=list,
        exclude_if=left_out,
        description="venues the paper says it was accepted at or submitted to, from the newest comments, journal "
        "reference and DOIs (added in papers.new.v1 without a version change: absent in events from before)",
    )
    license: str | None = Field(None, description="license URL")
    links: dict[str, str] = Field(
        default_factory=dict,
        description="named links: abs, pdf, anthology, doi, hf, video; and code, dataset, model, demo (a Hugging "
        "Face space) and project (page), from a source's own field or else the first found in the abstract or "
        "comments",
        examples=[{"abs": "https://arxiv.org/abs/2401.14038", "code": "https://github.com/Regan-Zhang/HaDis"}],
    )
    sources: list[str] = Field(
        default_factory=list, description="sources that described the work", examples=[["arxiv", "hf"]]
    )
    versions: list[SourceVersion] = Field(default_factory=list, description="versions the sources announce")
    current_version: str | None = Field(None, description="label of the newest source version", examples=["v2"])
    community: CommunityPick | None = Field(None, description="Hugging Face daily-papers pick, if any")
    community_summary: CommunitySummary | None = Field(
        None,
        description="a Chinese summary another system published for the paper (left out: none)",
        exclude_if=left_out,
    )
    citations: Citations | None = Field(
        None,
        exclude_if=left_out,
        description="how often the work is cited, with the source and the day it counted (added after "
        "papers.new.v1's first release: absent when not counted yet)",
    )
    ai_related: bool = Field(False, description="whether the work is AI-related (categories, venue, summary)")
    first_seen: datetime = Field(description="when PaperTrail first observed the work (UTC)")
    updated_at: datetime = Field(description="when PaperTrail last recorded a change (UTC)")
    published_at: datetime | None = Field(
        None,
        description="first publication (UTC): the source's first version date, else (an arXiv paper known only from "
        "a daily listing) the day it was listed, else its id's month; `published_from` says which",
    )
    published_from: Literal["listing", "id_month"] | None = Field(
        None,
        description="where published_at comes from when no version dates it: the listing day, or the id's month "
        "(left out: a version's date, or no date)",
        exclude_if=left_out,
    )
    version_updated_at: datetime | None = Field(None, description="date of the newest source version (UTC)")


def _none(value: object) -> bool:
    return value is None


class VersionBefore(BaseModel):
    """What a record changed, as it read before it: the fields a reader compares between versions. Only the changed
    ones are present; an empty comment was ""."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = Field(None, exclude_if=_none, description="the title before")
    abstract: str | None = Field(None, exclude_if=_none, description="the abstract before")
    authors: list[str] | None = Field(None, exclude_if=_none, description="the authors' names before, in order")
    comments: str | None = Field(None, exclude_if=_none, description="the authors' comments before", examples=[""])
    categories: list[str] | None = Field(None, exclude_if=_none, description="the categories before")


class PaperVersion(BaseModel):
    """One observed change of a paper: record #seq in its history."""

    model_config = ConfigDict(extra="forbid")

    paper_id: str = Field(description="canonical paper id", examples=["arxiv:2401.12345"])
    seq: int = Field(ge=1, description="record number, 1 for the first observation")
    kind: VersionKind = Field(description="what this record is")
    source: str = Field(description="source whose record caused it", examples=["arxiv"])
    source_record_id: str = Field(description="the source's record id", examples=["2401.12345"])
    source_version: str | None = Field(None, description="the source's version label, when it has one", examples=["v2"])
    observed_at: datetime = Field(description="when PaperTrail observed it (UTC)")
    changed_fields: list[str] = Field(default_factory=list, description="paper fields this record changed")
    content_hash: str = Field(description="sha256 of the source record's content")
    venue_claims: list[VenueClaim] | None = Field(
        None,
        exclude_if=left_out,
        description="the paper's venue claims as this record left them, when it changed them (else absent)",
    )
    before: VersionBefore | None = Field(
        None,
        exclude_if=_none,
        description="title, abstract, authors, comments and categories as they read before this record, those it "
        "changed (absent on a first observation, on a record that changed none of them, and on older records)",
    )
