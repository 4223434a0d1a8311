"""An operator's correction of an author's institutions, from a reader's report (纠错): applied to the stored paper
as a metadata correction of its own (a version record and a papers.normalized.v1 event, so the summarizer, the index
and the follows see it), marked `correction` so that no later record or matching undoes it
(papertrail/domain/author_institutions.py: keep_corrections, which every merge applies)."""

from datetime import datetime

from papertrail.domain.author_institutions import corrected
from schemas.events import PaperNormalized
from schemas.paper import AuthorInstitution, Paper, PaperVersion
from services.normalizer.identity import changed_fields, version_before
from services.normalizer.plan import Draft
from services.normalizer.store import PaperStore


class CorrectionRefused(ValueError):
    """The correction cannot be applied to the paper as it is held; the message says why."""


def corrected_paper(
    paper: Paper, position: int, institutions: list[AuthorInstitution], *, now: datetime, next_seq: int
) -> tuple[Paper, PaperVersion]:
    """The paper with author `position` (1-based) at these institutions, and its version record."""
    if not 1 <= position <= len(paper.authors):
        raise CorrectionRefused(f"{paper.id} has {len(paper.authors)} authors: no author {position}")
    after = paper.model_copy(deep=True)
    author = after.authors[position - 1]
    after.authors[position - 1] = author.model_copy(update={"institutions": [corrected(i) for i in institutions]})
    after.updated_at = now
    changed = changed_fields(paper, after)
    version = PaperVersion(
        paper_id=paper.id,
        seq=next_seq,
        kind="metadata_correction",
        source="correction",
        source_record_id=paper.id,
        observed_at=now,
        changed_fields=changed,
        content_hash=f"correction:{now.isoformat()}",
        before=version_before(paper, changed),
    )
    return after, version


async def apply_institutions(
    store: PaperStore, paper_id: str, position: int, institutions: list[AuthorInstitution], now: datetime
) -> PaperNormalized:
    """Store the corrected paper and its version record; the event to emit. CorrectionRefused for a paper not held,
    a position it has no author at, or a paper changed meanwhile (try again)."""
    stored = await store.held_paper(paper_id)
    if stored is None:
        raise CorrectionRefused(f"no paper {paper_id} is held")
    paper, version = corrected_paper(stored.paper, position, institutions, now=now, next_seq=stored.version_count + 1)
    draft = Draft(stored, paper, stored.fingerprints, version.seq, versions=[version])
    if await store.save([draft]):
        raise CorrectionRefused(f"{paper_id} changed while it was corrected: apply the correction again")
    await store.record_versions([version])
    return PaperNormalized(kind="updated", paper=paper, version=version)
