"""Every recorded source record parses (ACL volume XML, HF daily papers in both layouts, oai_dc, corpus lines,
Kaggle lines): exact ids, titles, authors in order, affiliations, versions with dates, cleaned text."""

import json
import re
from datetime import UTC, datetime
from email.utils import format_datetime

import bibtexparser
import pytest
from lxml import etree

from papertrail.domain.paper_ids import anthology_id
from papertrail.domain.text import tex_math
from services.normalizer.parsers.arxiv_oai import ARXIV_RAW, parse_arxiv_raw
from services.normalizer.parsers.registry import parse_batch, parse_raw
from services.normalizer.records import UnparseableRecord
from tests.support.paths import FIXTURES, SOURCES
from tests.support.sources import ACL_FILE, HF_FILES, acl_records, corpus_records, hf_records, oai_records, raw_record

MARKUP = re.compile(r"</?(i|b|fixed-case|tex-math|url)>")


@pytest.fixture(scope="module")
def acl() -> dict:
    return {r.record_id: parse_raw(r) for r in acl_records()}


def test_every_acl_record_parses_and_is_published_at_its_venue(acl: dict) -> None:
    papers = [p for p in acl.values() if not p.is_front_matter]
    assert len(papers) == 933 and len(acl) == 938  # 933 papers + 5 volumes' front matter
    for paper in papers:
        assert paper.title and paper.authors and paper.status == "published" and paper.year == 2024
        assert paper.venue == "ACL 2024" and paper.ids.acl == paper.record_id
        assert not MARKUP.search(paper.title) and not MARKUP.search(paper.abstract)
    assert sum(1 for p in papers if any(a.affiliations for a in p.authors)) > 800


def test_acl_spot_check_ids_authors_affiliations_links(acl: dict) -> None:
    paper = acl["2024.acl-long.1"]
    assert paper.title == "Quantized Side Tuning: Fast and Memory-Efficient Tuning of Quantized Large Language Models"
    assert [a.name for a in paper.authors][:3] == ["Zhengxin Zhang", "Dan Zhao", "Xupeng Miao"]
    assert len(paper.authors) == 8 and paper.authors[-1].name == "Zhihao Jia"
    assert paper.authors[0].affiliations == []
    assert paper.authors[1].affiliations == ["Peng Cheng Laborotary"]  # sic, as the anthology has it
    assert paper.authors[-1].affiliations == ["School of Computer Science, Carnegie Mellon University"]
    assert paper.authors[1].key == "zhao d"
    assert paper.links["anthology"] == "https://aclanthology.org/2024.acl-long.1"
    assert paper.links["pdf"] == "https://aclanthology.org/2024.acl-long.1.pdf"
    assert paper.versions[0].date == datetime(2024, 8, 12, tzinfo=UTC)  # the volume's ingest date
    # <tex-math>\times</tex-math> became ×; the original markup is kept
    assert "speed up the finetuning process by up to 3× while" in paper.abstract
    assert "<tex-math>\\times</tex-math>" in paper.original["abstract"]


def test_acl_fixed_case_markup_and_author_ids(acl: dict) -> None:
    fixed = [p for p in acl.values() if "<fixed-case>" in p.original["title"]]
    assert len(fixed) > 400
    mage = next(p for p in fixed if p.title.startswith("MAGE"))
    assert mage.title == "MAGE: Machine-generated Text Detection in the Wild"
    italic = next(p for p in acl.values() if "<i>IBE-Eval</i>" in p.original["abstract"])
    assert "This paper proposes IBE-Eval, a framework" in italic.abstract
    assert "(≈27% above random)" in italic.abstract
    with_ids = [a for p in acl.values() for a in p.authors if a.source_ids.get("acl") == "fei-liu"]
    assert with_ids and with_ids[0].name == "Fei Liu"


def test_acl_front_matter_is_flagged_not_a_paper(acl: dict) -> None:
    front = acl["2024.acl-long.0"]
    assert front.is_front_matter and front.title.startswith("Proceedings of the 62nd Annual Meeting")
    assert front.published_in is None


