"""Parser for the head of a PDF's first page (`arxiv_pdf_first_page`: its text above the abstract, as pypdf extracts
it), read into the authors it names with the affiliations and emails beside them. Pure functions.

A PDF's text has no markup, so only the layouts genuine arXiv first pages show are read (tests/fixtures/first_page/
pdf/ORIGIN.md), each pairing a name with its affiliation in a way the text itself states:
- marks: names followed by symbols (`Zejiang Shen†, Doug Downey□,⋄`) and affiliation lines that start with them
  (`†Massachusetts Institute of Technology, □Allen Institute for AI`): each name gets the affiliations of its marks;
- one line per author, in capitals (`TAL AUGUST, University of Washington, USA`: ACM's journals);
- blocks (`Joseph Chee Chang` / `josephc@allenai.org` / `Allen Institute for AI` / `Seattle, WA, USA`: ACM's
  conferences): the names above a run of emails, one email each, get the affiliation line below it.
Digits as marks (`Wei Zhang1,2`) are not read: no genuine sample shows how pypdf writes them. A name read here
that is none of the paper's authors pairs with nobody in the merge (by name key), so a misread line costs nothing.
"""

import re

from schemas.events import RawRecord
from services.normalizer.parsers.arxiv_html import INSTITUTION_WORDS, emails_in, first_page_record
from services.normalizer.records import PageAuthor, ParsedRecord

_MARKS = "†‡§¶□⋄♦♣♠♥∗⋆★"
_MARKED_NAME = re.compile(rf"([^\W\d_][^\n{_MARKS},;@]*?)\s*((?:[{_MARKS}]\s*,?\s*)+)")
_AFFILIATION_BY_MARK = re.compile(rf"([{_MARKS}])\s*([^{_MARKS}]+)")
_CAPITALS_LINE = re.compile(r"^([A-Z][A-Z.'\- ]*[A-Z]), (.+)$")
_NAME_LINE = re.compile(r"^[^\W\d_][\w.'\-]*(?: [^\W\d_][\w.'\-]*){1,3}$")
_EMAIL_LINE = re.compile(r"^\S+@\S+$")


def parse_arxiv_pdf_first_page(raw: RawRecord) -> ParsedRecord:
    return first_page_record(raw, read_first_page_head, "PDF first page")


def read_first_page_head(text: str) -> list[PageAuthor]:
    """The authors the head names beside their affiliations, in its order (each layout read where it is found)."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    return _by_marks(lines) + _by_capitals(lines) + _by_blocks(lines)


def _by_marks(lines: list[str]) -> list[PageAuthor]:
    affiliations: dict[str, str] = {}
    names: list[tuple[str, str]] = []
    for line in lines:
        if line[0] in _MARKS:
            for mark, words in _AFFILIATION_BY_MARK.findall(line):
                affiliations.setdefault(mark, words.strip(" ,;"))
        elif "@" not in line:
            names.extend((name.strip(), marks) for name, marks in _MARKED_NAME.findall(line))
    authors = []
    for name, marks in names:
        theirs = [affiliations[m] for m in marks if m in affiliations]
        if theirs and _NAME_LINE.match(name):
            authors.append(PageAuthor(name=name, affiliations=tuple(dict.fromkeys(theirs))))
    return authors


def _by_capitals(lines: list[str]) -> list[PageAuthor]:
    authors = []
    for line in lines:
        match = _CAPITALS_LINE.match(line)
        if match and INSTITUTION_WORDS.search(match.group(2)) and _NAME_LINE.match(match.group(1)):
            authors.append(PageAuthor(name=match.group(1), affiliations=(match.group(2),)))
    return authors


def _by_blocks(lines: list[str]) -> list[PageAuthor]:
    authors = []
    i = 0
    while i < len(lines):
        if not _EMAIL_LINE.match(lines[i]):
            i += 1
            continue
        start = i
        while i < len(lines) and _EMAIL_LINE.match(lines[i]):
            i += 1
        emails = lines[start:i]
        names: list[str] = []
        j = start - 1
        while j >= 0 and len(names) < len(emails) and _is_name(lines[j]):
            names.insert(0, lines[j])
            j -= 1
        affiliation = _affiliation_below(lines, i)
        if len(names) == len(emails) and affiliation:
            for name, email in zip(names, emails, strict=True):
                authors.append(PageAuthor(name=name, affiliations=(affiliation,), emails=tuple(emails_in(email))))
    return authors


def _is_name(line: str) -> bool:
    return bool(_NAME_LINE.match(line)) and not INSTITUTION_WORDS.search(line) and "@" not in line


def _affiliation_below(lines: list[str], i: int) -> str:
    """The affiliation line right below a run of emails, joined with the next when it ends with `&` or `and`."""
    if i >= len(lines) or not INSTITUTION_WORDS.search(lines[i]):
        return ""
    words = lines[i]
    while re.search(r"(&|\band)$", words) and i + 1 < len(lines):
        i += 1
        words = f"{words} {lines[i]}"
    return words
