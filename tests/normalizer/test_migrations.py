"""The normalizer's numbered migrations (services/normalizer/migrations.py) over a real MongoDB: each applied once
and recorded, not run at the next start, and changing nothing more when an operator runs it again by hand. The
papers are stored from recorded source files by the normalizer's own functions, then set back as older releases
left them."""

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from pydantic import BaseModel
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.paper_ids import FINGERPRINT_SCHEME, arxiv_id_month
from papertrail.runtime.migrations import COLLECTION, Migration, MigrationContext, MigrationRecord
from schemas import topics
from schemas.events import PaperNormalized, RawRecord
from services.normalizer.identity import merge
from services.normalizer.migrations import MIGRATIONS, SCHEME_MIGRATIONS, refresh_fingerprints
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.store import PaperStore
from tests.support import sources
from tests.support.normalizing import apply
from tests.support.sources import (
    ACL_RED_FM,
    HF_FILES,
    acl_records,
    corpus_records,
    hf_records,
    oai_records,
    red_fm_preprint,
)

NOW = datetime(2026, 12, 7, tzinfo=UTC)


class Published:
    def __init__(self) -> None:
        self.events: list[tuple[str, BaseModel, str]] = []

    async def __call__(self, topic: str, events: Sequence[tuple[BaseModel, str]]) -> None:
        self.events += [(topic, event, key) for event, key in events]


def test_the_current_fingerprint_scheme_has_its_migration() -> None:
    migration = MIGRATIONS.numbered(SCHEME_MIGRATIONS[FINGERPRINT_SCHEME])
    assert migration is not None and migration.apply is refresh_fingerprints


def to_run(db: AsyncDatabase, number: int) -> tuple[Published, MigrationContext, MigrationRecord, Migration]:
    """Normalizer migration `number`, what it announces kept, and the context and record to run it with."""
    published = Published()
    migration = MIGRATIONS.numbered(number)
    assert migration is not None
    return published, MigrationContext(db, published), MigrationRecord(db), migration


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
        (6, "0 papers given a first-published date"),  # every ACL paper is dated by its volume
        (7, "0 papers given their venue claims"),  # stored with their claims
        (8, "0 ACL Anthology papers given the category cs.CL"),  # stored with it
        (9, "0 papers rid of links that are no http(s) URL"),  # stored with web links only
    ]
    assert {(topic, key) for topic, _, key in published.events} == {(topics.PAPERS_WITHDRAWN, i) for i in front_ids}
    assert await store.papers.count_documents({"_id": {"$in": sorted(front_ids)}}) == 0
    assert await record.run_pending(MIGRATIONS, context) == []  # the next start
    migration = MIGRATIONS.numbered(2)
    assert migration is not None
    assert await record.run(migration, context, again=True) == "0 front-matter papers withdrawn"
    assert len(published.events) == len(front_ids)  # nothing announced twice


