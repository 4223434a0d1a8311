"""The normalizer's numbered migrations (papertrail/migrations.py): papers an older release stored. Run once by
`papertrail migrate`, or at the service's start, before a record is consumed, while pending."""

import logging

from papertrail.migrations import Migration, MigrationContext, Migrations
from schemas import topics
from schemas.events import PaperWithdrawn
from services.normalizer.front_matter import REASON
from services.normalizer.metrics import WITHDRAWN
from services.normalizer.normalize import withdraw_front_matter
from services.normalizer.store import PaperStore

# A release that raises FINGERPRINT_SCHEME (papertrail/paper_ids.py) adds a migration that runs
# refresh_fingerprints again, under a new number: each scheme → the migration that brings stored papers to it
# (tests/normalizer/test_migrations.py fails on a scheme without one).
SCHEME_MIGRATIONS = {2: 1}
REFRESH_PASSES = 10  # a paper a merge changed during a pass is fingerprinted in the next one
log = logging.getLogger("papertrail.normalizer")


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


MIGRATIONS = Migrations(
    [
        Migration(1, "fingerprint papers under the current scheme", "normalizer", refresh_fingerprints),
        Migration(2, "withdraw papers made of ACL front matter", "normalizer", withdraw_held_front_matter),
    ]
)
