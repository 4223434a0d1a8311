"""Parser for DBLP records: one `<inproceedings>`, `<article>` or `<incollection>` element. Pure function.

DBLP has no abstracts: a DBLP paper is its title, authors, venue, year, DOI and links. A proceedings or journal
record is published: its venue is the catalogue's venue of the record's DBLP stream (`conf/icml/…` → ICML), named
"<acronym> <year>" as the accepted-venue filters, venue follows and citations read it, else the booktitle or journal
as DBLP writes it. Its electronic editions (`ee`) name the work's other ids: a DOI, an arXiv id (arXiv's DOI, an
arxiv.org link), an ACL Anthology id, a PMLR entry, an OpenReview forum; each joins the paper those ids name. A CoRR
record (`journal` CoRR) is arXiv's own listing, not a publication: it reads as a preprint with its arXiv id and no
venue, evidence of which arXiv paper the DBLP authors wrote. DBLP ends every title with a period and numbers
namesakes (`Chao Wang 0093`): both are dropped.
"""

import re
from functools import cache
from urllib.parse import parse_qs, urlparse

from lxml import etree

from papertrail.domain.names import make_author
from papertrail.domain.paper_ids import is_arxiv_id
from papertrail.domain.text import readable, squash
from papertrail.domain.venues.catalogue import Venue, default_index
from schemas.paper import Author, PaperIds
from services.normalizer.records import ParsedRecord, UnparseableRecord

