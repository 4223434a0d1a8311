"""ACL front matter is no paper: the recorded ACL 2024 volumes' front matter is set aside, and a store that earlier
releases filled with it (every record merged, as they did) gets it withdrawn: announced, then removed with its
version and source records, over a real MongoDB-protocol server."""

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import PaperWithdrawn, RawRecord
from services.normalizer.front_matter import set_aside_front_matter
from services.normalizer.normalize import withdraw_front_matter
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import Incoming
from services.normalizer.store import PaperStore
from tests.support.normalizing import apply
from tests.support.sources import acl_records

VOLUMES = 5  # 2024.acl holds five volumes (long, short, srw, demo, tutorials), each with its front matter


@pytest.fixture(scope="module")
def records() -> list[RawRecord]:
    return acl_records()


def test_each_volumes_front_matter_is_set_aside(records: list[RawRecord]) -> None:
    items = [Incoming(raw, parse_raw(raw)) for raw in records]
    papers, front_matter = set_aside_front_matter(items)
    assert len(front_matter) == VOLUMES and len(papers) == len(items) - VOLUMES
    assert all(i.raw.record_id.endswith(".0") for i in front_matter)
    assert not any(i.raw.record_id.endswith(".0") for i in papers)
    assert all(i.record.title.startswith("Proceedings of the 62nd Annual Meeting") for i in front_matter)


@pytest.mark.integration
async def test_front_matter_held_from_earlier_releases_is_announced_then_removed(
    scratch_db: AsyncDatabase, records: list[RawRecord]
) -> None:
    store = PaperStore(scratch_db)
    await store.ensure_indexes()
    await apply(store, *records)  # what earlier releases stored: front matter merged like any paper
    front_ids = {f"acl:{r.record_id}" for r in records if r.record_id.endswith(".0")}
    assert await store.papers.count_documents({"_id": {"$in": sorted(front_ids)}}) == VOLUMES
    announced: list[PaperWithdrawn] = []

    async def refuse(withdrawals: list[PaperWithdrawn]) -> None:
        raise ConnectionError("broker away")

    with pytest.raises(ConnectionError):  # not announced: nothing may go
        await withdraw_front_matter(store, refuse)
    assert await store.papers.count_documents({"_id": {"$in": sorted(front_ids)}}) == VOLUMES

    async def announce(withdrawals: list[PaperWithdrawn]) -> None:
        # at the moment of the announcement the papers are still held
        assert await store.papers.count_documents({"_id": {"$in": [w.paper_id for w in withdrawals]}}) == VOLUMES
        announced.extend(withdrawals)

    withdrawn = await withdraw_front_matter(store, announce)
    assert withdrawn == announced and {w.paper_id for w in announced} == front_ids
    for event in announced:
        assert event.reason == "front_matter" and event.ids.acl == event.paper_id.removeprefix("acl:")
        assert event.title.startswith("Proceedings of the 62nd Annual Meeting")
    for collection, field in ((store.papers, "_id"), (store.versions, "paper_id"), (store.source_records, "paper_id")):
        assert await collection.count_documents({field: {"$in": sorted(front_ids)}}) == 0, collection.name
    papers = len(records) - VOLUMES
    assert await store.papers.count_documents({}) == papers
    assert await store.source_records.count_documents({}) == papers
    assert await store.versions.count_documents({}) == papers
    assert await withdraw_front_matter(store, announce) == []  # the next start finds none
