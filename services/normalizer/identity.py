"""Identity and merge: which canonical paper a record belongs to, and what the record changes. No I/O.

Merge rule (conservative): a record joins a paper by any shared id (arXiv id, DOI, ACL id, OpenReview forum id, PMLR
entry, DBLP key); failing that, by fingerprint = folded title (LaTeX markup folded too) + the last word of the first
author's family name and their initial, and only when no id contradicts it (a paper with arXiv id X never absorbs a
record with arXiv id Y, nor one ACL id, OpenReview forum, PMLR entry or DBLP key another). Two records with the same
title but different first authors therefore never merge, and neither do two arXiv papers that share title and first
author. Published venues win for status, venue and the volume that prints the paper; the newest version wins for
title and abstract; ids, categories, sources, links and authors' affiliations (each matched to ROR institutions) /
ORCID / source ids accumulate, and an operator's correction of an author's institutions is kept
(papertrail/domain/author_institutions.py); a code, data, model, demo or project link found in the abstract or comments
fills only a kind no source's own field gives.
The venue claims are read again from the merged paper's comments, journal reference and DOIs: the newest version's
comment wins, as it does for the comment itself.
"""

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from papertrail.domain.author_institutions import keep_corrections
from papertrail.domain.institutions.matching import with_institutions
from papertrail.domain.names import make_author
from papertrail.domain.paper_ids import fingerprint
from papertrail.domain.venues.claims import venue_claims
from papertrail.domain.web_links import web_links
from schemas.events import NormalizedKind
from schemas.paper import Author, Paper, PaperIds, PaperVersion, SourceVersion, VersionBefore, VersionKind
from services.normalizer.first_page import with_page_affiliations
from services.normalizer.links import found_links
from services.normalizer.parsers.acl import ANTHOLOGY_CATEGORY
from services.normalizer.records import PUBLISHED_STRENGTH, ParsedRecord, PublishedFrom, first_published

ARXIV_VERSION = re.compile(r"v(\d+)")
TRACKED_FIELDS = (
    "title",
    "abstract",
    "authors",
    "categories",
    "venue",
    "year",
    "status",
    "published_in",
    "comments",
    "journal_ref",
    "venue_claims",
    "license",
    "links",
    "ids",
    "versions",
    "community",
    "community_summary",
    "published_at",  # a surer first-published date (a version after a listing day) is a change of the paper
    "sources",
    "citations",
)


# The single-valued ids a paper is found by, strongest first: the canonical id is the first a record has.
# A DOI (several per paper) comes after ACL's and before the venue sources' own ids.
SINGLE_IDS = ("arxiv", "acl", "openreview", "pmlr", "dblp")


def canonical_id(ids: PaperIds) -> str:
    """The strongest id: arXiv, else ACL, else the first DOI, else the OpenReview forum, PMLR entry or DBLP key (a
    published record no preprint or DOI names)."""
    if ids.arxiv:
        return f"arxiv:{ids.arxiv}"
    if ids.acl:
        return f"acl:{ids.acl}"
    if ids.dois:
        return f"doi:{ids.dois[0]}"
    for name in SINGLE_IDS[2:]:
        if value := getattr(ids, name):
            return f"{name}:{value}"
    raise ValueError("record has no arXiv id, ACL id, DOI, OpenReview id, PMLR entry or DBLP key")


def id_keys(ids: PaperIds) -> list[str]:
    """Every id a record joins a paper by, as `kind:value`: the planner's and the store's one reading of them."""
    keys = [f"{name}:{value}" for name in SINGLE_IDS if (value := getattr(ids, name))]
    return keys + [f"doi:{doi}" for doi in ids.dois]


def record_fingerprint(record: ParsedRecord) -> str:
    return fingerprint(record.title, record.authors[0].key if record.authors else None)


def paper_fingerprint(paper: Paper) -> str:
    return fingerprint(paper.title, paper.authors[0].key if paper.authors else None)


