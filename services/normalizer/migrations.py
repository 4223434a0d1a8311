"""The normalizer's numbered migrations (papertrail/runtime/migrations.py): papers an older release stored. Run once by
`papertrail migrate`, or at the service's start, before a record is consumed, while pending."""

import hashlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

from papertrail.runtime.migrations import Migration, MigrationContext, Migrations
from schemas import topics
from schemas.events import PaperNormalized, PaperWithdrawn
from schemas.paper import Paper, PaperVersion
from services.normalizer.front_matter import REASON
from services.normalizer.identity import (
    Change,
    categorized_as_stored,
    claimed_as_stored,
    dated_as_stored,
    linked_as_stored,
)
from services.normalizer.metrics import WITHDRAWN
from services.normalizer.normalize import withdraw_front_matter
from services.normalizer.plan import Draft
from services.normalizer.records import StoredPaper
from services.normalizer.store import PaperStore

# A release that raises FINGERPRINT_SCHEME (papertrail/domain/paper_ids.py) adds a migration that runs
# refresh_fingerprints again, under a new number: each scheme → the migration that brings stored papers to it
# (tests/normalizer/test_migrations.py fails on a scheme without one).
SCHEME_MIGRATIONS = {2: 1}
REFRESH_PASSES = 10  # a paper a merge changed during a pass is fingerprinted in the next one
log = logging.getLogger("papertrail.normalizer")
# Migrations 6, 7, 8 and 9's version records: metadata updates PaperTrail made itself, not source records (the paper
# page's history names them so)
MIGRATION_SOURCE, DATING_RECORD, CLAIMING_RECORD = "papertrail", "migration 6", "migration 7"
CATEGORIZING_RECORD, LINKING_RECORD = "migration 8", "migration 9"
UPDATE_BATCH = 500


async def refresh_fingerprints(context: MigrationContext) -> str:
    """Papers stored under an older fingerprint scheme get the current one's (PaperStore.refresh_fingerprints):
    otherwise a record would no longer find by title a paper stored before fingerprint() changed."""
    papers = PaperStore(context.db)
    refreshed = 0
    for _ in range(REFRESH_PASSES):
        refreshed += await papers.refresh_fingerprints()
        if not await papers.count_stale_fingerprints():
            return f"{refreshed} papers fingerprinted again"
    raise RuntimeError(f"papers kept changing while fingerprinted again ({REFRESH_PASSES} passes): run it again")


async def withdraw_held_front_matter(context: MigrationContext) -> str:
    """Papers earlier releases made of ACL front matter leave the store, announced on papers.withdrawn.v1 so the
    summarizer, the matcher and the query service drop them too."""

    async def announce(withdrawals: list[PaperWithdrawn]) -> None:
        await context.publish(topics.PAPERS_WITHDRAWN, [(w, w.paper_id) for w in withdrawals])

    withdrawals = await withdraw_front_matter(PaperStore(context.db), announce)
    if withdrawals:
        WITHDRAWN.labels(REASON).inc(len(withdrawals))
        log.info("front matter withdrawn", extra={"papers": [w.paper_id for w in withdrawals]})
    return f"{len(withdrawals)} front-matter papers withdrawn"


async def date_first_publications(context: MigrationContext) -> str:
    """Papers stored before every arXiv paper had a first-published date (issue 27) get the one a merge gives
    (identity.dated_as_stored): from their versions, else their arXiv id's month. Each is a metadata update, as a
    merge writes one (a version record, papers.normalized.v1 of kind "updated"), so the summarizer passes the date
    on and the query service indexes it (sort=published, the page's 首次发表)."""
    papers = PaperStore(context.db)
    dated = await _update_stored(context, DATING_RECORD, papers.undated_papers, dated_as_stored)
    return f"{dated} papers given a first-published date"


async def claim_venues(context: MigrationContext) -> str:
    """Papers stored before venue claims existed (issue 24) get the ones a merge puts on every paper
    (identity.claimed_as_stored: from their comment, journal reference and DOIs), each a metadata update announced
    as migration 6's are, so the index gets them (the venue filters, facets and follows read them). A paper that
    claims nothing is left as it is: a merge stores it so too."""
    papers = PaperStore(context.db)
    claimed = await _update_stored(context, CLAIMING_RECORD, papers.unclaimed_papers, claimed_as_stored)
    return f"{claimed} papers given their venue claims"


