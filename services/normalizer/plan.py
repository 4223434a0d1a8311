"""Planning a batch of records against the papers they belong to: merges in memory, no I/O.

Records of one batch that describe the same work are merged one after the other into one draft, so a
batch writes each paper once (one revision step) however many of its records it holds, and every record
that changed something still gets its own version record ("record #n") and its own event.
"""

from dataclasses import dataclass, field
from datetime import datetime

from schemas.events import NormalizedKind, PaperNormalized
from schemas.paper import Paper, PaperVersion
from services.normalizer.identity import contradicts, id_keys, merge, paper_fingerprint, record_fingerprint
from services.normalizer.metrics import SET_ASIDE
from services.normalizer.records import Incoming, ParsedRecord, StoredPaper

KIND_OF_VERSION: dict[str, NormalizedKind] = {
    "first_observed": "new",
    "new_version": "revised",
    "published": "published",
    "metadata_correction": "updated",
}


@dataclass(slots=True)
class Draft:
    """One paper as this batch changes it."""

    stored: StoredPaper | None
    paper: Paper | None
    fingerprints: list[str]
    version_count: int
    versions: list[PaperVersion] = field(default_factory=list)
    events: list[PaperNormalized] = field(default_factory=list)
    items: list[Incoming] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.versions)


@dataclass(slots=True)
class Plan:
    drafts: list[Draft]
    recovered: list[PaperVersion]  # stored by an earlier delivery that stopped before recording them


class _Drafts:
    """Drafts indexed by every id and fingerprint, so each record finds its paper in memory."""

    def __init__(self) -> None:
        self.all: list[Draft] = []
        self.by_id: dict[str, Draft] = {}
        self.by_fingerprint: dict[str, list[Draft]] = {}

    def add(self, draft: Draft) -> None:
        self.all.append(draft)
        self.index(draft)

    def index(self, draft: Draft) -> None:
        assert draft.paper is not None
        for key in id_keys(draft.paper.ids):
            self.by_id.setdefault(key, draft)
        for fp in draft.fingerprints:
            if draft not in self.by_fingerprint.setdefault(fp, []):
                self.by_fingerprint[fp].append(draft)

    def find(self, record: ParsedRecord) -> Draft | None:
        ids = record.ids
        for key in id_keys(ids):
            if key in self.by_id:
                return self.by_id[key]
        if record.completes_only:  # no title: its fingerprint would join it to nothing it belongs to
            return None
        for draft in self.by_fingerprint.get(record_fingerprint(record), []):
            if draft.paper is not None and not contradicts(draft.paper.ids, ids):
                return draft
        return None


def plan_batch(
    items: list[Incoming], stored: list[StoredPaper], *, now: datetime, ai_categories: frozenset[str]
) -> Plan:
    """Merge every item, in order, into the paper it belongs to (held, or started by this batch)."""
    drafts = _Drafts()
    for held in stored:
        drafts.add(Draft(held, held.paper, list(held.fingerprints), held.version_count))
    recovered: list[PaperVersion] = []
    for item in items:
        record = item.record
        draft = drafts.find(record)
        if draft is None and record.completes_only:
            # a first page or a citation count completes a paper and starts none: without the paper it names it has
            # nothing to do
            reason = "first_page_before_paper" if record.page_authors is not None else "citations_before_paper"
            SET_ASIDE.labels(reason).inc()
            continue
        if draft is None:
            draft = Draft(None, None, [], 0)
        change = merge(
            draft.paper,
            record,
            content_hash=item.raw.sha256,
            now=now,
            ai_categories=ai_categories,
            next_seq=draft.version_count + 1,
        )
        if change is None:
            assert draft.paper is not None  # merging into nothing always changes something
            draft.items.append(item)
            earlier = _stored_but_unrecorded(draft, item.raw.sha256)
            if earlier is not None:
                recovered.append(earlier)
                draft.events.append(_event(earlier.kind, draft.paper, earlier, item))
            continue
        is_new = draft.paper is None
        draft.paper = change.paper
        draft.version_count = change.version.seq
        draft.versions.append(change.version)
        draft.events.append(_event(change.version.kind, change.paper, change.version, item))
        draft.items.append(item)
        own = [] if record.completes_only else [record_fingerprint(record)]
        for fp in (*own, paper_fingerprint(change.paper)):
            if fp not in draft.fingerprints:
                draft.fingerprints.append(fp)
        if is_new:
            drafts.add(draft)
        else:
            drafts.index(draft)
    return Plan([d for d in drafts.all if d.items], recovered)


def _stored_but_unrecorded(draft: Draft, content_hash: str) -> PaperVersion | None:
    """A version an earlier delivery of this very record wrote into the paper (then stopped, unemitted)."""
    if draft.stored is None or draft.versions:
        return None
    return next((v for v in draft.stored.last_versions if v.content_hash == content_hash), None)


def _event(kind: str, paper: Paper, version: PaperVersion, item: Incoming) -> PaperNormalized:
    return PaperNormalized(kind=KIND_OF_VERSION[kind], paper=paper, version=version, harvested_at=item.raw.harvested_at)