@pytest.mark.integration
async def test_papers_stored_without_a_first_published_date_get_the_one_a_merge_gives_announced(
    scratch_db: AsyncDatabase,
) -> None:
    store = PaperStore(scratch_db)
    await store.ensure_indexes()
    listed = corpus_records()[:3]  # listing lines: no versions, the listing day on the raw record only
    oai = oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw")[:2]  # versions with their dates
    acl = acl_records()[1]  # dated by its volume
    await apply(store, *listed, *oai, acl)
    kept = f"arxiv:{listed[0].record_id}"  # stored by this release: its listing day stays
    kept_date = (await store.papers.find_one({"_id": kept}) or {})["published_at"]
    given = {doc["_id"]: doc.get("published_at") async for doc in store.papers.find({"_id": {"$ne": kept}})}
    assert len(given) == 5 and None not in given.values()
    old = {"$unset": {"published_at": "", "published_from": ""}}  # as an older release stored them
    await store.papers.update_many({"_id": {"$ne": kept}}, old)
    await store.source_records.update_many({"paper_id": {"$ne": kept}}, {"$set": {"reading": 2}})  # and read them
    before = {doc["_id"]: doc async for doc in store.papers.find()}
    published = Published()
    context, record = MigrationContext(scratch_db, published), MigrationRecord(scratch_db)
    migration = MIGRATIONS.numbered(6)
    assert migration is not None

    assert await record.run(migration, context) == f"{len(given)} papers given a first-published date"
    after = {doc["_id"]: doc async for doc in store.papers.find()}
    for paper_id in (f"arxiv:{r.record_id}" for r in listed[1:]):  # the listing day is not stored: the id's month
        month = arxiv_id_month(paper_id.removeprefix("arxiv:"))
        assert (after[paper_id]["published_at"], after[paper_id]["published_from"]) == (month, "id_month")
    versioned = [f"arxiv:{r.record_id}" for r in oai] + [f"acl:{acl.record_id}"]
    for paper_id in versioned:  # a version's date: as a merge gives it, unmarked
        assert after[paper_id]["published_at"] == given[paper_id] and "published_from" not in after[paper_id]
    assert (after[kept]["published_at"], after[kept].get("published_from")) == (kept_date, "listing")
    assert after[kept]["rev"] == before[kept]["rev"]
    # announced as the normalizer announces a metadata update, with its version record
    assert sorted((topic, key) for topic, _, key in published.events) == sorted(
        (topics.PAPERS_NORMALIZED, paper_id) for paper_id in given
    )
    for _, event, paper_id in published.events:
        assert isinstance(event, PaperNormalized) and event.kind == "updated"
        assert event.paper.published_at == after[paper_id]["published_at"]
        assert event.version.kind == "metadata_correction" and event.version.changed_fields == ["published_at"]
        assert event.version.seq == before[paper_id]["version_count"] + 1 == after[paper_id]["version_count"]
        assert await store.versions.count_documents({"paper_id": paper_id, "seq": event.version.seq}) == 1

    assert await record.run(migration, context, again=True) == "0 papers given a first-published date"
    assert len(published.events) == len(given)  # nothing announced twice
    assert {doc["_id"]: doc["rev"] async for doc in store.papers.find()} == {i: d["rev"] for i, d in after.items()}

    # a run stopped after writing a paper, before recording its version: the next announces and records it
    stopped = versioned[0]
    await store.versions.delete_one({"paper_id": stopped, "seq": after[stopped]["version_count"]})
    assert await record.run(migration, context, again=True) == "0 papers given a first-published date"
    assert [key for _, _, key in published.events[len(given) :]] == [stopped]
    assert await store.versions.count_documents({"paper_id": stopped}) == after[stopped]["version_count"]

    # a corpus paper's line delivered again (its day imported again) is read again (an older reading read it): the
    # listing day replaces the id's month
    relisted = listed[1]
    assert [e.kind for e in (await apply(store, relisted)).events] == ["updated"]
    paper = await store.papers.find_one({"_id": f"arxiv:{relisted.record_id}"}) or {}
    listing_day = datetime.fromisoformat(relisted.datestamp or "").replace(tzinfo=UTC)
    assert (paper["published_at"], paper["published_from"]) == (listing_day, "listing")


