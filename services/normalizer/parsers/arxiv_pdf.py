"""Parser for the head of a PDF's first page (`arxiv_pdf_first_page`: its text above the abstract, as pypdf extracts
it), read into the authors it names with the affiliations and emails beside them. Pure functions.

A PDF's text has no markup, so only the layouts genuine arXiv first pages show are read (tests/fixtures/first_page/
pdf/ORIGIN.md), each pairing a name with its affiliation in a way the text itself states:
- marks: names followed by symbols (`Zejiang Shen†, Doug Downey□,⋄`) and affiliation lines that start with them
  (`†Massachusetts Institute of Technology, □Allen Institute for AI`): each name gets the affiliations of its marks;
- one line per author, in capitals (`TAL AUGUST, University of Washington, USA`: ACM's journals);
- blocks (`Joseph Chee Chang` / `josephc@allenai.org` / `Allen Institute for AI` / `Seattle, WA, USA`: ACM's
  conferences): the names above a run of emails, one email each, get the affiliation line below it;
- digits as marks, as pypdf writes them (`Yue Cao1,3∗, Jiarui Xu2,3∗`, `Yichen He∗1`, `Julian Schrittwieser,1∗`,
  `Yuhuai Wu∗12` for 1 and 2): the lines of names right above the first affiliation line numbered 1 (`1School of
  Software, Tsinghua University`, `1 Allen Institute for AI`, several on one line: `1Sapienza University of Rome 2Meta
  AI`); the affiliations are numbered 1, 2, 3 … in order, emails may stand between them (LNCS), and a line ending
  with a comma goes on in the next.
- names, then their affiliation (`Kaiming He Xiangyu Zhang Shaoqing Ren Jian Sun` / `Microsoft Research`;
  `Geoffrey Hinton∗ †` / `Google Inc.` / `Mountain View` / an email, one such block per author; `Sergey Ioffe` /
  `Google Inc., sioffe@google.com`): read only where no layout above read the page, and only where the names share
  one affiliation or one name has its own. A department line goes on in the institution's line below it; the place
  below an affiliation (`Mountain View`) ends it; an affiliation that reads like a name (`Google AI Language`) is
  taken as one only right above the emails. Names written with spaces only are read as every two and three words in
  a row: the merge pairs only those that are the paper's authors (by name key).
A mark's line that is a note (`∗equal technical contribution`) is no affiliation. The text is read with ligatures
unfolded (`ﬁ`) and pdfTeX's separate accents put back on their letters (`Universit´e`). A name read here that is none
of the paper's authors pairs with nobody in the merge (by name key), so a misread line costs nothing.
"""

import re
import unicodedata

from papertrail.domain.names import PARTICLES
from schemas.events import RawRecord
from services.normalizer.parsers.arxiv_html import (
    INSTITUTION_WORDS,
    NOT_AFFILIATION,
    SEVERAL_NAMES,
    emails_in,
    first_page_record,
)
from services.normalizer.records import PageAuthor, ParsedRecord

_MARKS = "†‡§¶□⋄♦♣♠♥∗⋆★"
NAME_CHARS = 80
# a name is at most NAME_CHARS long: the bound keeps a long line without marks linear, not quadratic
_MARKED_NAME = re.compile(rf"([^\W\d_][^\n{_MARKS},;@]{{0,{NAME_CHARS}}}?)\s*((?:[{_MARKS}]\s*,?\s*)+)")
_AFFILIATION_BY_MARK = re.compile(rf"([{_MARKS}])\s*([^{_MARKS}]+)")
_CAPITALS_LINE = re.compile(r"^([A-Z][A-Z.'\- ]*[A-Z]), (.+)$")
_NAME_LINE = re.compile(r"^[^\W\d_][\w.'\-]*(?: [^\W\d_][\w.'\-]*){1,3}$")
_EMAIL_LINE = re.compile(r"^\S+@\S+$")
# a name and its digit marks, symbols around them: `Yue Cao1,3∗`, `Yichen He∗1`, `Julian Schrittwieser,1∗`
_DIGIT_MARKED_NAME = re.compile(
    rf"([^\W\d_][^\d,;@(){_MARKS}]{{0,{NAME_CHARS}}}?)\s*,?\s*[{_MARKS}]*\s*(\d{{1,2}}(?:\s*,\s*\d{{1,2}})*)(?!\d)"
)
_NUMBERED_LINE = re.compile(r"^(\d{1,2}) ?(?=[^\W\d_])")
# pdfTeX's accents as pypdf writes them: the spacing accent before its letter (`Universit´e`, `M¨uhlenberg`)
_SPACING_ACCENTS = {
    "´": "\u0301",
    "`": "\u0300",
    "¨": "\u0308",
    "ˆ": "\u0302",
    "˜": "\u0303",
    "ˇ": "\u030c",
    "˛": "\u0328",
}
_SPACING_ACCENT = re.compile(f"([{''.join(_SPACING_ACCENTS)}])([^\\W\\d_])")


