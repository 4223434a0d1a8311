"""OAI-PMH response pages → harvested records, resumption token, protocol error. Pure parsing, no I/O."""

import hashlib
from dataclasses import dataclass

from lxml import etree

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
_NS = {"oai": OAI_NS}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_blank_text=False)
ARXIV_OAI_PREFIX = "oai:arXiv.org:"


class MalformedResponse(Exception):
    """The body is not an OAI-PMH XML document."""


@dataclass(frozen=True, slots=True)
class HarvestedRecord:
    """One record as served: its id, the source's datestamp and the original `<record>` element as text."""

    record_id: str
    datestamp: str | None
    content: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class OaiPage:
    records: list[HarvestedRecord]
    deleted: int
    resumption_token: str | None
    complete_list_size: int | None
    cursor: int | None
    response_date: str | None
    error_code: str | None = None
    error_message: str | None = None


def record_id_from_identifier(identifier: str) -> str:
    """`oai:arXiv.org:0704.0471` → `0704.0471`; other repositories keep their identifier."""
    return identifier.removeprefix(ARXIV_OAI_PREFIX)


def parse_oai_page(body: bytes) -> OaiPage:
    """Split one ListRecords / GetRecord response into records, or report its OAI error."""
    try:
        root = etree.fromstring(body, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise MalformedResponse(f"not XML: {exc}") from exc
    if root.tag != f"{{{OAI_NS}}}OAI-PMH":
        raise MalformedResponse(f"not an OAI-PMH document (root element {root.tag!r})")
    response_date = root.findtext("oai:responseDate", namespaces=_NS)
    error = root.find("oai:error", _NS)
    if error is not None:
        return OaiPage([], 0, None, None, None, response_date, error.get("code"), (error.text or "").strip())

    records: list[HarvestedRecord] = []
    deleted = 0
    for record in root.iterfind(".//oai:record", _NS):
        header = record.find("oai:header", _NS)
        if header is None:
            raise MalformedResponse("record without header")
        if header.get("status") == "deleted":
            deleted += 1
            continue
        identifier = header.findtext("oai:identifier", namespaces=_NS)
        if not identifier:
            raise MalformedResponse("record header without identifier")
        records.append(
            HarvestedRecord(
                record_id=record_id_from_identifier(identifier.strip()),
                datestamp=(header.findtext("oai:datestamp", namespaces=_NS) or "").strip() or None,
                content=etree.tostring(record, encoding="unicode"),
            )
        )

    token_element = root.find(".//oai:resumptionToken", _NS)
    token = complete = cursor = None
    if token_element is not None:
        token = (token_element.text or "").strip() or None  # an empty token ends the list
        complete = _int_or_none(token_element.get("completeListSize"))
        cursor = _int_or_none(token_element.get("cursor"))
    return OaiPage(records, deleted, token, complete, cursor, response_date)


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None
