"""Parser for ACL Anthology records: one `<volume collection="…">` with its `<meta>` and one paper. Pure function.

An anthology paper is published in its venue: status published, venue "<VENUE> <year>" from the volume
meta, and the volume as it prints the paper (`published_in`: the volume's title, editors, publisher, address and
month, the paper's pages), which its citations write as the Anthology's own BibTeX does. Titles and abstracts are
MarkupText: `<fixed-case>` marks letters whose case must be kept (the text is already written in that case),
`<tex-math>` holds LaTeX that becomes readable text, `<i>`/`<b>`/`<url>` are flattened; for citations the titles are
also kept in LaTeX, the case marks as braces. Front matter is parsed too but flagged: it is not a paper (the
normalizer sets it aside).
"""

import re
from datetime import UTC, datetime

from lxml import etree

from papertrail.domain.names import make_author
from papertrail.domain.paper_ids import anthology_id
from papertrail.domain.text import latex_encoded, squash, tex_math
from schemas.paper import Author, PaperIds, PublishedIn, SourceVersion
from services.normalizer.records import ParsedRecord, UnparseableRecord

ANTHOLOGY = "https://aclanthology.org"
# arXiv's category of computational linguistics: every Anthology paper is filed under it, so the 分类 filter finds
# the Anthology's papers beside the preprints their authors filed there (a merged preprint adds its own)
ANTHOLOGY_CATEGORY = "cs.CL"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
# Paper 0 of a volume is its front matter (title page, preface, committees): `2024.acl-long.0`, `P19-1.0`.
FRONT_MATTER_ID = re.compile(r"\.0$")
_VENUE_NAMES = {
    "acl": "ACL",
    "findings": "Findings",
    "emnlp": "EMNLP",
    "naacl": "NAACL",
    "eacl": "EACL",
    "aacl": "AACL",
    "tacl": "TACL",
    "cl": "Computational Linguistics",
    "coling": "COLING",
    "conll": "CoNLL",
    "lrec": "LREC",
    "ws": "Workshop",
}


def markup_text(element: etree._Element | None) -> str:
    """MarkupText → plain text: tex-math rendered, every other tag flattened, whitespace squashed."""
    if element is None:
        return ""
    parts: list[str] = [element.text or ""]
    for child in element:
        if child.tag == "tex-math":
            parts.append(tex_math("".join(child.itertext())))
        else:
            parts.append(markup_text(child))
        parts.append(child.tail or "")
    return squash("".join(parts))


# MarkupText as LaTeX, as the Anthology writes it into BibTeX: its letters of kept case braced, its styles as commands.
_LATEX_MARKUP = {"fixed-case": "{{{}}}", "i": "\\textit{{{}}}", "b": "\\textbf{{{}}}"}


def markup_latex(element: etree._Element | None) -> str:
    """MarkupText → LaTeX: text encoded (`&` → `{\\&}`), `<fixed-case>` braced (`{C}hinese`: BibTeX styles keep
    its case), `<tex-math>` as `$…$`, `<url>` as `\\url{…}`, `<i>`/`<b>` as `\\textit`/`\\textbf`."""
    return "" if element is None else squash(_latex(element))


def _latex(element: etree._Element) -> str:
    parts = [latex_encoded(element.text or "")]
    for child in element:
        if child.tag == "tex-math":
            parts.append(f"${''.join(child.itertext())}$")
        elif child.tag == "url":
            parts.append(f"\\url{{{''.join(child.itertext())}}}")
        else:
            parts.append(_LATEX_MARKUP.get(str(child.tag), "{}").format(_latex(child)))
        parts.append(latex_encoded(child.tail or ""))
    return "".join(parts)


def _source_xml(element: etree._Element | None) -> str:
    return "" if element is None else etree.tostring(element, encoding="unicode", with_tail=False)


def _day(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value).replace(tzinfo=UTC) if value else None
    except ValueError:
        return None


def _author(person: etree._Element) -> Author:
    given = squash(person.findtext("first"))
    family = squash(person.findtext("last"))
    orcid = person.get("orcid") or squash(person.findtext("orcid")) or None
    source_ids = {"acl": person.get("id")} if person.get("id") else {}
    for tag, source in (("semantic-scholar", "semantic_scholar"), ("google-scholar", "google_scholar")):
        if squash(person.findtext(tag)):
            source_ids[source] = squash(person.findtext(tag))
    affiliations = [squash(a.text) for a in person.iterfind("affiliation") if squash(a.text)]
    if person.get("affiliation"):
        affiliations.insert(0, squash(person.get("affiliation")))
    return make_author(
        f"{given} {family}".strip(),
        given=given,
        family=family,
        affiliations=affiliations,
        orcid=orcid,
        source_ids=source_ids,
    )


