"""The store and batch merge over a real MongoDB-protocol server: indexes, HF and ACL merges into arXiv papers,
same-title papers kept apart, version kinds, and the same records twice changing nothing.

The fixtures hold no arXiv record of an ACL 2024 paper nor of an HF daily pick, so the arXiv side of those
merges is **derived**: a corpus-format line written from the other source's real title, authors and abstract
the way arXiv writes them (plain title, "First Last" names), under the work's arXiv id.
"""

import json
import re

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from services.normalizer.normalize import Applied, apply_batch, settle
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import Incoming
from services.normalizer.store import PaperStore
from tests.support.normalizing import AI, _no_emit, apply
from tests.support.sources import (
    ACL_RED_FM,
    HF_FILES,
    acl_records,
    arxiv_line,
    corpus_records,
    hf_records,
    oai_records,
    raw_record,
    red_fm_preprint,
    with_anthology_doi,
)

pytestmark = pytest.mark.integration


@pytest.fixture
async def store(scratch_db: AsyncDatabase) -> PaperStore:
    papers = PaperStore(scratch_db)
    await papers.ensure_indexes()
    return papers


async def test_indexes_on_every_id_field(store: PaperStore) -> None:
    papers = {tuple(i["key"]): i async for i in await store.papers.list_indexes()}
    for field in ("ids.arxiv", "ids.acl", "ids.openreview", "ids.semantic_scholar"):
        assert papers[(field,)].get("unique") is True, field
    for field in ("ids.dois", "fingerprints"):
        assert (field,) in papers and not papers[(field,)].get("unique")
    versions = {tuple(i["key"]): i async for i in await store.versions.list_indexes()}
    assert versions[("paper_id", "seq")].get("unique") is True


async def test_hf_items_merge_into_the_arxiv_paper_with_the_same_id(store: PaperStore) -> None:
    hf = hf_records(HF_FILES[1])[:3]
    picks = [parse_raw(r) for r in hf]
    arxiv = [
        arxiv_line(p.record_id, p.title, [a.name for a in p.authors], p.abstract, ["cs.CV", "cs.AI"]) for p in picks
    ]
    await apply(store, *arxiv[:2])
    await apply(store, *hf)  # third pick before its arXiv record
    await apply(store, arxiv[2])
    assert await store.papers.count_documents({}) == 3
    for pick in picks:
        paper = await store.papers.find_one({"_id": f"arxiv:{pick.record_id}"})
        assert paper is not None and set(paper["sources"]) == {"arxiv", "hf"}
        assert paper["community"]["upvotes"] == pick.community.upvotes  # type: ignore[union-attr]
        assert paper["categories"] == ["cs.CV", "cs.AI"] and paper["ai_related"] is True
        assert paper["authors"][0]["source_ids"]["hf"] == pick.authors[0].source_ids["hf"]
        kinds = [v["kind"] async for v in store.versions.find({"paper_id": paper["_id"]}).sort("seq")]
        assert kinds[0] == "first_observed" and len(kinds) == 2


async def test_acl_paper_and_its_arxiv_preprint_become_one_published_paper(store: PaperStore) -> None:
    acl = next(r for r in acl_records() if r.record_id == "2024.acl-long.1")
    published = parse_raw(acl)
    preprint = arxiv_line(
        "2401.07159", published.title, [a.name for a in published.authors], published.abstract, ["cs.CL", "cs.LG"]
    )
    first = await apply(store, preprint)
    assert [e.kind for e in first.events] == ["new"]
    applied = await apply(store, acl)
    assert [e.kind for e in applied.events] == ["published"]
    assert await store.papers.count_documents({}) == 1
    paper = await store.papers.find_one({})
    assert paper is not None and paper["_id"] == "arxiv:2401.07159"
    assert paper["ids"]["arxiv"] == "2401.07159" and paper["ids"]["acl"] == "2024.acl-long.1"
    assert paper["status"] == "published" and paper["venue"] == "ACL 2024" and paper["year"] == 2024
    assert paper["authors"][1]["affiliations"] == ["Peng Cheng Laborotary"]  # the ACL record knows them
    assert {(v["source"], v["label"]) for v in paper["versions"]} == {("acl", "v1")}
    versions = [v async for v in store.versions.find({"paper_id": paper["_id"]}).sort("seq")]
    assert [(v["seq"], v["kind"], v["source"]) for v in versions] == [
        (1, "first_observed", "arxiv"),
        (2, "published", "acl"),
    ]
    assert "status" in versions[1]["changed_fields"] and "venue" in versions[1]["changed_fields"]
    sources = {d["_id"]: d["paper_id"] async for d in store.source_records.find({})}
    assert sources == {"corpus:2401.07159": paper["_id"], "acl:2024.acl-long.1": paper["_id"]}