def shares_id(a: PaperIds, b: PaperIds) -> bool:
    return bool(set(id_keys(a)) & set(id_keys(b)))


def contradicts(a: PaperIds, b: PaperIds) -> bool:
    """Two id sets that cannot describe one work: different arXiv ids, ACL ids, OpenReview forums, PMLR entries or
    DBLP keys (a conference paper and its journal extension are two DBLP records: two papers)."""
    return any((x := getattr(a, name)) and (y := getattr(b, name)) and x != y for name in SINGLE_IDS)


def enrich_authors(authors: list[Author], other: list[Author]) -> list[Author]:
    """Authors in their order, completed from another source's list of the same people (matched by key)."""
    by_key: dict[str, list[Author]] = {}
    for author in other:
        by_key.setdefault(author.key, []).append(author)
    enriched = []
    for author in authors:
        twins = by_key.get(author.key)
        twin = twins.pop(0) if twins else None
        if twin is None:
            enriched.append(author)
            continue
        enriched.append(
            author.model_copy(
                update={
                    "affiliations": author.affiliations or twin.affiliations,
                    "institutions": author.institutions or twin.institutions,
                    "orcid": author.orcid or twin.orcid,
                    "source_ids": twin.source_ids | author.source_ids,
                }
            )
        )
    return enriched


def merge_ids(a: PaperIds, b: PaperIds) -> PaperIds:
    return PaperIds(
        arxiv=a.arxiv or b.arxiv,
        dois=list(dict.fromkeys([*a.dois, *b.dois])),
        acl=a.acl or b.acl,
        openreview=a.openreview or b.openreview,
        semantic_scholar=a.semantic_scholar or b.semantic_scholar,
        dblp=a.dblp or b.dblp,
        pmlr=a.pmlr or b.pmlr,
    )


@dataclass(slots=True)
class Change:
    """The outcome of merging a record into a paper: the new paper and its version record."""

    paper: Paper
    kind: NormalizedKind
    version: PaperVersion


def _version_kind(kind: NormalizedKind) -> VersionKind:
    return {
        "new": "first_observed",
        "revised": "new_version",
        "published": "published",
        "updated": "metadata_correction",
    }[kind]  # type: ignore[return-value]


def is_ai_related(paper: Paper, ai_categories: frozenset[str]) -> bool:
    """Whether a paper is AI-related, from what its sources say, strongest evidence first:

    1. an ACL Anthology paper is (a computational-linguistics venue);
    2. a paper with categories is when one of them is in `ai_categories` (the authors filed it so);
    3. a paper with no categories yet but a Hugging Face daily pick is: the list is an AI community's picks.
       That holds only until its arXiv record brings categories, which then decide (rule 2).

    The summarizer's model verdict comes after these and can only add a paper (`refined_paper` there).
    """
    if "acl" in paper.sources:
        return True
    if paper.categories:
        return any(c in ai_categories for c in paper.categories)
    return paper.community is not None


def dated(held: list[SourceVersion], incoming: list[SourceVersion]) -> list[SourceVersion]:
    """The versions held, each undated one given its date by the incoming record that knows it."""
    dates = {(v.source, v.label): v.date for v in incoming if v.date is not None}
    return [
        v.model_copy(update={"date": dates[(v.source, v.label)]})
        if v.date is None and (v.source, v.label) in dates
        else v
        for v in held
    ]


def in_order(versions: list[SourceVersion]) -> list[SourceVersion]:
    """Each source's versions together, arXiv's by number: an announced v2 held before OAI-PMH brings v1 still
    lists v1 first."""
    first: dict[str, int] = {}
    for position, version in enumerate(versions):
        first.setdefault(version.source, position)

    def key(item: tuple[int, SourceVersion]) -> tuple[int, int]:
        position, version = item
        number = ARXIV_VERSION.fullmatch(version.label) if version.source == "arxiv" else None
        return first[version.source], int(number[1]) if number else position

    return [version for _, version in sorted(enumerate(versions), key=key)]