def published_in(volume: etree._Element, meta: etree._Element, paper: etree._Element) -> PublishedIn:
    """The volume as it prints a paper: what the Anthology's BibTeX of the paper writes beside its authors and year
    (a paper's own `<editor>`, `<journal>` or `<issue>`, rare, before its volume's)."""
    title, booktitle = paper.find("title"), meta.find("booktitle")

    def text(element: etree._Element, tag: str) -> str | None:
        return squash(element.findtext(tag)) or None

    return PublishedIn(
        kind="journal" if volume.get("type") == "journal" else "proceedings",
        title=markup_text(title),
        title_latex=markup_latex(title),
        booktitle=markup_text(booktitle),
        booktitle_latex=markup_latex(booktitle),
        journal=text(paper, "journal") or text(meta, "journal-title"),
        volume=text(meta, "journal-volume"),
        issue=text(paper, "issue") or text(meta, "journal-issue"),
        editors=[_author(e) for e in paper.findall("editor") or meta.findall("editor")],
        publisher=text(meta, "publisher"),
        address=text(meta, "address"),
        month=text(meta, "month"),
        pages=text(paper, "pages"),
    )


def venue_name(venues: list[str], year: int | None, volume_id: str = "") -> str | None:
    """The venue as papers hold it: "ACL 2024"; a Findings volume after the conference its id names
    (`2024.findings-eacl`: "Findings of EACL 2024"), which is how the venue catalogue knows it."""
    if not venues:
        return None
    name = _VENUE_NAMES.get(venues[0].lower(), venues[0].upper())
    if venues[0].lower() == "findings" and volume_id.isalpha():
        name = f"Findings of {_VENUE_NAMES.get(volume_id.lower(), volume_id.upper())}"
    return f"{name} {year}" if year else name


def parse_acl(content: str) -> ParsedRecord:
    """`<volume collection="2024.acl" id="long">` with `<meta>` and one `<paper>`/`<frontmatter>` → parsed record."""
    try:
        volume = etree.fromstring(content.encode("utf-8"), _PARSER)
    except etree.XMLSyntaxError as exc:
        raise UnparseableRecord(f"not XML: {exc}") from exc
    collection, volume_id = volume.get("collection"), volume.get("id")
    meta = volume.find("meta")
    if volume.tag != "volume" or not collection or not volume_id or meta is None:
        raise UnparseableRecord("not an anthology volume record (<volume collection=… id=…> with <meta>)")
    items = [child for child in volume if child.tag in ("paper", "frontmatter")]
    if len(items) != 1:
        raise UnparseableRecord(f"{collection}-{volume_id}: expected one <paper> or <frontmatter>, got {len(items)}")
    item = items[0]
    front_matter = item.tag == "frontmatter"
    paper_number = "0" if front_matter else item.get("id")  # the anthology's own numbering, see FRONT_MATTER_ID
    if not paper_number:
        raise UnparseableRecord(f"{collection}-{volume_id}: paper without id")
    try:
        acl_id = anthology_id(collection, volume_id, paper_number)
    except ValueError as exc:  # an old-style collection numbers volumes and papers with digits only
        raise UnparseableRecord(f"{collection}-{volume_id}: paper id {paper_number!r} is not a number") from exc
    year_text = squash(meta.findtext("year"))
    year = int(year_text) if year_text.isdigit() else None
    title_element = meta.find("booktitle") if front_matter else item.find("title")
    title = markup_text(title_element)
    if not title:
        raise UnparseableRecord(f"{acl_id}: empty title")
    dois = [squash(d).lower() for d in (item.findtext("doi"),) if d and squash(d)]
    url = squash(item.findtext("url")) or acl_id
    links = {"anthology": f"{ANTHOLOGY}/{acl_id}", "pdf": f"{ANTHOLOGY}/{url}.pdf"}
    if dois:
        links["doi"] = f"https://doi.org/{dois[0]}"
    code = item.find("pwccode")
    if code is not None and code.get("url"):
        links["code"] = code.get("url", "")
    for dataset in item.iterfind("pwcdataset"):
        links.setdefault("dataset", dataset.get("url", ""))
    video = item.find("video")
    if video is not None and video.get("href"):
        href = video.get("href", "")  # newer volumes name a file on the Anthology's own server: `2023.acl-long.2.mp4`
        links["video"] = href if href.startswith(("http://", "https://")) else f"{ANTHOLOGY}/{href}"
    published = _day(item.get("ingest-date") or volume.get("ingest-date"))
    versions = [SourceVersion(source="acl", label="v1", date=published)]
    for revision in item.iterfind("revision"):
        if revision.get("id") != "1":  # revision 1 is the original publication
            label, date = f"v{revision.get('id')}", _day(revision.get("date"))
            versions.append(SourceVersion(source="acl", label=label, date=date))
    venues = [squash(v.text) for v in meta.iterfind("venue") if squash(v.text)]
    abstract_element = item.find("abstract")
    return ParsedRecord(
        source="acl",
        record_id=acl_id,
        ids=PaperIds(acl=acl_id, dois=dois),
        title=title,
        abstract=markup_text(abstract_element),
        authors=[_author(a) for a in item.iterfind("author")],
        categories=[ANTHOLOGY_CATEGORY],
        links=links,
        versions=versions,
        venue=venue_name(venues, year, volume_id),
        year=year,
        status="published",
        published_in=None if front_matter else published_in(volume, meta, item),
        comments=squash(item.findtext("note")) or None,
        is_front_matter=front_matter,
        original={"title": _source_xml(title_element), "abstract": _source_xml(abstract_element)},
    )
