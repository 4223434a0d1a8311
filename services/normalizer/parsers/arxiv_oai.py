"""Parsers for arXiv OAI-PMH records: arXivRaw (every version with its date) and arXiv. Pure functions."""

import email.utils
from datetime import UTC, datetime

from lxml import etree

from papertrail.domain.names import make_author, split_author_list
from papertrail.domain.paper_ids import ARXIV_OWN_DOI, is_arxiv_id
from papertrail.domain.text import readable, squash
from schemas.paper import PaperIds, PublicationStatus, SourceVersion
from services.normalizer.records import ParsedRecord, UnparseableRecord

OAI = "{http://www.openarchives.org/OAI/2.0/}"
ARXIV_RAW = "{http://arxiv.org/OAI/arXivRaw/}"
ARXIV = "{http://arxiv.org/OAI/arXiv/}"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


def _metadata(content: str, namespace: str, local: str) -> etree._Element:
    try:
        root = etree.fromstring(content.encode("utf-8"), _PARSER)
    except etree.XMLSyntaxError as exc:
        raise UnparseableRecord(f"not XML: {exc}") from exc
    element = root if root.tag == f"{namespace}{local}" else root.find(f".//{namespace}{local}")
    if element is None:
        raise UnparseableRecord(f"no <{local}> metadata in the record")
    return element


def _text(element: etree._Element, namespace: str, name: str) -> str | None:
    value = element.findtext(f"{namespace}{name}")
    return squash(value) or None if value is not None else None


def arxiv_id(value: str | None) -> str:
    value = (value or "").strip()
    if not is_arxiv_id(value):
        raise UnparseableRecord(f"not an arXiv id: {value!r}")
    return value


def split_dois(value: str | None) -> list[str]:
    return [d.lower() for d in (value or "").split() if d.startswith("10.")]


def publication_status(journal_ref: str | None, dois: list[str]) -> PublicationStatus:
    """A journal reference or a DOI other than arXiv's own means the work was published."""
    if journal_ref or any(not ARXIV_OWN_DOI.match(d) for d in dois):
        return "published"
    return "preprint"


def arxiv_links(identifier: str) -> dict[str, str]:
    return {"abs": f"https://arxiv.org/abs/{identifier}", "pdf": f"https://arxiv.org/pdf/{identifier}"}


def _rfc2822(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value.strip()).astimezone(UTC)
    except (TypeError, ValueError):
        return None


def _iso_day(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value.strip()).replace(tzinfo=UTC) if value else None
    except ValueError:
        return None


def _common(element: etree._Element, ns: str, identifier: str) -> dict:
    title_raw = element.findtext(f"{ns}title") or ""
    abstract_raw = element.findtext(f"{ns}abstract") or ""
    title = readable(title_raw)
    if not title:
        raise UnparseableRecord(f"arXiv {identifier}: empty title")
    dois = split_dois(element.findtext(f"{ns}doi"))
    journal_ref = _text(element, ns, "journal-ref")
    return {
        "title": title,
        "abstract": readable(abstract_raw),
        "categories": (element.findtext(f"{ns}categories") or "").split(),
        "comments": _text(element, ns, "comments"),
        "journal_ref": journal_ref,
        "license": _text(element, ns, "license"),
        "ids": PaperIds(arxiv=identifier, dois=dois),
        "links": arxiv_links(identifier) | ({"doi": f"https://doi.org/{dois[0]}"} if dois else {}),
        "status": publication_status(journal_ref, dois),
        "original": {"title": title_raw, "abstract": abstract_raw},
    }


def parse_arxiv_raw(content: str) -> ParsedRecord:
    """`<record>` with arXivRaw metadata → parsed record; versions in order with their dates."""
    element = _metadata(content, ARXIV_RAW, "arXivRaw")
    identifier = arxiv_id(element.findtext(f"{ARXIV_RAW}id"))
    versions = [
        SourceVersion(source="arxiv", label=v.get("version") or f"v{i}", date=_rfc2822(v.findtext(f"{ARXIV_RAW}date")))
        for i, v in enumerate(element.iterfind(f"{ARXIV_RAW}version"), start=1)
    ]
    fields = _common(element, ARXIV_RAW, identifier)
    published = min((v.date for v in versions if v.date), default=None)
    return ParsedRecord(
        source="arxiv",
        record_id=identifier,
        authors=split_author_list(element.findtext(f"{ARXIV_RAW}authors") or ""),
        versions=versions,
        year=published.year if published else None,
        **fields,
    )


def parse_arxiv(content: str) -> ParsedRecord:
    """`<record>` with arXiv metadata → parsed record; structured authors with affiliations."""
    element = _metadata(content, ARXIV, "arXiv")
    identifier = arxiv_id(element.findtext(f"{ARXIV}id"))
    authors = []
    for author in element.iterfind(f"{ARXIV}authors/{ARXIV}author"):
        family = squash(author.findtext(f"{ARXIV}keyname"))
        given = squash(author.findtext(f"{ARXIV}forenames"))
        suffix = squash(author.findtext(f"{ARXIV}suffix"))
        if not family:
            continue
        name = " ".join(p for p in (given, family, suffix) if p)
        affiliations = [squash(a.text) for a in author.iterfind(f"{ARXIV}affiliation") if squash(a.text)]
        authors.append(make_author(name, given=given, family=family, affiliations=affiliations))
    created = _iso_day(element.findtext(f"{ARXIV}created"))
    updated = _iso_day(element.findtext(f"{ARXIV}updated"))
    # The arXiv format gives only the first and the latest date, not version labels.
    versions = [SourceVersion(source="arxiv", label="v1", date=created)]
    if updated and updated != created:
        versions.append(SourceVersion(source="arxiv", label="updated", date=updated))
    fields = _common(element, ARXIV, identifier)
    return ParsedRecord(
        source="arxiv",
        record_id=identifier,
        authors=authors,
        versions=versions,
        year=created.year if created else None,
        **fields,
    )