async def test_acl_paper_joins_by_a_shared_doi_even_when_titles_differ(store: PaperStore) -> None:
    acl = next(r for r in acl_records() if r.record_id == "2024.acl-long.2")
    with_doi = with_anthology_doi(acl)
    published = parse_raw(with_doi)
    line = {
        "id": "2402.00001",
        "title": "An earlier title of the same work",
        "authors": "Someone Else",
        "summary": published.abstract,
        "categories": ["cs.CL"],
        "doi": "10.18653/v1/2024.acl-long.2",
        "versions": [{"version": "v1", "created": "Thu, 1 Feb 2024 10:00:00 GMT"}],
    }
    await apply(store, raw_record("kaggle", "2402.00001", "kaggle_arxiv_json", json.dumps(line)))
    await apply(store, with_doi)
    assert await store.papers.count_documents({}) == 1
    paper = await store.papers.find_one({})
    assert paper is not None and paper["ids"]["acl"] == "2024.acl-long.2" and paper["status"] == "published"
    assert paper["title"] == published.title  # the published version is the newest


@pytest.mark.parametrize("preprint_first", [True, False], ids=["preprint first", "published first"])
async def test_a_title_written_in_latex_merges_with_its_acl_version(store: PaperStore, preprint_first: bool) -> None:
    preprint, published = red_fm_preprint(), acl_records(ACL_RED_FM)[0]
    for record in (preprint, published) if preprint_first else (published, preprint):
        await apply(store, record)
    papers = [p async for p in store.papers.find({})]
    assert len(papers) == 1
    assert papers[0]["ids"]["arxiv"] == "2306.09802" and papers[0]["ids"]["acl"] == "2023.acl-long.237"
    assert papers[0]["status"] == "published" and set(papers[0]["sources"]) == {"arxiv", "acl"}


async def test_papers_stored_under_an_older_fingerprint_scheme_are_found_after_a_start(store: PaperStore) -> None:
    await apply(store, acl_records(ACL_RED_FM)[0])
    await store.papers.update_one(  # as an older normalizer left it: fingerprints nothing computes any more
        {}, {"$set": {"fingerprints": ["0" * 32]}, "$unset": {"fingerprint_scheme": ""}}
    )
    assert await store.refresh_fingerprints() == 1
    assert await store.refresh_fingerprints() == 0  # once
    await apply(store, red_fm_preprint())
    assert await store.papers.count_documents({}) == 1


async def test_two_different_papers_with_the_same_title_never_merge(store: PaperStore) -> None:
    real = parse_raw(corpus_records()[0])
    other_authors = arxiv_line("2605.99991", real.title, ["Somebody Different"], "Another abstract.", ["cs.IT"])
    same_first_author = arxiv_line(
        "2605.99992", real.title, [real.authors[0].name, "X. Y"], "A third abstract.", ["cs.IT"]
    )
    await apply(store, corpus_records()[0])
    await apply(store, other_authors, same_first_author)
    ids = sorted([d["_id"] async for d in store.papers.find({}, {"_id": 1})])
    assert ids == ["arxiv:2604.27073", "arxiv:2605.99991", "arxiv:2605.99992"]


async def test_new_arxiv_version_and_metadata_correction_are_recorded(store: PaperStore) -> None:
    record = next(
        r for r in oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw") if r.record_id == "0704.0716"
    )
    v1_only = re.sub(r'<version version="v[234]">.*?</version>', "", record.content, flags=re.S)
    corrected = record.content.replace(
        "Limit distributions and scaling functions", "Limit Distributions and Scaling Functions"
    )
    applied = [
        await apply(store, raw_record("arxiv", record.record_id, "arXivRaw", content))
        for content in (v1_only, record.content, corrected)
    ]
    assert [[e.kind for e in a.events] for a in applied] == [["new"], ["revised"], ["updated"]]
    versions = [v async for v in store.versions.find({"paper_id": "arxiv:0704.0716"}).sort("seq")]
    assert [(v["seq"], v["kind"], v["source_version"]) for v in versions] == [
        (1, "first_observed", "v1"),
        (2, "new_version", "v4"),
        (3, "metadata_correction", "v4"),
    ]
    assert versions[2]["changed_fields"] == ["title"]
    # each record keeps what it changed as it read before (what the paper page's "what changed" compares)
    (before_title,) = versions[2]["before"].values()
    assert "Limit distributions and scaling functions" in before_title and list(versions[2]["before"]) == ["title"]
    assert "before" not in versions[0]