def test_every_acl_paper_keeps_its_pages_and_the_volume_that_prints_it(acl: dict) -> None:
    """Each paper's `<pages>` and its volume's `<meta>` (title, editors, publisher, address, month), read from the
    recorded file beside the parser: what the Anthology's BibTeX of the paper writes."""
    collection = etree.parse(str(ACL_FILE)).getroot()
    volumes = 0
    for volume in collection.iterfind("volume"):
        meta = volume.find("meta")
        assert meta is not None
        editors = [f"{e.findtext('first')} {e.findtext('last')}" for e in meta.iterfind("editor")]
        for item in volume.iterfind("paper"):
            printed = acl[f"{collection.get('id')}-{volume.get('id')}.{item.get('id')}"].published_in
            assert printed.kind == volume.get("type") == "proceedings"
            assert printed.pages == item.findtext("pages") and printed.booktitle == meta.findtext("booktitle")
            assert [e.name for e in printed.editors] == editors
            assert (printed.publisher, printed.address, printed.month) == (
                meta.findtext("publisher"),
                meta.findtext("address"),
                meta.findtext("month"),
            )
        volumes += 1
    assert volumes == 5


def test_an_acl_title_is_kept_in_latex_as_the_anthologys_bibtex_writes_it(acl: dict) -> None:
    """The genuine BibTeX the Anthology wrote for 2024.acl-long.10 and .534 (tests/fixtures/library/ORIGIN.md): the
    letters `<fixed-case>` marks braced, so a style that lower-cases titles keeps `{C}hinese`."""
    for acl_id, bib in (("2024.acl-long.10", "cscd-ns_anthology.bib"), ("2024.acl-long.534", "mera_anthology.bib")):
        [entry] = bibtexparser.parse_string((FIXTURES / "library" / bib).read_text(encoding="utf-8")).entries
        printed = acl[acl_id].published_in
        assert printed.title_latex == entry["title"] and printed.booktitle_latex == entry["booktitle"]
        assert printed.title == acl[acl_id].title  # and as readable text
    printed = acl["2024.acl-long.698"].published_in  # SOTOPIA-π: a letter LaTeX names, braced with its case marks
    assert printed.title_latex.startswith("{SOTOPIA}-{\\ensuremath{\\pi}}: ")


def test_a_findings_paper_is_published_at_its_conferences_findings() -> None:
    """A Findings volume names no conference in its `<venue>` (findings), only in its id (2024.findings-eacl): the
    paper's venue names it, so the catalogue knows it as EACL's findings track."""
    [paper] = [parse_raw(r) for r in acl_records(SOURCES / "acl/2024.findings-eacl-1.xml")]
    assert paper.venue == "Findings of EACL 2024" and paper.year == 2024
    assert paper.published_in is not None
    assert paper.published_in.booktitle == "Findings of the Association for Computational Linguistics: EACL 2024"
    assert paper.published_in.address == "St. Julian’s, Malta"


def test_an_acl_paper_keeps_the_doi_its_volume_gives_it() -> None:
    """The volume as the Anthology holds it since it registered DOIs (each paper's `<doi>`): the paper is found by
    it and cited with it."""
    papers = {r.record_id: parse_raw(r) for r in acl_records(SOURCES / "acl/2024.acl-long-10-11.xml")}
    assert papers["2024.acl-long.10"].ids.dois == ["10.18653/v1/2024.acl-long.10"]
    assert papers["2024.acl-long.11"].links["doi"] == "https://doi.org/10.18653/v1/2024.acl-long.11"
    published_in = papers["2024.acl-long.10"].published_in
    assert published_in is not None and published_in.pages == "146-159"


@pytest.mark.parametrize("path", HF_FILES, ids=lambda p: p.name)
def test_every_hf_item_parses_with_its_community_pick(path) -> None:
    records = hf_records(path)
    items = json.loads(path.read_text(encoding="utf-8"))
    parsed = [parse_raw(r) for r in records]
    assert len(parsed) == len(items)
    for paper, item in zip(parsed, items, strict=True):
        assert paper.ids.arxiv == item["paper"]["id"] and paper.source == "hf"
        assert paper.community is not None and paper.community.date == path.stem[-10:]
        assert paper.community.upvotes == item["paper"]["upvotes"]
        assert "\n" not in paper.abstract
        visible = [a for a in item["paper"]["authors"] if not a.get("hidden")]
        assert [a.name for a in paper.authors] == [a["name"] for a in visible]
        assert [a.source_ids["hf"] for a in paper.authors] == [a["_id"] for a in visible]


