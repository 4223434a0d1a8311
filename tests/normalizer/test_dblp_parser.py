"""DBLP records read into papers: recorded records of openreview-py's tests and the dump slice; a CoRR record is an
arXiv preprint, not a publication; a record without a title is refused with the reason, its batch going on."""

import io
from types import SimpleNamespace

import pytest

from services.harvester.sources.dblp_xml import iter_records, source_record
from services.normalizer.parsers.dblp import catalogue_venue, parse_dblp, read_ees
from services.normalizer.parsers.registry import parse_batch
from services.normalizer.records import UnparseableRecord
from tests.support.paths import SOURCES
from tests.support.sources import raw_record

DBLP = SOURCES / "dblp"


def _read(name: str) -> str:
    return (DBLP / name).read_text(encoding="utf-8")


def test_an_acl_proceedings_record_is_published_at_the_catalogues_acl_2023() -> None:
    parsed = parse_dblp(_read("openreview-py_ChangSRM23.xml"))
    assert parsed.source == "dblp" and parsed.record_id == "conf/acl/ChangSRM23"
    assert parsed.title == "Multi-CLS BERT: An Efficient Alternative to Traditional Ensembling"  # no closing period
    assert [a.name for a in parsed.authors] == ["Haw-Shiuan Chang", "Ruei-Yao Sun", "Kathryn Ricci", "Andrew McCallum"]
    assert parsed.authors[3].source_ids == {"dblp": "m/AndrewMcCallum"}
    assert parsed.status == "published" and parsed.venue == "ACL 2023" and parsed.year == 2023
    assert parsed.ids.dblp == "conf/acl/ChangSRM23"
    assert parsed.ids.dois == ["10.18653/v1/2023.acl-long.48"] and parsed.ids.acl == "2023.acl-long.48"
    assert parsed.abstract == ""  # DBLP has none
    assert parsed.links["dblp"] == "https://dblp.org/rec/conf/acl/ChangSRM23"


def test_a_journal_record_keeps_orcids_and_drops_namesake_numbers() -> None:
    parsed = parse_dblp(_read("openreview-py_WangJWSGZ23.xml"))
    assert [a.name for a in parsed.authors][:3] == ["Chao Wang", "Chunxiao Jiang", "Jingjing Wang"]
    assert parsed.authors[0].orcid == "0000-0003-4015-0348"
    assert parsed.ids.dois == ["10.1109/jiot.2022.3222911"]
    # journals/iotj is on the CCF list (IoT Journal, "IOT"): the catalogue's acronym, as for a conference
    assert parsed.venue == "IOT 2023" and parsed.status == "published"


def test_a_corr_record_is_the_arxiv_preprint_not_a_publication() -> None:
    parsed = parse_dblp(_read("openreview-py_abs-2508-04024.xml"))
    assert parsed.ids.arxiv == "2508.04024" and parsed.ids.dblp is None and parsed.ids.dois == []
    assert parsed.status == "preprint" and parsed.venue is None
    assert parsed.title == "Identity Theft in AI Conference Peer Review"


def test_every_record_of_the_dump_slice_reads_with_its_accents() -> None:
    records = list(iter_records(io.BytesIO((DBLP / "shenka123_dblp.xml").read_bytes())))
    parsed = [parse_dblp(r.content) for r in records]
    assert len(parsed) == 131 and all(p.title and p.ids.dblp and p.ids.dois for p in parsed)
    assert any(a.name == "Jürgen Beyerer" for p in parsed for a in p.authors)
    assert sum(1 for p in parsed if not p.authors) > 0  # encyclopedia entries without authors still read
    assert {p.venue for p in parsed} == {"Computer Vision, A Reference Guide 2014"}


def test_electronic_editions_name_the_works_other_ids() -> None:
    ids, links = read_ees(
        [
            "https://doi.org/10.48550/arXiv.2508.04024",
            "https://proceedings.mlr.press/v267/abnar25.html",
            "https://openreview.net/forum?id=l9FVZ7NXmm",
            "https://aclanthology.org/2023.acl-long.48",
        ]
    )
    assert (ids.arxiv, ids.pmlr, ids.openreview, ids.acl, ids.dois) == (
        "2508.04024",
        "v267/abnar25",
        "l9FVZ7NXmm",
        "2023.acl-long.48",
        [],
    )
    assert links["pmlr"] == "https://proceedings.mlr.press/v267/abnar25.html"


def test_the_stream_of_a_record_names_its_catalogue_venue() -> None:
    icml = catalogue_venue("conf/icml/AbnarSBENSMT25")
    assert icml is not None and icml.acronym == "ICML" and icml.ccf_rank == "A"
    assert catalogue_venue("reference/vision/X14bd") is None


def _without_title(content: str) -> str:
    start, end = content.index("<title>"), content.index("</title>") + len("</title>")
    return content[:start] + content[end:]


def test_a_record_without_a_title_is_refused_and_the_rest_of_its_batch_read() -> None:
    content = _read("openreview-py_ChangSRM23.xml")
    with pytest.raises(UnparseableRecord, match=r"conf/acl/ChangSRM23: no title"):
        parse_dblp(_without_title(content))
    records = list(iter_records(io.BytesIO((DBLP / "shenka123_dblp.xml").read_bytes())))[:5]
    raws = [raw_record("dblp", r.record_id, r.format, r.content) for r in map(source_record, records)]
    raws[2] = raw_record("dblp", raws[2].record_id, "dblp_xml", _without_title(raws[2].content))
    items, bad = parse_batch([SimpleNamespace(value=r.model_dump_json().encode()) for r in raws])
    assert len(items) == 4 and len(bad) == 1 and "no title" in str(bad[0][1])


@pytest.mark.parametrize(
    "content",
    [
        "<inproceedings key='conf/x/Y'><title>T.",  # not XML
        "<www key='homepages/x'><title>Home Page</title></www>",  # not a publication
        "<article><title>T.</title></article>",  # no key
        "<article key='journals/corr/abs-9999'><title>T.</title><journal>CoRR</journal></article>",  # no arXiv id
    ],
)
def test_what_is_not_a_dblp_publication_is_refused(content: str) -> None:
    with pytest.raises(UnparseableRecord):
        parse_dblp(content)