async def categorize_anthology_papers(context: MigrationContext) -> str:
    """ACL Anthology papers stored before ACL records gave the category cs.CL get it (identity.categorized_as_stored,
    after a merged preprint's categories), each a metadata update announced as migration 6's are, so the index's
    分类 filter (category=cs.CL) finds them."""
    papers = PaperStore(context.db)
    changed = await _update_stored(
        context, CATEGORIZING_RECORD, papers.uncategorized_anthology_papers, categorized_as_stored
    )
    return f"{changed} ACL Anthology papers given the category cs.CL"


async def drop_other_links(context: MigrationContext) -> str:
    """Papers stored before the normalizer kept only http(s) links (issue 37) lose the others (a source's
    `javascript:` URL as it came; identity.linked_as_stored), each a metadata update announced as migration 6's are,
    so the API's paper and the index hold them no more."""
    papers = PaperStore(context.db)
    changed = await _update_stored(context, LINKING_RECORD, papers.papers_with_other_links, linked_as_stored)
    return f"{changed} papers rid of links that are no http(s) URL"


class StoredChange(Protocol):
    def __call__(
        self, paper: Paper, *, now: datetime, next_seq: int, source: str, record_id: str, content_hash: str
    ) -> Change | None: ...


async def _update_stored(
    context: MigrationContext,
    record_id: str,
    batches: Callable[[str | None, int], Awaitable[list[StoredPaper]]],
    change_of: StoredChange,
) -> int:
    """Stored papers, batch after batch, each changed by `change_of` as a metadata update by `record_id`; how many.

    Written like a merge (conditional on the paper's revision: one a merge changed meanwhile got the change from the
    merge), then announced on papers.normalized.v1, then its version recorded: a run stopped in between leaves the
    version record in the paper (`last_versions`), and the next run announces and records it first."""
    papers, content_hash = PaperStore(context.db), hashlib.sha256(record_id.encode()).hexdigest()

    async def settle(changed: list[tuple[PaperNormalized, PaperVersion]]) -> None:
        if not changed:
            return
        await context.publish(topics.PAPERS_NORMALIZED, [(event, event.paper.id) for event, _ in changed])
        await papers.record_versions([version for _, version in changed])

    held = await papers.unrecorded_versions(record_id)
    await settle([(PaperNormalized(kind="updated", paper=p, version=v), v) for p, v in held])
    updated, after = 0, None
    while stored := await batches(after, UPDATE_BATCH):
        after, now, drafts = stored[-1].paper.id, datetime.now(UTC), []
        for held_paper in stored:
            change = change_of(
                held_paper.paper,
                now=now,
                next_seq=held_paper.version_count + 1,
                source=MIGRATION_SOURCE,
                record_id=record_id,
                content_hash=content_hash,
            )
            if change is not None:
                event = PaperNormalized(kind=change.kind, paper=change.paper, version=change.version)
                drafts.append(
                    Draft(
                        held_paper, change.paper, held_paper.fingerprints, change.version.seq, [change.version], [event]
                    )
                )
        lost = await papers.save(drafts)
        written = [d for d in drafts if d.paper is not None and d.paper.id not in lost]
        await settle([(d.events[0], d.versions[0]) for d in written])
        updated += len(written)
    return updated


MIGRATIONS = Migrations(
    [
        Migration(1, "fingerprint papers under the current scheme", "normalizer", refresh_fingerprints),
        Migration(2, "withdraw papers made of ACL front matter", "normalizer", withdraw_held_front_matter),
        Migration(6, "date the first publication of papers stored without one", "normalizer", date_first_publications),
        Migration(7, "give papers stored before venue claims their claims", "normalizer", claim_venues),
        Migration(8, "give ACL Anthology papers the category cs.CL", "normalizer", categorize_anthology_papers),
        Migration(9, "drop papers' links that are no http(s) URL", "normalizer", drop_other_links),
    ]
)
