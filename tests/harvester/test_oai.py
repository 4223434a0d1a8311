"""OAI-PMH pages of the recorded real responses split into records, tokens and errors."""

import re
from pathlib import Path

import pytest

from services.harvester.sources.oai import MalformedResponse, parse_oai_page
from tests.support.paths import SOURCES

OAI = SOURCES / "arxiv_oai"
LIST_PAGES = sorted(
    p for p in OAI.glob("*/*.xml") if "errors" not in p.parts and p.suffix == ".xml" and "xsd" not in p.name
)


def _identifiers(path: Path) -> list[str]:
    """Ids counted with a plain regex, independently of the parser under test."""
    return re.findall(r"<identifier>oai:arXiv.org:([^<]+)</identifier>", path.read_text(encoding="utf-8"))


def _datestamps(path: Path) -> list[str]:
    return re.findall(r"<datestamp>([^<]+)</datestamp>", path.read_text(encoding="utf-8"))


def test_every_recorded_format_is_covered() -> None:
    assert {p.parent.name for p in LIST_PAGES} == {"arXivRaw", "arXiv", "oai_dc"}


@pytest.mark.parametrize("path", LIST_PAGES, ids=lambda p: p.name)
def test_every_record_keeps_its_own_datestamp(path: Path) -> None:
    page = parse_oai_page(path.read_bytes())
    assert [r.datestamp for r in page.records] == _datestamps(path)


@pytest.mark.parametrize("path", LIST_PAGES, ids=lambda p: p.name)
def test_every_record_is_split_out_with_its_id(path: Path) -> None:
    page = parse_oai_page(path.read_bytes())
    assert [r.record_id for r in page.records] == _identifiers(path)
    for record in page.records:
        assert record.content.startswith("<record")
        assert record.datestamp is not None and re.fullmatch(r"\d{4}-\d{2}-\d{2}", record.datestamp)
        assert len(record.sha256) == 64


def test_arxiv_raw_page_keeps_its_resumption_token() -> None:
    page = parse_oai_page((OAI / "arXivRaw/mikesaelim_ListRecordsResponse.xml").read_bytes())
    assert [r.record_id for r in page.records][:2] == ["0704.0471", "0704.0716"]
    assert page.records[0].datestamp == "2014-11-18"
    assert page.resumption_token == "726959|1001"
    assert page.complete_list_size == 58011
    assert page.response_date == "2015-01-06T20:49:59Z"


def test_complete_page_has_no_token() -> None:
    page = parse_oai_page((OAI / "arXiv/invenio_sample_arxiv_response_listrecords_cs.xml").read_bytes())
    assert page.resumption_token is None
    assert len(page.records) == 46


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("mikesaelim_ErrorResponseBadArgument.xml", "badArgument"),
        ("mikesaelim_ErrorResponseBadResumptionToken.xml", "badResumptionToken"),
        ("mikesaelim_ErrorResponseBadVerb.xml", "badVerb"),
        ("mikesaelim_ErrorResponseIdDoesNotExist.xml", "idDoesNotExist"),
        ("mikesaelim_ErrorResponseNoRecordsMatch.xml", "noRecordsMatch"),
        ("invenio_sample_empty_response_noRecordsMatch.xml", "noRecordsMatch"),
    ],
)
def test_recorded_errors_are_reported_by_code(name: str, code: str) -> None:
    page = parse_oai_page((OAI / "errors" / name).read_bytes())
    assert page.error_code == code
    assert page.records == []


@pytest.mark.parametrize("body", [b"<html><body>503 Service Unavailable</body></html>", b'{"json": true}', b""])
def test_a_body_that_is_not_oai_xml_is_malformed(body: bytes) -> None:
    with pytest.raises(MalformedResponse):
        parse_oai_page(body)


def test_truncated_page_is_malformed() -> None:
    body = (OAI / "arXiv/invenio_sample_arxiv_response_listrecords_cs.xml").read_bytes()
    with pytest.raises(MalformedResponse):
        parse_oai_page(body[: len(body) // 2])
