"""The normalizer's numbered migrations (services/normalizer/migrations.py) over a real MongoDB: each applied once
and recorded, not run at the next start, and changing nothing more when an operator runs it again by hand."""

from collections.abc import Sequence

import pytest
from pydantic import BaseModel
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.migrations import COLLECTION, MigrationContext, MigrationRecord
from papertrail.paper_ids import FINGERPRINT_SCHEME
from schemas import topics
from services.normalizer.migrations import MIGRATIONS, SCHEME_MIGRATIONS, refresh_fingerprints
from services.normalizer.store import PaperStore
from tests.normalizer.sources import ACL_RED_FM, acl_records, red_fm_preprint
from tests.normalizer.test_store import apply


class Published:
    def __init__(self) -> None:
        self.events: list[tuple[str, BaseModel, str]] = []

    async def __call__(self, topic: str, events: Sequence[tuple[BaseModel, str]]) -> None:
        self.events += [(topic, event, key) for event, key in events]


def test_the_current_fingerprint_scheme_has_its_migration() -> None:
    migration = MIGRATIONS.numbered(SCHEME_MIGRATIONS[FINGERPRINT_SCHEME])
    assert migration is not None and migration.apply is refresh_fingerprints


@pytest.mark.integration
async def test_papers_under_an_older_fingerprint_scheme_are_fingerprinted_once(scratch_db: AsyncDatabase) -> None:
    store = PaperStore(scratch_db)
    await store.ensure_indexes()
    await apply(store, acl_records(ACL_RED_FM)[0])
    stale = {"$set": {"fingerprints": ["0" * 32]}, "$unset": {"fingerprint_scheme": ""}}  # as an older release left it
    await store.papers.update_one({}, stale)
    context, record = MigrationContext(scratch_db, Published()), MigrationRecord(scratch_db)
    migration = MIGRATIONS.numbered(1)
    assert migration is not None

    assert await record.run(migration, context) == "1 papers fingerprinted again"
    assert (await scratch_db[COLLECTION].find_one({"_id": 1}) or {})["state"] == "applied"
    assert await record.run(migration, context) is None  # the next start: recorded, not run
    assert await record.run(migration, context, again=True) == "0 papers fingerprinted again"  # by hand: nothing left
    await apply(store, red_fm_preprint())
    assert await store.papers.count_documents({}) == 1  # the preprint found its published paper by title


@pytest.mark.integration
async def test_front_matter_papers_are_withdrawn_once_announced(scratch_db: AsyncDatabase) -> None:
    store = PaperStore(scratch_db)
    await store.ensure_indexes()
    records = acl_records()
    await apply(store, *records)  # what earlier releases stored: front matter merged like any paper
    front_ids = {f"acl:{r.record_id}" for r in records if r.record_id.endswith(".0")}
    published = Published()
    context, record = MigrationContext(scratch_db, published), MigrationRecord(scratch_db)

    ran = await record.run_pending(MIGRATIONS, context)
    assert [(m.number, outcome) for m, outcome in ran] == [
        (1, "0 papers fingerprinted again"),
        (2, f"{len(front_ids)} front-matter papers withdrawn"),
    ]
    assert {(topic, key) for topic, _, key in published.events} == {(topics.PAPERS_WITHDRAWN, i) for i in front_ids}
    assert await store.papers.count_documents({"_id": {"$in": sorted(front_ids)}}) == 0
    assert await record.run_pending(MIGRATIONS, context) == []  # the next start
    migration = MIGRATIONS.numbered(2)
    assert migration is not None
    assert await record.run(migration, context, again=True) == "0 front-matter papers withdrawn"
    assert len(published.events) == len(front_ids)  # nothing announced twice
