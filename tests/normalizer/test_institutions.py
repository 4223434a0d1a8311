"""Authors' affiliations matched to ROR institutions when a paper is built: genuine ACL Anthology and arXiv records
and an arXiv HTML first page, per author in author order, kept through a merge with a source that gives none."""

from datetime import UTC, datetime

from services.harvester.sources.arxiv_html_page import author_block
from services.normalizer.identity import merge
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import ParsedRecord
from tests.support.paths import FIXTURES
from tests.support.sources import acl_records, arxiv_line, oai_records, raw_record

NOW = datetime(2026, 12, 7, tzinfo=UTC)
AI = frozenset({"cs.CL"})
ACL_PAPER = "2024.acl-long.18"  # four authors, affiliations on all four (tests/fixtures/sources/acl/2024.acl.xml)


def _acl_paper() -> ParsedRecord:
    [record] = [r for r in acl_records() if r.record_id == ACL_PAPER]
    return parse_raw(record)


def _built(record: ParsedRecord):  # type: ignore[no-untyped-def]
    change = merge(None, record, content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert change is not None
    return change.paper


def test_anthology_authors_come_out_with_ror_ids_in_author_order() -> None:
    paper = _built(_acl_paper())
    assert [[(i.ror, i.evidence, i.source) for i in a.institutions] for a in paper.authors] == [
        [("047426m28", "name", "acl")],  # University of Illinois, Urbana Champaign
        [("05w520734", "name", "acl")],  # Allen Institute for AI (and "Northwestern University": two records)
        [("047426m28", "name", "acl")],
        [("05w520734", "name", "acl"), ("03qxff017", "name", "acl")],  # … and Hebrew University of Jerusalem
    ]
    downey = paper.authors[1].institutions[0]
    assert downey.affiliation == "Allen Institute for Artificial Intelligence and Northwestern University"
    assert downey.name == "Allen Institute for Artificial Intelligence" and downey.country == "US"


def test_authors_without_affiliations_carry_no_institutions_in_the_event() -> None:
    paper = _built(_acl_paper())
    first = next(r for r in acl_records() if r.record_id == "2024.acl-long.6")  # two of four authors affiliated
    authors = _built(parse_raw(first)).model_dump(mode="json")["authors"]
    assert [("institutions" in a) for a in authors] == [True, False, False, True]
    assert authors[3]["institutions"][0] == {
        "affiliation": "Soochow University, China",
        "ror": "05t8y2r12",
        "name": "Soochow University",
        "name_zh": "苏州大学",
        "country": "CN",
        "evidence": "name",
        "source": "acl",
    }
    assert paper.authors[0].institutions


def test_institutions_stay_when_the_preprint_without_affiliations_merges_in() -> None:
    acl = _acl_paper()
    paper = _built(acl)
    names = [a.name for a in acl.authors]
    preprint = parse_raw(arxiv_line("2402.00001", acl.title, names, acl.abstract, ["cs.CL"]))
    change = merge(paper, preprint, content_hash="h2", now=NOW, ai_categories=AI, next_seq=2)
    assert change is not None and change.paper.id == paper.id
    assert [[i.ror for i in a.institutions] for a in change.paper.authors] == [
        [i.ror for i in a.institutions] for a in paper.authors
    ]


def test_arxiv_metadata_affiliations_are_matched_too() -> None:
    records = oai_records("arXiv/invenio_sample_arxiv_response_listrecords_physics.xml", "arXiv")
    [record] = [r for r in records if r.record_id.endswith("1412.8749")]
    paper = _built(parse_raw(record))
    by_affiliation = {i.affiliation: i.ror for a in paper.authors for i in a.institutions}
    assert by_affiliation["JPL"] == "027k65916"
    assert by_affiliation["ASTRON"] == "000k1q888"
    assert by_affiliation["Swinburne Uni, Au"] == "031rekg67"
    assert by_affiliation["NAOC"] is None  # no record the string names without doubt: kept as written
    assert {i.source for a in paper.authors for i in a.institutions} == {"arxiv"}


def test_a_first_pages_affiliations_are_matched_as_they_join_the_paper() -> None:
    # the arXiv HTML author block of 2312.17141v1 (tests/fixtures/first_page/ORIGIN.md) joining its arXiv paper
    held = _built(parse_raw(arxiv_line("2312.17141", "A paper", ["Dario Stein", "Sam Staton"], "Its abstract.", [])))
    block = author_block((FIXTURES / "first_page" / "2312.17141v1.authors.html").read_bytes())
    page = parse_raw(raw_record("arxiv_html", "2312.17141v1", "arxiv_html_authors", block))
    change = merge(held, page, content_hash="page", now=NOW, ai_categories=AI, next_seq=2)
    assert change is not None
    assert [[(i.ror, i.name, i.source) for i in a.institutions] for a in change.paper.authors] == [
        [("016xsfp80", "Radboud University Nijmegen", "arxiv_html")],
        [("052gg0110", "University of Oxford", "arxiv_html")],
    ]
    assert change.paper.authors[1].institutions[0].affiliation == (
        "University of Oxford, Parks Road, OX1 3QD, Oxford, United Kingdom"
    )