def test_hf_spot_checks_in_both_layouts() -> None:
    first_2024 = parse_raw(hf_records(HF_FILES[0])[0])
    assert (first_2024.record_id, first_2024.title) == ("2405.18407", "Phased Consistency Model")
    assert first_2024.authors[0].source_ids == {"hf": "6656961985c7a647ebc7fe15", "hf_user": "wangfuyun"}
    assert first_2024.community is not None and first_2024.community.submitter is None
    first_2025 = parse_raw(hf_records(HF_FILES[1])[0])
    assert first_2025.title == "OmniWorld: A Multi-Domain and Multi-Modal Dataset for 4D World Modeling"
    assert first_2025.community is not None
    assert (first_2025.community.upvotes, first_2025.community.submitter) == (58, "taesiri")
    assert first_2025.links["code"] == "https://github.com/yangzhou24/OmniWorld"
    assert first_2025.abstract.startswith(
        "The field of 4D world modeling - aiming to jointly capture spatial geometry and"
    )


def test_every_oai_dc_record_parses_with_category_codes() -> None:
    records = {
        r.record_id: parse_raw(r)
        for path in (
            "oai_dc/atomiklabs_test_arxiv_data_listrecords_cs.xml",
            "oai_dc/invenio_sample_arxiv_response_utf8.xml",
            "oai_dc/invenio_sample_oai_dc_response.xml",
        )
        for r in oai_records(path, "oai_dc")
    }
    assert len(records) == 7
    fourier = records["1303.2033"]
    assert fourier.title == "Extended Fourier analysis of signals"
    assert fourier.categories == ["cs.DS", "cs.IT", "math.NA"]
    assert fourier.comments == "32 pages, 9 figures"
    assert [(a.name, a.key) for a in fourier.authors] == [("Vilnis Liepins", "liepins v")]
    assert [(v.label, v.date) for v in fourier.versions] == [
        ("v1", datetime(2013, 3, 8, tzinfo=UTC)),
        ("updated", datetime(2024, 1, 23, tzinfo=UTC)),
    ]
    fusion = records["1207.1019"]
    assert fusion.categories == ["stat.ML", "cs.CV", "cs.LG", "cs.MM"]
    assert [a.name for a in fusion.authors] == ["Emilie Morvant", "Amaury Habrard", "Stéphane Ayache"]
    assert records["2401.14040"].comments == "Accepted to the Findings of EACL 2024"


def test_every_corpus_line_parses() -> None:
    records = corpus_records()
    assert len(records) == 7184
    parsed = [parse_raw(r) for r in records]
    assert len({p.ids.arxiv for p in parsed}) == 4717
    first = parsed[0]
    assert first.record_id == "2604.27073"
    assert first.title == "On Coded Caching Systems with Decentralized Linear Coding Placement"
    assert [a.name for a in first.authors] == ["Yinbin Ma", "Daniela Tuninetti"]
    assert first.categories == ["cs.IT"] and first.year == 2026
    assert all(p.title and p.authors and p.categories for p in parsed)


def _kaggle_line(arxiv_raw_content: str) -> str:
    """The Kaggle snapshot's layout of an arXivRaw record (the snapshot is built from the same metadata)."""
    from lxml import etree

    element = etree.fromstring(arxiv_raw_content.encode()).find(f".//{ARXIV_RAW}arXivRaw")
    assert element is not None

    def text(name: str) -> str | None:
        return element.findtext(f"{ARXIV_RAW}{name}")

    return json.dumps(
        {
            "id": text("id"),
            "submitter": text("submitter"),
            "authors": text("authors"),
            "title": text("title"),
            "comments": text("comments"),
            "journal-ref": text("journal-ref"),
            "doi": text("doi"),
            "report-no": text("report-no"),
            "categories": text("categories"),
            "license": text("license"),
            "abstract": text("abstract"),
            "versions": [
                {"version": v.get("version"), "created": v.findtext(f"{ARXIV_RAW}date")}
                for v in element.iterfind(f"{ARXIV_RAW}version")
            ],
            "update_date": "2015-01-06",
        }
    )


def test_kaggle_lines_parse_like_the_arxiv_raw_records_they_mirror() -> None:
    for raw in oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw"):
        expected = parse_arxiv_raw(raw.content)
        line = raw_record("kaggle", raw.record_id, "kaggle_arxiv_json", _kaggle_line(raw.content))
        parsed = parse_raw(line)
        assert (parsed.ids, parsed.title, parsed.abstract) == (expected.ids, expected.title, expected.abstract)
        assert [a.name for a in parsed.authors] == [a.name for a in expected.authors]
        assert parsed.versions == expected.versions and parsed.status == expected.status
    with_parsed_names = json.loads(
        _kaggle_line(oai_records("arXivRaw/mikesaelim_GetRecordResponse.xml", "arXivRaw")[0].content)
    )
    with_parsed_names["authors_parsed"] = [["Müller", "Anna", ""], ["Smith", "J.", "Jr"]]
    record = parse_raw(
        raw_record("kaggle", with_parsed_names["id"], "kaggle_arxiv_json", json.dumps(with_parsed_names))
    )
    assert [(a.name, a.key) for a in record.authors] == [("Anna Müller", "muller a"), ("J. Smith Jr", "smith j")]
    assert format_datetime(record.versions[0].date, usegmt=True).endswith("GMT")  # type: ignore[arg-type]


