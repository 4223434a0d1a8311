"""Announced entries (arXiv's Atom feed) read into papers, and the OAI-PMH record that follows them settling
into the same papers: a correction, never a second first sighting. Over a real MongoDB."""

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import UnparseableRecord
from services.normalizer.store import PaperStore
from tests.support.normalizing import apply
from tests.support.sources import announced_records, oai_records, raw_record

pytestmark = pytest.mark.integration


@pytest.fixture
async def store(scratch_db: AsyncDatabase) -> PaperStore:
    papers = PaperStore(scratch_db)
    await papers.ensure_indexes()
    return papers


def test_an_announced_entry_reads_as_the_paper_announced() -> None:
    records = {r.record_id: parse_raw(r) for r in announced_records()}
    paper = records["0704.0471"]
    assert paper.source == "arxiv" and paper.title.startswith("Density dependence of the symmetry energy")
    assert paper.abstract.startswith("The density dependence of the symmetry energy") and "Announce Type" not in (
        paper.abstract
    )
    assert [a.name for a in paper.authors] == ["D.V. Shetty", "S.J. Yennello", "G.A. Souliotis"]
    assert paper.categories == ["nucl-ex", "nucl-th"]
    assert paper.ids.dois == ["10.1103/physrevc.76.024606", "10.1103/physrevc.76.039902"]
    assert paper.journal_ref == "Phys.Rev.C76:024606,2007; Erratum-ibid.C76:039902,2007"
    assert paper.status == "published"
    assert [(v.label, v.date) for v in paper.versions] == [("v1", None)]  # the feed does not date versions
    assert [v.label for v in records["0704.1109"].versions] == ["v2"]
    documented = parse_raw(announced_records("yesterday.xml")[0])
    assert documented.license == "http://creativecommons.org/licenses/by/4.0/"
    assert documented.ids.dois == ["10.5802/jep.257"] and documented.categories == ["math.AP", "math.OC"]


def test_an_entry_that_is_no_entry_is_unparseable() -> None:
    with pytest.raises(UnparseableRecord, match="Atom <entry>"):
        parse_raw(raw_record("arxiv", "0704.0471", "arxiv_atom", "<record/>"))


async def test_the_oai_record_settles_into_the_announced_paper_without_a_second_new(store: PaperStore) -> None:
    announced = await apply(store, *announced_records())
    assert sorted((e.paper.id, e.kind) for e in announced.events) == [
        ("arxiv:0704.0471", "new"),
        ("arxiv:0704.1109", "new"),
        ("arxiv:0704.1114", "new"),
    ]
    harvested = await apply(store, *oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw"))
    kinds = {e.paper.id: e.kind for e in harvested.events}
    # the three announced papers are completed (dates, comments), the three others are new to the store
    assert {p: kinds[p] for p in ("arxiv:0704.0471", "arxiv:0704.1109", "arxiv:0704.1114")} == dict.fromkeys(
        ("arxiv:0704.0471", "arxiv:0704.1109", "arxiv:0704.1114"), "updated"
    )
    assert sorted(p for p, k in kinds.items() if k == "new") == [
        "arxiv:0704.0716",
        "arxiv:0704.0874",
        "arxiv:0704.1586",
    ]
    assert await store.papers.count_documents({}) == 6
    paper = await store.papers.find_one({"_id": "arxiv:0704.1109"})
    assert paper is not None
    assert [(v["label"], v["date"] is not None) for v in paper["versions"]] == [("v1", True), ("v2", True)]
    assert paper["current_version"] == "v2" and paper["version_updated_at"] is not None
    # the same announcement delivered again changes nothing
    again = await apply(store, *announced_records())
    assert again.events == []