DBLP = "https://dblp.org"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
_NAMESAKE = re.compile(r"\s+\d{4}$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_CORR_KEY = re.compile(r"^journals/corr/abs-(\d{4})-(\d{4,5})$")
_ACL_LINK = re.compile(r"^https?://(?:www\.)?aclanthology\.org/([A-Za-z0-9.\-]+?)/?$")
_PMLR_LINK = re.compile(r"^https?://proceedings\.mlr\.press/(v\d+/[\w-]+?)(?:\.html|/[\w-]+\.pdf)?$")
PUBLICATIONS = ("article", "inproceedings", "incollection")


@cache
def _venues_by_dblp_key() -> dict[tuple[str, str], Venue]:
    """The catalogue's venues by DBLP stream (journals/ for a journal, conf/ else) and key; a stream two venues
    share names neither. conf/www and journals/www are two venues."""
    found: dict[tuple[str, str], list[Venue]] = {}
    for venue in default_index().venues.values():
        if venue.dblp:
            kind = "journals" if venue.type == "journal" else "conf"
            found.setdefault((kind, venue.dblp.lower()), []).append(venue)
    return {key: venues[0] for key, venues in found.items() if len(venues) == 1}


def catalogue_venue(dblp_key: str) -> Venue | None:
    """The catalogue venue of a record's stream: `conf/icml/Foo25` → ICML, `journals/pami/Bar24` → TPAMI."""
    parts = dblp_key.split("/")
    if len(parts) < 3:
        return None
    by_key = _venues_by_dblp_key()
    # a conference catalogue record may carry a journal's key (PVLDB's papers are VLDB's): the conf/ one then
    return by_key.get((parts[0].lower(), parts[1].lower())) or by_key.get(("conf", parts[1].lower()))


def _text(element: etree._Element | None) -> str:
    return squash("".join(element.itertext())) if element is not None else ""


def _title(text: str) -> str:
    title = readable(text)
    return title[:-1] if title.endswith(".") and not title.endswith("..") else title


def _author(person: etree._Element) -> Author:
    name = _NAMESAKE.sub("", _text(person))
    source_ids = {"dblp": person.get("pid", "")} if person.get("pid") else {}
    return make_author(name, orcid=person.get("orcid"), source_ids=source_ids)


def _arxiv_of(value: str) -> str | None:
    value = value.strip().removeprefix("arXiv:")
    value = re.sub(r"v\d+$", "", value)
    return value if is_arxiv_id(value) else None


def read_ees(ees: list[str]) -> tuple[PaperIds, dict[str, str]]:
    """The ids and links a record's electronic editions give."""
    ids = PaperIds()
    links: dict[str, str] = {}
    for ee in ees:
        url = urlparse(ee)
        host = url.netloc.lower().removeprefix("www.")
        if host in ("doi.org", "dx.doi.org"):
            doi = url.path.lstrip("/").lower()
            if arxiv := _ARXIV_DOI.match(doi):
                ids.arxiv = ids.arxiv or _arxiv_of(arxiv.group(1))
            elif doi and doi not in ids.dois:
                ids.dois.append(doi)
                links.setdefault("doi", f"https://doi.org/{doi}")
        elif host == "arxiv.org" and url.path.startswith(("/abs/", "/pdf/")):
            ids.arxiv = ids.arxiv or _arxiv_of(url.path.split("/", 2)[2].removesuffix(".pdf"))
        elif acl := _ACL_LINK.match(ee):
            ids.acl = ids.acl or acl.group(1)
            links.setdefault("anthology", ee)
        elif pmlr := _PMLR_LINK.match(ee):
            ids.pmlr = ids.pmlr or pmlr.group(1)
            links.setdefault("pmlr", f"https://proceedings.mlr.press/{pmlr.group(1)}.html")
        elif host == "openreview.net" and (forum := parse_qs(url.query).get("id")):
            ids.openreview = ids.openreview or forum[0]
            links.setdefault("openreview", ee)
        else:
            links.setdefault("ee", ee)
    return ids, links


def _corr_arxiv(key: str, volume: str, ids: PaperIds) -> str | None:
    """A CoRR record's arXiv id: from its `ee`, its volume (`abs/2508.04024`), or its key (`abs-2508-04024`)."""
    if ids.arxiv:
        return ids.arxiv
    if volume.startswith("abs/") and (found := _arxiv_of(volume.removeprefix("abs/"))):
        return found
    key_match = _CORR_KEY.match(key)
    return _arxiv_of(f"{key_match.group(1)}.{key_match.group(2)}") if key_match else None


def parse_dblp(content: str) -> ParsedRecord:
    """One DBLP record element → parsed record; one without a key, a title or (CoRR) an arXiv id is refused."""
    try:
        element = etree.fromstring(content.encode("utf-8"), _PARSER)
    except etree.XMLSyntaxError as exc:
        raise UnparseableRecord(f"not XML: {exc}") from exc
    key = element.get("key") or ""
    if element.tag not in PUBLICATIONS or not key:
        raise UnparseableRecord(f"not a DBLP publication record (<{element.tag} key={key!r}>)")
    title = _title(_text(element.find("title")))
    if not title:
        raise UnparseableRecord(f"{key}: no title")
    year_text = _text(element.find("year"))
    year = int(year_text) if year_text.isdigit() else None
    ids, links = read_ees([_text(ee) for ee in element.iterfind("ee") if _text(ee)])
    journal, booktitle = _text(element.find("journal")), _text(element.find("booktitle"))
    authors = [_author(person) for person in element.iterfind("author")]
    original = {"title": _text(element.find("title"))}
    if journal == "CoRR" or key.startswith("journals/corr/"):
        arxiv = _corr_arxiv(key, _text(element.find("volume")), ids)
        if arxiv is None:
            raise UnparseableRecord(f"{key}: a CoRR record without an arXiv id")
        return ParsedRecord(
            source="dblp",
            record_id=key,
            ids=PaperIds(arxiv=arxiv),
            title=title,
            authors=authors,
            links={"dblp": f"{DBLP}/rec/{key}"},
            original=original,
        )
    ids.dblp = key
    venue = catalogue_venue(key)
    name = venue.acronym if venue else (booktitle or journal or None)
    return ParsedRecord(
        source="dblp",
        record_id=key,
        ids=ids,
        title=title,
        authors=authors,
        links={"dblp": f"{DBLP}/rec/{key}"} | links,
        venue=f"{name} {year}" if name and year else name,
        year=year,
        status="published",
        original=original,
    )