@pytest.mark.integration
async def test_papers_stored_before_venue_claims_get_them_announced_once(scratch_db: AsyncDatabase) -> None:
    store = PaperStore(scratch_db)
    await store.ensure_indexes()
    # genuine corpus comments: "Accepted at ICML 2026", "Submitted to NeurIPS 2026. …", none; an ACL paper's DOI
    wanted = {"2605.00411", "2605.05580", "2604.27073"}
    listed = list({r.record_id: r for r in corpus_records() if r.record_id in wanted}.values())
    acl = sources.with_anthology_doi(acl_records()[1])
    await apply(store, *listed, acl)
    claims = {doc["_id"]: doc.get("venue_claims", []) async for doc in store.papers.find()}
    claiming = {paper_id for paper_id, found in claims.items() if found}
    assert claiming == {"arxiv:2605.00411", "arxiv:2605.05580", f"acl:{acl.record_id}"}
    await store.papers.update_many({}, {"$unset": {"venue_claims": ""}})  # as a release before claims stored them
    before = {doc["_id"]: doc async for doc in store.papers.find()}
    published, context, record, migration = to_run(scratch_db, 7)

    assert await record.run(migration, context) == "3 papers given their venue claims"
    after = {doc["_id"]: doc async for doc in store.papers.find()}
    assert {paper_id: doc.get("venue_claims", []) for paper_id, doc in after.items()} == claims
    quiet = "arxiv:2604.27073"  # claims nothing: left as it is, nothing announced, no version
    assert after[quiet] == before[quiet]
    assert sorted(key for _, _, key in published.events) == sorted(claiming)
    for topic, event, paper_id in published.events:
        assert topic == topics.PAPERS_NORMALIZED and isinstance(event, PaperNormalized) and event.kind == "updated"
        assert [c.model_dump(mode="python", exclude_none=True) for c in event.paper.venue_claims] == [
            {k: v for k, v in c.items() if v is not None} for c in claims[paper_id]
        ]
        version = event.version
        assert (version.kind, version.source, version.changed_fields) == (
            "metadata_correction",
            "papertrail",
            ["venue_claims"],
        )
        assert version.venue_claims == event.paper.venue_claims
        assert version.seq == before[paper_id]["version_count"] + 1 == after[paper_id]["version_count"]
        assert await store.versions.count_documents({"paper_id": paper_id, "seq": version.seq}) == 1

    assert await record.run(migration, context) is None  # the next start: recorded, not run
    assert await record.run(migration, context, again=True) == "0 papers given their venue claims"
    assert len(published.events) == len(claiming)  # nothing announced twice
    assert {doc["_id"]: doc["rev"] async for doc in store.papers.find()} == {i: d["rev"] for i, d in after.items()}


def _preprint_filed_under(*categories: str) -> RawRecord:
    """ACL_RED_FM's preprint (a derived listing line, tests/fixtures/normalizer/ORIGIN.md) filed under `categories`."""
    line = json.loads(red_fm_preprint().content) | {"categories": list(categories)}
    return sources.raw_record("corpus", line["id"], "corpus_json", json.dumps(line, ensure_ascii=False))


async def test_the_anthologys_papers_get_cs_cl_after_their_preprints_categories() -> None:
    """A merge: the Anthology's record gives cs.CL, the preprint its own; in either order."""
    acl, preprint = acl_records(ACL_RED_FM)[0], _preprint_filed_under("cs.AI", "cs.LG")
    assert parse_raw(acl).categories == ["cs.CL"]
    for first, second in ((acl, preprint), (preprint, acl)):
        start = merge(None, parse_raw(first), content_hash="a", now=NOW, ai_categories=frozenset(), next_seq=1)
        assert start is not None
        merged = merge(start.paper, parse_raw(second), content_hash="b", now=NOW, ai_categories=frozenset(), next_seq=2)
        assert merged is not None and sorted(merged.paper.categories) == ["cs.AI", "cs.CL", "cs.LG"]
        assert merged.paper.categories[0] == "cs.AI"  # the preprint's primary category stays first