def _basis(first: tuple[datetime, PublishedFrom] | None) -> Literal["listing", "id_month"] | None:
    """The paper's published_from: left out for a version's date (as papers were written before the others)."""
    return None if first is None or first[1] == "versions" else first[1]


def later_is_better(offered: tuple[datetime, PublishedFrom], held_at: datetime | None, held_from: str | None) -> bool:
    """Whether a record's first-published date replaces the paper's: from a surer basis (a version over a listing
    day over an id's month), or as sure and earlier. A date held without a basis is a version's."""
    held = held_from or ("versions" if held_at else None)
    strength, held_strength = PUBLISHED_STRENGTH[offered[1]], PUBLISHED_STRENGTH[held]
    return strength > held_strength or (strength == held_strength and held_at is not None and offered[0] < held_at)


def merge(
    existing: Paper | None,
    record: ParsedRecord,
    *,
    content_hash: str,
    now: datetime,
    ai_categories: frozenset[str],
    next_seq: int,
) -> Change | None:
    """Apply a parsed record to the paper it belongs to (or start one); None when nothing changes."""
    if record.page_authors is not None:
        return _merge_first_page(existing, record, content_hash=content_hash, now=now, next_seq=next_seq)
    if record.citations is not None:
        return _merge_citations(existing, record, content_hash=content_hash, now=now, next_seq=next_seq)
    latest = record.latest_version
    first = record.first_published
    # Links found in the text fill only the kinds that no source's own field gives (here or held before).
    found = found_links(record.abstract, record.comments)
    # each author's affiliations matched to ROR, labelled with the source that gave them
    authors = with_institutions(record.authors, source=record.source)
    if existing is None:
        paper = Paper(
            id=canonical_id(record.ids),
            ids=record.ids,
            title=record.title,
            abstract=record.abstract,
            authors=authors,
            categories=record.categories,
            venue=record.venue,
            year=record.year,
            status=record.status,
            published_in=record.published_in,
            comments=record.comments,
            journal_ref=record.journal_ref,
            license=record.license,
            links=found | record.links,
            sources=[record.source],
            versions=record.versions,
            current_version=latest.label if latest else None,
            community=record.community,
            community_summary=record.community_summary,
            first_seen=now,
            updated_at=now,
            published_at=first[0] if first else None,
            published_from=_basis(first),
            version_updated_at=latest.date if latest else None,
        )
        kind: NormalizedKind = "new"
    else:
        # a shallow copy: every field below is assigned anew, never changed in place, so what it shares with the
        # held paper stays as that paper holds it (a deep copy was a third of a merge's time)
        paper = existing.model_copy()
        known = {(v.source, v.label) for v in existing.versions}
        new_versions = [v for v in record.versions if (v.source, v.label) not in known]
        newest = latest is not None and (
            # an announced version comes without its date (the feed names it tonight, OAI-PMH dates it later)
            (latest.date is None and (latest.source, latest.label) not in known)
            or (
                latest.date is not None
                and (existing.version_updated_at is None or latest.date >= existing.version_updated_at)
            )
        )
        paper.ids = merge_ids(existing.ids, record.ids)
        paper.sources = list(dict.fromkeys([*existing.sources, record.source]))
        paper.versions = in_order([*dated(existing.versions, record.versions), *new_versions])
        if newest or not existing.abstract:
            paper.title, paper.abstract = record.title, record.abstract or existing.abstract
            if authors:
                paper.authors = enrich_authors(authors, existing.authors)
        else:
            paper.authors = enrich_authors(existing.authors, authors)
        primary = record.categories[:1] if record.source == "arxiv" else existing.categories[:1]
        paper.categories = list(dict.fromkeys([*primary, *existing.categories, *record.categories]))
        if record.status == "published":
            paper.status = "published"
            paper.venue = record.venue or existing.venue
            paper.year = record.year or existing.year
            paper.published_in = record.published_in or existing.published_in
        for name in ("comments", "journal_ref", "license"):
            value = getattr(record, name)
            if value and (newest or not getattr(existing, name)):
                setattr(paper, name, value)
        paper.links = found | existing.links | record.links
        paper.community = record.community or existing.community
        paper.community_summary = record.community_summary or existing.community_summary
        if newest and latest is not None:
            paper.current_version = latest.label
            paper.version_updated_at = latest.date
        if first and later_is_better(first, existing.published_at, existing.published_from):
            paper.published_at, paper.published_from = first[0], _basis(first)
        if existing.status == "preprint" and paper.status == "published":
            kind = "published"
        elif record.source == "arxiv" and latest is not None and latest in new_versions:
            kind = "revised"  # only a newer version is a revision: versions older than the held one complete it
        else:
            kind = "updated"

    if existing is not None:  # an operator's correction of an author's institutions outlives every later record
        paper.authors = keep_corrections(paper.authors, existing.authors)
    paper.venue_claims = venue_claims(paper.comments, paper.journal_ref, paper.ids.dois)
    paper.ai_related = is_ai_related(paper, ai_categories)
    changed = changed_fields(existing, paper)
    if existing is not None and not changed:
        return None
    paper.updated_at = now
    version = PaperVersion(
        paper_id=paper.id,
        seq=next_seq,
        kind=_version_kind(kind),
        source=record.source,
        source_record_id=record.record_id,
        source_version=latest.label if latest else None,
        observed_at=now,
        changed_fields=changed,
        content_hash=content_hash,
        venue_claims=paper.venue_claims if "venue_claims" in changed else None,
        before=version_before(existing, changed),
    )
    return Change(paper=paper, kind=kind, version=version)