def parse_arxiv_pdf_first_page(raw: RawRecord) -> ParsedRecord:
    return first_page_record(raw, read_first_page_head, "PDF first page")


def read_first_page_head(text: str) -> list[PageAuthor]:
    """The authors the head names beside their affiliations, in its order (each layout read where it is found)."""
    lines = [" ".join(_unfolded(line).split()) for line in text.splitlines() if line.strip()]
    marked = _by_marks(lines) + _by_capitals(lines) + _by_blocks(lines) + _by_digit_marks(lines)
    return marked or _by_names_then_affiliations(lines)


def _unfolded(line: str) -> str:
    """Ligatures as letters, a spacing accent on the letter after it."""
    line = _SPACING_ACCENT.sub(lambda m: m.group(2) + _SPACING_ACCENTS[m.group(1)], line)
    line = re.sub("ı(?=[\u0300-\u036f])", "i", line)  # `F´ısica`: the accent goes on a dotless i
    return unicodedata.normalize("NFC", unicodedata.normalize("NFKC", line))


def _by_marks(lines: list[str]) -> list[PageAuthor]:
    affiliations: dict[str, str] = {}
    names: list[tuple[str, str]] = []
    for line in lines:
        if line[0] in _MARKS:
            for mark, words in _AFFILIATION_BY_MARK.findall(line):
                if not NOT_AFFILIATION.search(words):  # `∗equal technical contribution` is a note
                    affiliations.setdefault(mark, words.strip(" ,;"))
        elif "@" not in line:
            names.extend((_without_and(name), marks) for name, marks in _MARKED_NAME.findall(line))
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


def _without_and(name: str) -> str:
    name = name.strip()
    return name[4:] if name.startswith("and ") else name


def _by_digit_marks(lines: list[str]) -> list[PageAuthor]:
    first = next((i for i, line in enumerate(lines) if (m := _NUMBERED_LINE.match(line)) and m.group(1) == "1"), None)
    if first is None:
        return []
    affiliations = _numbered_affiliations(lines[first:])
    start = first
    while start > 0 and _DIGIT_MARKED_NAME.search(lines[start - 1]) and "@" not in lines[start - 1]:
        start -= 1
    authors = []
    single_digits = all(len(number) == 1 for number in affiliations)
    for name, marks in _DIGIT_MARKED_NAME.findall(" ".join(lines[start:first])):
        numbers = [n.strip() for n in marks.split(",")]
        if single_digits:  # `Wu∗12`: marks 1 and 2 where no affiliation is numbered 12
            numbers = [digit for n in numbers for digit in n]
        theirs = [affiliations[n] for n in numbers if n in affiliations]
        name = _without_and(name)
        if theirs and _NAME_LINE.match(name):
            authors.append(PageAuthor(name=name, affiliations=tuple(dict.fromkeys(theirs))))
    return authors


def _numbered_affiliations(lines: list[str]) -> dict[str, str]:
    """`1…`, `2…` in order from the first line, several on a line; a line ending with a comma goes on in the next."""
    affiliations: dict[str, str] = {}
    current = ""
    for line in lines:
        start = _NUMBERED_LINE.match(line)
        if start and start.group(1) == str(len(affiliations) + 1):
            for number, words in _split_numbered(line, len(affiliations) + 1):
                affiliations[number] = words
                current = number
        elif "@" in line:  # an affiliation's email below it (LNCS): the next number may follow
            current = ""
        elif current and affiliations[current].endswith(",") and line[0] not in _MARKS:
            affiliations[current] = f"{affiliations[current]} {line}"
        else:
            break
    return affiliations