def test_tex_math_and_bad_records() -> None:
    assert tex_math(r"\approx 27\%") == "≈27%"
    assert tex_math(r"\mathcal{O}(n)") == "𝒪(n)"
    with pytest.raises(UnparseableRecord, match="not JSON"):
        parse_raw(raw_record("hf", "2401.00001", "hf_daily_json", "{not json"))
    with pytest.raises(UnparseableRecord, match="one <paper> or <frontmatter>"):
        parse_raw(raw_record("acl", "x", "acl_xml", '<volume collection="2024.acl" id="long"><meta/></volume>'))
    with pytest.raises(UnparseableRecord, match="not an arXiv id"):
        parse_raw(raw_record("corpus", "x", "corpus_json", '{"id": "nope", "title": "T", "authors": []}'))


def test_parse_batch_separates_bad_records() -> None:
    class Consumed:
        def __init__(self, value: bytes) -> None:
            self.value = value

    good = hf_records(HF_FILES[0])[0]
    bad_json = Consumed(b"{broken")
    bad_content = Consumed(
        raw_record("hf", "x", "hf_daily_json", '{"paper": {"authors": "oops"}}').model_dump_json().encode()
    )
    items, failed = parse_batch([Consumed(good.model_dump_json().encode()), bad_json, bad_content])
    assert [i.record.record_id for i in items] == ["2405.18407"]
    assert [c for c, _ in failed] == [bad_json, bad_content]


def test_old_style_anthology_ids_pack_volume_and_paper_into_digits() -> None:
    """P19 (ACL 2019) is a pre-2020 collection: volume 1 paper 1 is P19-1001, as its own <url> and DOI say."""
    records = acl_records(SOURCES / "acl/P19-1-excerpt.xml")
    assert [r.record_id for r in records] == ["P19-1000", "P19-1001", "P19-1002"]
    parsed = {r.record_id: parse_raw(r) for r in records}
    assert parsed["P19-1000"].is_front_matter
    paper = parsed["P19-1002"]
    assert paper.ids.acl == "P19-1002" and paper.ids.dois == ["10.18653/v1/p19-1002"]
    assert paper.links["anthology"] == "https://aclanthology.org/P19-1002"
    assert paper.links["pdf"] == "https://aclanthology.org/P19-1002.pdf"
    assert paper.links["video"] == "https://vimeo.com/383950369"  # already absolute: kept


def test_anthology_ids_by_the_anthology_rule() -> None:
    assert anthology_id("2024.acl", "long", "1") == "2024.acl-long.1"
    assert anthology_id("2024.findings", "acl", "0") == "2024.findings-acl.0"
    assert anthology_id("P19", "1", "1") == "P19-1001"
    assert anthology_id("P19", "1", "0") == "P19-1000"
    assert anthology_id("W19", "1", "12") == "W19-0112"
    assert anthology_id("C69", "10", "1") == "C69-1001"


def test_a_video_on_the_anthologys_own_server_gets_its_address() -> None:
    (safeconv,) = [r for r in acl_records(SOURCES / "acl/2023.acl-long-2-3-5.xml") if r.record_id == "2023.acl-long.2"]
    assert parse_raw(safeconv).links["video"] == "https://aclanthology.org/2023.acl-long.2.mp4"


def test_every_corpus_paper_has_a_first_published_date_its_listing_day() -> None:
    records = corpus_records()
    parsed = [(raw, parse_raw(raw)) for raw in records]
    assert all(p.versions == [] for _, p in parsed)  # a listing says no version: the day it listed is the date
    dated = [(raw.datestamp, p.first_published) for raw, p in parsed]
    assert all(first is not None and first[1] == "listing" for _, first in dated)
    assert all(first and first[0].date().isoformat() == day for day, first in dated)
    # without the listing day (a line read on its own), the id's month, marked as such
    alone = parse_raw(raw_record("corpus", "2605.00847", "corpus_json", records[0].content))
    assert alone.first_published == (datetime(2026, 4, 1, tzinfo=UTC), "id_month")  # 2604.27073's month