def _merge_first_page(
    existing: Paper | None, record: ParsedRecord, *, content_hash: str, now: datetime, next_seq: int
) -> Change | None:
    """A first-page record's affiliations put on the authors of the paper it names (an update); it starts no paper
    and changes nothing else of it."""
    if existing is None or record.page_authors is None:
        return None
    paper = existing.model_copy(deep=True)
    paper.authors = with_page_affiliations(existing.authors, record.page_authors)
    # the page's affiliations matched to ROR, the emails beside each name counting as evidence
    emails = {make_author(author.name).key: author.emails for author in record.page_authors}
    paper.authors = with_institutions(paper.authors, source=record.source, emails=emails)
    changed = changed_fields(existing, paper)
    if not changed:
        return None
    paper.updated_at = now
    version = PaperVersion(
        paper_id=paper.id,
        seq=next_seq,
        kind="metadata_correction",
        source=record.source,
        source_record_id=record.record_id,
        observed_at=now,
        changed_fields=changed,
        content_hash=content_hash,
        before=version_before(existing, changed),
    )
    return Change(paper=paper, kind="updated", version=version)


def _merge_citations(
    existing: Paper | None, record: ParsedRecord, *, content_hash: str, now: datetime, next_seq: int
) -> Change | None:
    """A citation count put on the paper it names (an update); it starts no paper and changes nothing else of it. A
    count read before the one held (a record delivered again) changes nothing."""
    if existing is None or record.citations is None:
        return None
    held = existing.citations
    if held is not None and held.as_of >= record.citations.as_of:
        return None
    counted = existing.model_copy(deep=True)
    counted.citations = record.citations
    return _stored_update(existing, counted, now, next_seq, record.source, record.record_id, content_hash)


def dated_as_stored(
    paper: Paper, *, now: datetime, next_seq: int, source: str, record_id: str, content_hash: str
) -> Change | None:
    """A paper an older release stored without a first-published date given the one a merge gives it, from what the
    paper holds (its versions, its arXiv id: a listing day is not stored), as a metadata update by `source`'s
    `record_id`. None when it has a date, or nothing dates it (as a merge leaves it)."""
    first = first_published(paper.versions, None, paper.ids.arxiv)
    if paper.published_at is not None or first is None:
        return None
    dated = paper.model_copy(deep=True)
    dated.published_at, dated.published_from = first[0], _basis(first)
    return _stored_update(paper, dated, now, next_seq, source, record_id, content_hash)