def _split_numbered(line: str, first: int) -> list[tuple[str, str]]:
    """`1Sapienza University of Rome 2Meta AI` → ("1", "Sapienza University of Rome"), ("2", "Meta AI"): the numbers
    in order only, so that `75005 Paris` or `6 Pancras Square` within an affiliation are no mark."""
    starts: list[tuple[str, int, int]] = []
    number, position = first, 0
    while found := re.compile(rf"(?:^|(?<=\s)){number} ?(?=[^\W\d_])").search(line, position):
        starts.append((str(number), found.start(), found.end()))
        number, position = number + 1, found.end()
    ends = [begin for _, begin, _ in starts[1:]] + [len(line)]
    return [(mark, line[words:end].strip()) for (mark, _, words), end in zip(starts, ends, strict=True)]


_PARTICLES = PARTICLES | {"ten"}  # "ten" stays out of the family-name rule (author keys)
_PERSON_TOKEN = re.compile(r"^[^\W\d_][\w.'’\-]*$")


def _person(tokens: list[str]) -> bool:
    """Capitalised words, with particles (`van den`) or an abbreviation (`kr.`) between them."""
    if not tokens or not all(_PERSON_TOKEN.match(t) for t in tokens):
        return False
    inner = tokens[1:-1]
    return (
        tokens[0][0].isupper()
        and tokens[-1][0].isupper()
        and all(t[0].isupper() or t in _PARTICLES or re.match(r"^[a-z]{1,3}\.$", t) for t in inner)
    )


def _names_in(line: str) -> list[str] | None:
    """The names a line of names holds (None for any other line); a line of names written with spaces only, as every
    two and three words in a row."""
    text = " ".join(t for t in re.sub(f"[{_MARKS}*]", " ", line).split() if "@" not in t)
    if not text or text.isupper() or re.search(r"\d", text) or INSTITUTION_WORDS.search(text):
        return None
    items = [item.split() for item in SEVERAL_NAMES.split(text) if item.strip()]
    if len(items) > 1:
        return [" ".join(i) for i in items] if all(2 <= len(i) <= 4 and _person(i) for i in items) else None
    tokens = items[0]
    if len(tokens) < 2 or not _person(tokens):
        return None
    if len(tokens) <= 3:
        return [" ".join(tokens)]
    windows = [" ".join(tokens[i : i + n]) for n in (2, 3) for i in range(len(tokens) - n + 1)]
    return ([" ".join(tokens)] if len(tokens) == 4 else []) + windows


def _by_names_then_affiliations(lines: list[str]) -> list[PageAuthor]:
    authors: list[PageAuthor] = []
    i = 0
    while i < len(lines):
        if _names_in(lines[i]) is None:
            i += 1
            continue
        run: list[str] = []
        while i < len(lines) and _names_in(lines[i]) is not None:
            run.append(lines[i])
            i += 1
        block: list[str] = []
        while i < len(lines):
            line = lines[i]
            if "@" in line:  # the emails below; `Google Inc., sioffe@google.com`: the affiliation before them
                before = re.sub(r"\S+@\S+", "", line).strip(" ,;")
                if not block and before and INSTITUTION_WORDS.search(before):
                    block.append(before)
                    i += 1
                break
            if line[0] in _MARKS and NOT_AFFILIATION.search(line):  # `∗equal technical contribution`
                i += 1
                continue
            if not INSTITUTION_WORDS.search(line) and (block or len(line.split()) > 4):
                break  # the place below an affiliation, or text that is none
            block.append(line)
            i += 1
        above_emails = i == len(lines) or "@" in lines[i]
        if not block and len(run) > 1 and above_emails and len(_names_in(run[-1]) or []) == 1:
            block = [run.pop()]  # `Google AI Language`, `Meta AI`: one name's worth of words, right above the emails
        names = [name for line in run for name in _names_in(line) or []]
        affiliations = _grouped(block)
        single = len(run) == 1 and len(names) == 1
        if affiliations and (single or len(affiliations) == 1):
            authors.extend(PageAuthor(name=name, affiliations=tuple(affiliations)) for name in names)
    return authors


def _grouped(block: list[str]) -> list[str]:
    """Affiliation lines as affiliations: a line without a comma goes on in an institution's line below it."""
    affiliations: list[str] = []
    joining = False
    for line in block:
        if joining:
            affiliations[-1] = f"{affiliations[-1]}, {line}"
        else:
            affiliations.append(line)
        joining = "," not in line
    return [a for a in affiliations if a]