async def test_the_same_records_again_change_nothing_and_emit_nothing(store: PaperStore) -> None:
    records = corpus_records()[:300]
    first = await apply(store, *records)
    papers = await store.papers.count_documents({})
    versions = await store.versions.count_documents({})
    assert len(first.events) == versions == papers == len({r.record_id for r in records})
    again = await apply(store, *records)
    assert again.events == [] and again.placed == []
    assert await store.versions.count_documents({}) == versions


async def test_a_record_read_by_an_older_reading_is_read_again_when_delivered_again(store: PaperStore) -> None:
    record = next(
        r
        for r in oai_records("arXiv/invenio_sample_arxiv_response_listrecords_physics.xml", "arXiv")
        if r.record_id == "1410.5546"  # "… a density of states $\rho(\varepsilon) \propto |\varepsilon|^r$ …"
    )
    await apply(store, record)
    paper = await store.papers.find_one({})
    assert paper is not None and r"$\rho(\varepsilon) \propto |\varepsilon|^r$" in paper["abstract"]
    # as a normalizer of the previous reading left it: the accent misread in the formula, the record marked seen
    await store.papers.update_one({}, {"$set": {"abstract": paper["abstract"].replace(r"\varepsilon", "ǎrepsilon")}})
    await store.source_records.update_many({}, {"$unset": {"reading": ""}})
    again = await apply(store, record)  # delivered again: a re-harvest of its day
    assert [e.kind for e in again.events] == ["updated"]
    repaired = await store.papers.find_one({})
    assert repaired is not None and repaired["abstract"] == paper["abstract"]
    assert (await apply(store, record)).events == []  # read by this reading now: seen


async def test_an_acl_paper_stored_before_reading_5_gets_its_volume_when_its_record_comes_again(
    store: PaperStore,
) -> None:
    """What a re-harvest of the ACL collection files repairs (docs/operations.md, "Upgrades"): a paper stored by
    reading 4, without the volume that prints it, gets it, and its event carries it."""
    [record] = [r for r in acl_records() if r.record_id == "2024.acl-long.10"]
    await apply(store, record)
    stored = await store.papers.find_one({})
    assert stored is not None and stored["published_in"]["pages"] == "146-159"
    # as reading 4 left it: no volume, the record marked seen by that reading
    await store.papers.update_one({}, {"$unset": {"published_in": ""}})
    await store.source_records.update_many({}, {"$set": {"reading": 4}})
    again = await apply(store, record)  # delivered again: `papertrail harvest acl --from …`
    assert [(e.kind, e.version.changed_fields) for e in again.events] == [("updated", ["published_in"])]
    assert again.events[0].paper.published_in is not None
    repaired = await store.papers.find_one({})
    assert repaired is not None and repaired["published_in"] == stored["published_in"]
    assert (await apply(store, record)).events == []  # read by this reading now: seen


async def test_a_stored_but_unemitted_change_is_emitted_on_redelivery(store: PaperStore) -> None:
    raw = corpus_records()[0]
    items = [Incoming(raw, parse_raw(raw))]
    first = await apply_batch(items, store, ai_categories=AI, attempts=2)  # stopped before settling
    assert await store.versions.count_documents({}) == 0
    again = await apply_batch(items, store, ai_categories=AI, attempts=2)
    await settle(again, store, _no_emit)

    def identity(applied: Applied) -> list[tuple]:
        return [(e.kind, e.version.paper_id, e.version.seq, e.version.content_hash) for e in applied.events]

    assert identity(again) == identity(first) == [("new", "arxiv:2604.27073", 1, raw.sha256)]
    assert await store.versions.count_documents({}) == 1
