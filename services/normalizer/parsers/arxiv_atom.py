"""Parser for one entry of arXiv's announcement feed (rss.arxiv.org/atom/<category>). Pure function.

The entry is the paper as announced tonight: title, abstract, authors, categories, license, and when published
its DOI and journal reference (arXiv/arxiv-docs source/help/atom_specifications.md). It names the announced
version (`<id>oai:arXiv.org:2203.01250v3</id>`) without its date: the OAI-PMH record that follows brings the
dates, and merges into the same paper as a correction, not as a second first sighting.
"""

import re

from lxml import etree

from papertrail.domain.names import split_author_list
from papertrail.domain.text import readable, squash
from schemas.paper import PaperIds, SourceVersion
from services.normalizer.parsers.arxiv_oai import arxiv_id, arxiv_links, publication_status, split_dois
from services.normalizer.records import ParsedRecord, UnparseableRecord

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
DC = "{http://purl.org/dc/elements/1.1/}"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
_ENTRY_ID = re.compile(r"^oai:arXiv\.org:(?P<id>.+?)(?P<version>v\d+)$")
# <summary>arXiv:2203.01250v3 Announce Type: replace-cross \nAbstract: We consider …</summary>
_SUMMARY = re.compile(r"^\s*arXiv:\S+\s+Announce Type:\s*\S+\s*Abstract:\s*", re.DOTALL)


def _text(entry: etree._Element, name: str) -> str | None:
    return squash(entry.findtext(name) or "") or None


def parse_arxiv_atom(content: str) -> ParsedRecord:
    try:
        entry = etree.fromstring(content.encode("utf-8"), _PARSER)
    except etree.XMLSyntaxError as exc:
        raise UnparseableRecord(f"not XML: {exc}") from exc
    if entry.tag != f"{ATOM}entry":
        raise UnparseableRecord("not an Atom <entry>")
    found = _ENTRY_ID.match((entry.findtext(f"{ATOM}id") or "").strip())
    if found is None:
        raise UnparseableRecord("feed entry without an oai:arXiv.org:<id><version> id")
    identifier = arxiv_id(found["id"])
    title_raw = entry.findtext(f"{ATOM}title") or ""
    title = readable(title_raw)
    if not title:
        raise UnparseableRecord(f"arXiv {identifier}: empty title")
    abstract_raw = _SUMMARY.sub("", entry.findtext(f"{ATOM}summary") or "", count=1)
    dois = split_dois(entry.findtext(f"{ARXIV}DOI"))
    journal_ref = _text(entry, f"{ARXIV}journal_reference")
    return ParsedRecord(
        source="arxiv",
        record_id=identifier,
        ids=PaperIds(arxiv=identifier, dois=dois),
        title=title,
        abstract=readable(abstract_raw),
        authors=split_author_list(entry.findtext(f"{DC}creator") or ""),
        categories=[c.get("term") for c in entry.iterfind(f"{ATOM}category") if c.get("term")],
        journal_ref=journal_ref,
        license=_text(entry, f"{DC}rights"),
        links=arxiv_links(identifier) | ({"doi": f"https://doi.org/{dois[0]}"} if dois else {}),
        versions=[SourceVersion(source="arxiv", label=found["version"])],
        status=publication_status(journal_ref, dois),
        original={"title": title_raw, "abstract": abstract_raw},
    )
