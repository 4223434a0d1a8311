"""Parser for PMLR records: a volume's `@Proceedings` entry, then one paper's `@InProceedings` entry. Pure function.

A PMLR paper is published in its volume's venue: status published, venue "<acronym> <year>" with the acronym the
venue catalogue knows for the volume's `shortname` (ICML, AISTATS, COLT, CoRL), so accepted-venue filters, venue
follows and citations read it as the catalogue's venue. Titles lose BibTeX's case-keeping braces (`{G}aussian`)
outside formulas, which stay as written; abstracts lose PMLR's inline HTML (`<em>`). The OpenReview forum id is an
id of the paper; the entry key (`v267/aamand25a`) is its PMLR id.
"""

import re
from datetime import UTC, datetime

import bibtexparser
from bibtexparser.model import Entry

from papertrail.domain.names import make_author
from papertrail.domain.text import readable, squash
from papertrail.domain.venues.catalogue import default_index
from schemas.paper import Author, PaperIds, SourceVersion
from services.normalizer.records import ParsedRecord, UnparseableRecord

PROCEEDINGS = "https://proceedings.mlr.press"
_FORMULA = re.compile(r"(\$[^$]*\$)")
_INLINE_HTML = re.compile(r"</?(?:em|i|b|strong|sup|sub|tt)>", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+")


def unbraced(text: str) -> str:
    """BibTeX text as readable text: case-keeping braces dropped outside `$…$` formulas, accents resolved."""
    parts = _FORMULA.split(readable(text))  # accents first: `\'{\i}` needs its braces
    return squash("".join(p if i % 2 else p.replace("{", "").replace("}", "") for i, p in enumerate(parts)))


def split_authors(text: str) -> list[str]:
    """A BibTeX author list (`Family, Given and …`) split at the `and`s outside braces."""
    names, depth, start = [], 0, 0
    for match in re.finditer(r"[{}]|\s+and\s+", text):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth == 0:
            names.append(text[start : match.start()])
            start = match.end()
    names.append(text[start:])
    return [n.strip() for n in names if n.strip()]


def _author(written: str) -> Author:
    family, comma, given = written.partition(",")
    if not comma:
        return make_author(unbraced(written))
    family, given = unbraced(family), unbraced(given)
    return make_author(f"{given} {family}".strip(), given=given, family=family)


def _field(entry: Entry, name: str) -> str:
    field = entry.fields_dict.get(name)
    return str(field.value).strip() if field is not None else ""


def _day(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value).replace(tzinfo=UTC) if value else None
    except ValueError:
        return None


def volume_venue(shortname: str, booktitle: str, year: int | None) -> str | None:
    """The volume's venue as the catalogue names it ("ICML 2025"), else its short name or book title as written."""
    index = default_index()
    venue = index.resolve(shortname) if shortname else None
    name = venue.acronym if venue else (shortname or booktitle or None)
    if name is None:
        return None
    return f"{name} {year}" if year else name


def parse_pmlr(content: str) -> ParsedRecord:
    """`@Proceedings{…}` + `@InProceedings{…}` → parsed record; a broken entry is refused with bibtexparser's reason."""
    library = bibtexparser.parse_string(content)
    if library.failed_blocks:
        failed = library.failed_blocks[0]
        raise UnparseableRecord(f"BibTeX entry not readable (line {(failed.start_line or 0) + 1}): {failed.error}")
    proceedings = next((e for e in library.entries if e.entry_type == "proceedings"), None)
    papers = [e for e in library.entries if e.entry_type == "inproceedings"]
    if proceedings is None or len(papers) != 1:
        raise UnparseableRecord(f"expected a volume's @Proceedings and one @InProceedings, got {len(papers)} papers")
    paper, volume = papers[0], _field(proceedings, "volume")
    title = unbraced(_field(paper, "title"))
    if not volume or not title:
        raise UnparseableRecord(f"{paper.key}: no {'volume' if not volume else 'title'}")
    pmlr_id = f"v{volume}/{paper.key}"
    year_text = _field(paper, "year") or _field(proceedings, "year")
    year = int(year_text) if year_text.isdigit() else None
    openreview = _field(paper, "openreview") or None
    links = {"pmlr": f"{PROCEEDINGS}/{pmlr_id}.html"}
    if pdf := _field(paper, "pdf"):
        links["pdf"] = pdf
    if (code := _field(paper, "software")).startswith(("http://", "https://")):  # some say only "."
        links["code"] = code
    if openreview:
        links["openreview"] = f"https://openreview.net/forum?id={openreview}"
    abstract_text = _field(paper, "abstract")
    published = _day(_field(proceedings, "published"))
    return ParsedRecord(
        source="pmlr",
        record_id=pmlr_id,
        ids=PaperIds(openreview=openreview, pmlr=pmlr_id),
        title=title,
        abstract=readable(_INLINE_HTML.sub("", abstract_text)),
        authors=[_author(name) for name in split_authors(_field(paper, "author"))],
        links=links,
        versions=[SourceVersion(source="pmlr", label="v1", date=published)],
        venue=volume_venue(_field(proceedings, "shortname"), _field(proceedings, "booktitle"), year),
        year=year,
        status="published",
        original={"title": _field(paper, "title"), "abstract": abstract_text},
    )
