"""Parsers on the recorded real arXiv records: ids, titles, authors in order, versions with dates."""

from datetime import UTC, datetime

import pytest

from services.harvester.sources.oai import parse_oai_page
from services.normalizer.parsers.arxiv_oai import parse_arxiv, parse_arxiv_raw
from services.normalizer.records import UnparseableRecord
from tests.support.paths import SOURCES

OAI = SOURCES / "arxiv_oai"


def _records(path: str) -> list[str]:
    return [r.content for r in parse_oai_page((OAI / path).read_bytes()).records]


def test_arxiv_raw_versions_with_dates_and_dois() -> None:
    records = {r.record_id: r for r in map(parse_arxiv_raw, _records("arXivRaw/mikesaelim_ListRecordsResponse.xml"))}
    paper = records["0704.0716"]
    assert paper.title == "Limit distributions and scaling functions"
    assert [v.label for v in paper.versions] == ["v1", "v2", "v3", "v4"]
    assert paper.versions[0].date == datetime(2007, 4, 5, 12, 45, 3, tzinfo=UTC)
    assert paper.versions[-1].date == datetime(2008, 11, 14, 9, 7, 25, tzinfo=UTC)
    assert paper.categories == ["math-ph", "math.MP"]

    first = records["0704.0471"]
    assert [a.name for a in first.authors] == ["D.V. Shetty", "S.J. Yennello", "G.A. Souliotis"]
    assert [a.key for a in first.authors] == ["shetty d", "yennello s", "souliotis g"]
    assert first.ids.dois == ["10.1103/physrevc.76.024606", "10.1103/physrevc.76.039902"]
    assert first.status == "published"  # it has a journal reference
    assert "\n" not in first.abstract and first.abstract.startswith("The density dependence")
    assert '" stiff "' in first.abstract  # &quot; entities resolved


def test_every_recorded_arxiv_raw_record_parses() -> None:
    for content in _records("arXivRaw/mikesaelim_ListRecordsResponse.xml") + _records(
        "arXivRaw/mikesaelim_GetRecordResponse.xml"
    ):
        record = parse_arxiv_raw(content)
        assert record.title and record.authors and record.versions


@pytest.mark.parametrize(
    "path",
    [
        "arXiv/invenio_sample_arxiv_response_listrecords_cs.xml",
        "arXiv/invenio_sample_arxiv_response_listrecords_physics.xml",
    ],
)
def test_every_recorded_arxiv_record_parses(path: str) -> None:
    contents = _records(path)
    parsed = [parse_arxiv(c) for c in contents]
    assert len(parsed) == len(contents)
    for record in parsed:
        assert record.title and record.authors and record.categories
        assert record.links["abs"] == f"https://arxiv.org/abs/{record.record_id}"


def test_arxiv_structured_authors_in_order() -> None:
    record = parse_arxiv(_records("arXiv/invenio_sample_arxiv_response_listrecords_cs.xml")[0])
    assert record.record_id == "1101.4388"
    assert [a.name for a in record.authors] == ["Guohui Song", "Haizhang Zhang", "Fred J. Hickernell"]
    assert record.versions[0].date == datetime(2011, 1, 23, tzinfo=UTC)
    assert record.year == 2011
    assert record.categories[0] == "stat.ML"


def test_unparseable_record_is_a_clear_error() -> None:
    with pytest.raises(UnparseableRecord, match="not XML"):
        parse_arxiv_raw("<record><metadata>")
    with pytest.raises(UnparseableRecord, match="no <arXivRaw>"):
        parse_arxiv_raw("<record/>")
