"""Parser for an arXiv HTML author block (`arxiv_html_authors`): the LaTeXML `<div class="ltx_authors">` the harvester
cut from `https://arxiv.org/html/<id>`, read into its authors, each with the affiliations and emails written beside
the name. Pure functions.

What LaTeXML writes, as seen on genuine arXiv pages (tests/fixtures/first_page/ORIGIN.md):
- each author a `span.ltx_creator.ltx_role_author`: the name in `span.ltx_personname` (with footnote marks, ORCID
  logos, an `<math>` superscript), the contacts in `span.ltx_author_notes`;
- an affiliation a `span.ltx_contact.ltx_role_affiliation` (its hidden "Affiliation: " label in `ltx_contact_name`),
  sometimes an email group `{a, b}@example.com` in its place; an email a `span.ltx_contact.ltx_role_email`;
- an affiliation written with `\\thanks` a note `ltx_role_thanks` beside the name: read only when it names an
  institution and says nothing of funding, equal contribution or correspondence (those notes are no affiliation);
- one creator holding several names ("A  and B"), or none: not read, since which affiliation is whose is unknown.
Other contact roles (`ltx_role_address`, `ltx_role_correspondent`, …) are not read: no genuine sample shows what they
hold for arXiv papers.
"""

import re
from collections.abc import Callable

from lxml import etree, html

from papertrail.domain.text import readable
from schemas.events import RawRecord
from schemas.paper import PaperIds
from services.normalizer.records import PageAuthor, ParsedRecord, UnparseableRecord

ARXIV_ID = re.compile(r"^(?P<id>(\d{4}\.\d{4,5})|([a-z-]+(\.[A-Z]{2})?/\d{7}))(v\d+)?$")


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


_CREATORS = f".//span[{_has_class('ltx_creator')} and {_has_class('ltx_role_author')}]"
_PERSONNAME = f".//span[{_has_class('ltx_personname')}]"
_AFFILIATIONS = f".//span[{_has_class('ltx_contact')} and {_has_class('ltx_role_affiliation')}]"
_EMAILS = f".//span[{_has_class('ltx_contact')} and {_has_class('ltx_role_email')}]"
_THANKS = f".//span[{_has_class('ltx_note')} and {_has_class('ltx_role_thanks')}]"
_NOTE_CONTENT = f".//span[{_has_class('ltx_note_content')}]"

# parts of an element that are no words of the name or the affiliation: labels, footnote marks, logos, formulas
_SKIPPED_CLASSES = frozenset({"ltx_contact_name", "ltx_note_mark", "ltx_note_type", "ltx_author_notes", "ltx_note"})
_SKIPPED_TAGS = frozenset({"sup", "math", "svg", "script", "style"})

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_EMAIL_GROUP = re.compile(r"\{([^{}]*)\}\s*@\s*([\w-]+(?:\.[\w-]+)+)")
_MARKS = " \t\n,;*†‡§¶#"
SEVERAL_NAMES = re.compile(r",|\band\b|&")
INSTITUTION_WORDS = re.compile(
    r"univ|institut|college|school|department|d[ée]part[ae]?ment|dept\.|laborator|\blab\b|centre|center|academy|academia"
    r"|cnrs|inria"
    r"|\binc\b|corporation|company|observator|hospital|research|polytechn|école|ecole|universit",
    re.IGNORECASE,
)
NOT_AFFILIATION = re.compile(
    r"support|fund|grant|contribut|correspond|equal|project|\bwork\b|\bthis\b|\bthe author", re.IGNORECASE
)


def parse_arxiv_html_authors(raw: RawRecord) -> ParsedRecord:
    return first_page_record(raw, read_author_block, "arXiv HTML author block")


def first_page_record(raw: RawRecord, read: Callable[[str], list[PageAuthor]], what: str) -> ParsedRecord:
    """A first page's record: its id is the paper's arXiv id (a version allowed); it joins the paper of that id and
    carries only the authors the page names, as `read` reads them."""
    match = ARXIV_ID.match(raw.record_id)
    if match is None:
        raise UnparseableRecord(f"{what}: {raw.record_id!r} is no arXiv id")
    return ParsedRecord(
        source=raw.source,
        record_id=raw.record_id,
        ids=PaperIds(arxiv=match.group("id")),
        title="",
        page_authors=read(raw.content),
    )


def read_author_block(block: str) -> list[PageAuthor]:
    """The block's authors in its order: each named creator with its affiliations and emails (possibly none)."""
    if not block.strip():
        return []
    try:
        root = html.fragment_fromstring(block, create_parent="div")
    except (etree.ParserError, ValueError) as exc:
        raise UnparseableRecord(f"arXiv HTML author block: {exc}") from exc
    authors = []
    for creator in root.xpath(_CREATORS):
        names = creator.xpath(_PERSONNAME)
        name = _text(names[0]).strip(_MARKS) if names else ""
        if not name or SEVERAL_NAMES.search(name):
            continue
        emails: list[str] = []
        affiliations: list[str] = []
        for contact in creator.xpath(_AFFILIATIONS):
            text = _text(contact)
            found = emails_in(text)
            emails.extend(found)
            words = _without_emails(text).strip(_MARKS)
            if re.search(r"[^\W\d_]", words):
                affiliations.append(words)
        for note in creator.xpath(_THANKS):
            content = note.xpath(_NOTE_CONTENT)
            text = _text(content[0]).strip(_MARKS) if content else ""
            if INSTITUTION_WORDS.search(text) and not NOT_AFFILIATION.search(text) and "@" not in text:
                affiliations.append(text)
        for contact in creator.xpath(_EMAILS):
            # a mailto may hold a group too: mailto:{a,b}@example.com
            mailto = [e for h in contact.xpath(".//a/@href") if h.startswith("mailto:") for e in emails_in(h[7:])]
            emails.extend(mailto or emails_in(_text(contact)))
        authors.append(
            PageAuthor(
                name=name,
                affiliations=tuple(dict.fromkeys(affiliations)),
                emails=tuple(dict.fromkeys(e.lower() for e in emails)),
            )
        )
    return authors


def _text(element: etree._Element) -> str:
    """The element's words as a reader sees them, without labels, marks, logos and formulas; spaces collapsed."""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if isinstance(child.tag, str) and not _skipped(child):
                if child.tag == "br":
                    parts.append(" ")
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return readable(" ".join("".join(parts).split()))


def _skipped(node: etree._Element) -> bool:
    if node.tag in _SKIPPED_TAGS:
        return True
    return bool(_SKIPPED_CLASSES.intersection((node.get("class") or "").split()))


def emails_in(text: str) -> list[str]:
    """Emails written out, a group `{a, b}@example.com` counted as one per name."""
    found: list[str] = []
    for group in _EMAIL_GROUP.finditer(text):
        found.extend(f"{local.strip()}@{group.group(2)}" for local in group.group(1).split(",") if local.strip())
    found.extend(_EMAIL.findall(_EMAIL_GROUP.sub(" ", text)))
    return found


def _without_emails(text: str) -> str:
    return " ".join(_EMAIL.sub(" ", _EMAIL_GROUP.sub(" ", text)).split())