def claimed_as_stored(
    paper: Paper, *, now: datetime, next_seq: int, source: str, record_id: str, content_hash: str
) -> Change | None:
    """A paper an older release stored without venue claims given the ones a merge puts on it (read from its
    comment, journal reference and DOIs), as a metadata update by `source`'s `record_id`. None when they are the
    ones it holds (a paper that claims nothing)."""
    claims = venue_claims(paper.comments, paper.journal_ref, paper.ids.dois)
    if claims == paper.venue_claims:
        return None
    claimed = paper.model_copy(deep=True)
    claimed.venue_claims = claims
    return _stored_update(paper, claimed, now, next_seq, source, record_id, content_hash)


def categorized_as_stored(
    paper: Paper, *, now: datetime, next_seq: int, source: str, record_id: str, content_hash: str
) -> Change | None:
    """An ACL Anthology paper an older release stored without the category its record now gives (cs.CL) given it,
    after the categories it holds (a merged preprint's), as a metadata update by `source`'s `record_id`. None for a
    paper the Anthology does not hold, or that has it."""
    if "acl" not in paper.sources or ANTHOLOGY_CATEGORY in paper.categories:
        return None
    categorized = paper.model_copy(deep=True)
    categorized.categories = [*paper.categories, ANTHOLOGY_CATEGORY]
    return _stored_update(paper, categorized, now, next_seq, source, record_id, content_hash)


def linked_as_stored(
    paper: Paper, *, now: datetime, next_seq: int, source: str, record_id: str, content_hash: str
) -> Change | None:
    """A paper an older release stored with a link that is no http(s) URL (a source's `javascript:` URL, as given)
    left with only its web links, as a merge now keeps them (parse_raw), as a metadata update by `source`'s
    `record_id`. None when every link it holds is a web link."""
    kept = web_links(paper.links)
    if kept == paper.links:
        return None
    linked = paper.model_copy(deep=True)
    linked.links = kept
    return _stored_update(paper, linked, now, next_seq, source, record_id, content_hash)


def _stored_update(
    paper: Paper, changed: Paper, now: datetime, next_seq: int, source: str, record_id: str, content_hash: str
) -> Change:
    """A stored paper's metadata update, with its version record: one PaperTrail made itself (a migration), or a
    record's that completes one field (a citation count)."""
    changed.updated_at = now
    fields = changed_fields(paper, changed)
    version = PaperVersion(
        paper_id=paper.id,
        seq=next_seq,
        kind=_version_kind("updated"),
        source=source,
        source_record_id=record_id,
        observed_at=now,
        changed_fields=fields,
        content_hash=content_hash,
        venue_claims=changed.venue_claims if "venue_claims" in fields else None,
    )
    return Change(paper=changed, kind="updated", version=version)


COMPARED_FIELDS = ("title", "abstract", "authors", "comments", "categories")  # what "what changed in v2" shows


def version_before(existing: Paper | None, changed: list[str]) -> VersionBefore | None:
    """The compared fields a record changed, as they read before it; None for a first observation or none changed."""
    fields = [f for f in COMPARED_FIELDS if f in changed]
    if existing is None or not fields:
        return None
    values: dict[str, object] = {
        "title": existing.title,
        "abstract": existing.abstract,
        "authors": [a.name for a in existing.authors],
        "comments": existing.comments or "",
        "categories": existing.categories,
    }
    return VersionBefore.model_validate({f: values[f] for f in fields})


def changed_fields(before: Paper | None, after: Paper) -> list[str]:
    if before is None:
        return [f for f in TRACKED_FIELDS if getattr(after, f) not in (None, "", [], {})]
    return [f for f in TRACKED_FIELDS if getattr(before, f) != getattr(after, f)]