@pytest.mark.integration
async def test_anthology_papers_stored_without_cs_cl_get_it_announced_once(scratch_db: AsyncDatabase) -> None:
    store = PaperStore(scratch_db)
    await store.ensure_indexes()
    alone = acl_records()[1]
    await apply(store, acl_records(ACL_RED_FM)[0], _preprint_filed_under("cs.AI"), alone, corpus_records()[0])
    merged_paper = await store.papers.find_one({"ids.arxiv": "2306.09802", "ids.acl": {"$ne": None}}) or {}
    merged, anthology = merged_paper["_id"], f"acl:{alone.record_id}"
    # as a release before ACL records gave cs.CL stored them
    await store.papers.update_one({"_id": merged}, {"$set": {"categories": ["cs.AI"]}})
    await store.papers.update_one({"_id": anthology}, {"$set": {"categories": []}})
    before = {doc["_id"]: doc async for doc in store.papers.find()}
    published, context, record, migration = to_run(scratch_db, 8)

    assert await record.run(migration, context) == "2 ACL Anthology papers given the category cs.CL"
    after = {doc["_id"]: doc async for doc in store.papers.find()}
    assert after[merged]["categories"] == ["cs.AI", "cs.CL"] and after[anthology]["categories"] == ["cs.CL"]
    untouched = set(before) - {merged, anthology}
    assert untouched and all(after[paper_id] == before[paper_id] for paper_id in untouched)
    assert sorted(key for _, _, key in published.events) == sorted([merged, anthology])
    for topic, event, _ in published.events:
        assert topic == topics.PAPERS_NORMALIZED and isinstance(event, PaperNormalized) and event.kind == "updated"
        assert (event.version.source, event.version.changed_fields) == ("papertrail", ["categories"])

    assert await record.run(migration, context) is None  # the next start: recorded, not run
    assert await record.run(migration, context, again=True) == "0 ACL Anthology papers given the category cs.CL"
    assert len(published.events) == 2  # nothing announced twice


@pytest.mark.integration
async def test_papers_stored_with_links_that_are_no_web_links_lose_them_announced_once(
    scratch_db: AsyncDatabase,
) -> None:
    store = PaperStore(scratch_db)
    await store.ensure_indexes()
    await apply(store, *hf_records(HF_FILES[1])[:3])
    links = {doc["_id"]: doc["links"] async for doc in store.papers.find()}
    hostile, mixed, international = sorted(links)
    # as a release before the normalizer kept only http(s) links stored a source's link fields as they came
    unsafe = {
        hostile: {"code": "javascript:alert(document.cookie)", "pdf": " JavaScript:alert(1)"},
        mixed: {"project": "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="},
    }
    for paper_id, given in unsafe.items():
        await store.papers.update_one({"_id": paper_id}, {"$set": {f"links.{k}": url for k, url in given.items()}})
        links[paper_id] = {k: url for k, url in links[paper_id].items() if k not in given}
    # a web link the database's filter cannot tell from another (a host beginning with no ASCII letter): kept
    await store.papers.update_one(
        {"_id": international}, {"$set": {"links.project": "https://中国互联网络信息中心.中国"}}
    )
    links[international] |= {"project": "https://中国互联网络信息中心.中国"}
    before = {doc["_id"]: doc async for doc in store.papers.find()}
    published, context, record, migration = to_run(scratch_db, 9)

    assert await record.run(migration, context) == "2 papers rid of links that are no http(s) URL"
    after = {doc["_id"]: doc async for doc in store.papers.find()}
    assert {paper_id: doc["links"] for paper_id, doc in after.items()} == links
    assert after[international] == before[international]  # nothing announced, no version
    assert sorted(key for _, _, key in published.events) == [hostile, mixed]
    for topic, event, paper_id in published.events:
        assert topic == topics.PAPERS_NORMALIZED and isinstance(event, PaperNormalized) and event.kind == "updated"
        assert event.paper.links == links[paper_id]
        version = event.version
        assert (version.kind, version.source, version.changed_fields) == (
            "metadata_correction",
            "papertrail",
            ["links"],
        )
        assert version.seq == before[paper_id]["version_count"] + 1 == after[paper_id]["version_count"]
        assert await store.versions.count_documents({"paper_id": paper_id, "seq": version.seq}) == 1

    assert await record.run(migration, context) is None  # the next start: recorded, not run
    assert await record.run(migration, context, again=True) == "0 papers rid of links that are no http(s) URL"
    assert len(published.events) == 2  # nothing announced twice
    assert {doc["_id"]: doc["rev"] async for doc in store.papers.find()} == {i: d["rev"] for i, d in after.items()}
