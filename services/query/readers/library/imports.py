"""A reader's library file (BibTeX, RIS, Zotero's CSL-JSON) → its entries, the keys each entry is looked up by, and
which paper each entry is. Pure: the papers come through a `PaperFinder` the service implements over its store.

An entry resolves by the first key some paper holds, in this order: a DOI (arXiv's own DOI names the arXiv paper), an
arXiv id (`eprint`, an arXiv URL, or `arXiv:…` written in `journal`, `note`, `howpublished`, `volume`), an ACL Anthology
id (an Anthology URL, or the `10.18653/v1/<id>` DOI the Anthology registers), then title + first author by the
normalizer's own identity rule (the fingerprint two records of one work share). Ids take the forms the query service
reads them in (`paper_lookup.paper_key`); a title + author key that several papers share is ambiguous.
"""

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

import rispy
from bibtexparser.library import Library
from bibtexparser.middlewares import BlockMiddleware, SeparateCoAuthors, SplitNameParts
from bibtexparser.middlewares.parsestack import default_parse_stack
from bibtexparser.model import DuplicateBlockKeyBlock, Entry
from bibtexparser.splitter import Splitter
from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from papertrail.domain.names import author_key, split_name

# The normalizer's identity rule and name keys; they move to the shared package with the restructuring.
from papertrail.domain.paper_ids import fingerprint
from services.query.catalogue.reads.paper_lookup import NotAPaperId, PaperKey, anthology_key, holder, paper_key
from services.query.readers.library.citations import CitationFormat

LibraryFormat = CitationFormat
ResolutionStatus = Literal["resolved", "ambiguous", "unresolved"]

# The fields of a `papers` document a finder returns for each candidate: what `paper_lookup.holder` orders by.
CANDIDATE_FIELDS = ("_id", "status", "first_seen")
# DOIs the ACL Anthology registers: 10.18653/v1/<Anthology id>.
# Where an arXiv id may be written as text: `journal = {arXiv preprint arXiv:2401.12345}` (Google Scholar),
# `volume = {abs/2401.12345}` (DBLP), `note`/`howpublished` (arXiv's and others' exports).
_BIBTEX_TEXT_FIELDS = ("journal", "note", "howpublished", "volume", "number", "booktitle", "publisher")
_BIBTEX_URL_FIELDS = ("url", "pdf", "link", "biburl")
_TOKEN_SPLIT = re.compile(r"[\s{}()\[\]<>,;\"']+")
# What LaTeX reads as more than text (pylatexenc's macros, groups, math, comments and specials); a value without any
# reads as written, and most values of a .bib are so: the parser is then spared, the bulk of a large file's reading.
_LATEX_MARKUP = re.compile(r"[\\{}$%&#~^_`]|--|''|!`|\?`")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|2\d\d\d)(?!\d)")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_DECODER = json.JSONDecoder()
_BIBTEX_OTHER_BLOCKS = ("@comment", "@preamble", "@string")
_FIELD_RANK = {"ids.dois": 0, "ids.arxiv": 1, "ids.acl": 2}
_RESOLVED_BY = {"ids.dois": "doi", "ids.arxiv": "arxiv", "ids.acl": "acl"}


class MalformedLibrary(ValueError):
    """A file that is no BibTeX, RIS or CSL-JSON library, or breaks in one place; `line` says where (from 1)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.message, self.line = message, line

    def __reduce__(self) -> tuple[type["MalformedLibrary"], tuple[str, int]]:
        return MalformedLibrary, (self.message, self.line)  # raised in the worker process that reads the file


class FileTooLarge(ValueError):
    """A file larger than an import takes."""


class TooManyEntries(FileTooLarge):
    """A file of more entries than an import takes (`cap`, LIBRARY_IMPORT_MAX_ENTRIES), found while reading it: `line`
    is where the first entry past the cap starts (from 1), and nothing after it was read. `what` counts BibTeX's
    @string, @preamble and @comment blocks apart, under the same cap."""

    def __init__(self, cap: int, line: int, what: str = "entries") -> None:
        super().__init__(
            f"line {line}: the file holds more than {cap:,} {what} and an import takes at most {cap:,} "
            "(LIBRARY_IMPORT_MAX_ENTRIES): split it before this line"
        )
        self.cap, self.line, self.what = cap, line, what

    def __reduce__(self) -> tuple[type["TooManyEntries"], tuple[int, int, str]]:
        return TooManyEntries, (self.cap, self.line, self.what)  # raised in the worker process that reads the file


@dataclass(frozen=True, slots=True)
class LibraryEntry:
    """One entry of a library file, with what it says that can find its paper."""

    line: int  # where the entry starts in the file, from 1
    label: str  # the file's own key for it: BibTeX key, RIS ID, CSL id ("" when none)
    title: str  # readable text
    authors: tuple[tuple[str, str], ...]  # (given, family), in order
    year: int | None
    dois: tuple[str, ...] = ()
    eprints: tuple[str, ...] = ()  # arXiv ids the entry names as such
    urls: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()  # free text that may write an arXiv id

    @property
    def first_author_keys(self) -> list[str | None]:
        """The first author's name key; for a name given whole (no given name, as RIS and CSL write an institution),
        also the key of the name split the normalizer's way, in case the file wrote a person so."""
        if not self.authors:
            return [None]
        given, family = self.authors[0]
        keys = [author_key(given, family)]
        if not given and " " in family:
            keys.append(author_key(*split_name(family)))
        return list(dict.fromkeys(keys))


def entry_record(entry: LibraryEntry) -> dict[str, Any]:
    """What an import stores of an entry to resolve it later (after a restart too): plain values, as BSON holds them."""
    return {
        "authors": [list(name) for name in entry.authors],
        "year": entry.year,
        "dois": list(entry.dois),
        "eprints": list(entry.eprints),
        "urls": list(entry.urls),
        "mentions": list(entry.mentions),
    }


def stored_entry(line: int, label: str, title: str, record: Mapping[str, Any]) -> LibraryEntry:
    """The entry again from what `entry_record` stored."""
    return LibraryEntry(
        line=line,
        label=label,
        title=title,
        authors=tuple((given, family) for given, family in record["authors"]),
        year=record["year"],
        dois=tuple(record["dois"]),
        eprints=tuple(record["eprints"]),
        urls=tuple(record["urls"]),
        mentions=tuple(record["mentions"]),
    )


@dataclass(frozen=True, slots=True)
class TitleAuthorKey:
    """The normalizer's fingerprint of title + first author: papers hold theirs in `fingerprints`."""

    fingerprint: str


LookupKey = PaperKey | TitleAuthorKey


@dataclass(frozen=True, slots=True)
class Resolution:
    """What one entry is: a paper (and by which key), several papers it cannot tell apart, or none held."""

    entry: LibraryEntry
    status: ResolutionStatus
    paper_id: str | None = None
    by: str | None = None  # "doi", "arxiv", "acl" or "title+author"
    candidates: tuple[str, ...] = ()


class PaperFinder(Protocol):
    """The papers holding each key, as `papers` documents with at least CANDIDATE_FIELDS; a key no paper holds may
    be missing from the answer. PaperKeys are held in their `field`; TitleAuthorKeys in `fingerprints`."""

    async def holders(self, keys: Sequence[LookupKey]) -> Mapping[LookupKey, Sequence[dict[str, Any]]]: ...


# Reading the files -------------------------------------------------------------------------------------------------


def read_library(
    data: bytes | str,
    library_format: LibraryFormat | None = None,
    filename: str = "",
    *,
    max_entries: int | None = None,
) -> list[LibraryEntry]:
    """Every entry of a library file; MalformedLibrary names the line of the first thing that is wrong. The format
    is the one given, else the file name's, else what the text looks like. With `max_entries`, reading stops at the
    entry past it (TooManyEntries): a file of millions of tiny entries costs no more than one of the cap."""
    text = _text(data)
    if not text.strip():
        raise MalformedLibrary("the file is empty", 1)
    chosen = library_format or sniff_format(text, filename)
    reader = {"bibtex": read_bibtex, "ris": read_ris, "csl-json": read_csl_json}[chosen]
    entries = reader(text, max_entries)
    if not entries:
        raise MalformedLibrary(f"no {chosen} entries in the file", 1)
    return entries


def _text(data: bytes | str) -> str:
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MalformedLibrary("not UTF-8 text: save the file as UTF-8 and upload it again", line) from exc


def sniff_format(text: str, filename: str = "") -> LibraryFormat:
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if suffix in ("bib", "bibtex"):
        return "bibtex"
    if suffix == "ris":
        return "ris"
    if suffix == "json":
        return "csl-json"
    start = text.lstrip()[:1]
    if start in ("[", "{"):
        return "csl-json"
    if any(_ris_parser().parse_line(line)[0] == "TY" for line in text.splitlines()):
        return "ris"
    if "@" in text:
        return "bibtex"
    raise MalformedLibrary("not a BibTeX, RIS or CSL-JSON file", 1)


@lru_cache(maxsize=1)
def _latex_to_text() -> LatexNodes2Text:
    # Formulas stay as written: the normalizer's title key reads them (arXiv titles keep theirs the same way).
    # \textasciicircum is the ASCII caret (pylatexenc reads it as the modifier letter ˆ, which keys keep as a letter).
    context = get_default_latex_context_db()
    context.add_context_category("ascii", prepend=True, macros=[MacroTextSpec("textasciicircum", "^")])
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", strict_latex_spaces=True)


@lru_cache(maxsize=1)
def _walker_context() -> Any:
    # what LatexWalker builds for itself at every call when not given one: most of the time of reading a .bib
    return latexwalker.get_default_latex_context_db()


def latex_text(value: str) -> str:
    """A BibTeX value as readable text: `{\\"u}` → ü, `{\\&}` → &, protective braces dropped, formulas kept."""
    if not _LATEX_MARKUP.search(value):
        return " ".join(value.split())
    try:
        return " ".join(_latex_to_text().latex_to_text(value, latex_context=_walker_context()).split())
    except Exception:  # pylatexenc gives up on some malformed LaTeX; the value as written is still worth reading
        return " ".join(value.replace("{", "").replace("}", "").split())


def _verbatim(value: str) -> str:
    """A URL or DOI as BibTeX writes one: `\\url{…}` unwrapped, braces dropped, escaped `_`, `%`, `&` unescaped."""
    value = value.strip()
    if value.startswith("\\url{") and value.endswith("}"):
        value = value[5:-1]
    return re.sub(r"\\([_%&#~])", r"\1", value.replace("{", "").replace("}", "")).strip()


class _CappedSplitter(Splitter):
    """bibtexparser's splitter (the first pass, which finds the blocks), stopping at the first entry past the cap, or
    the first @string, @preamble or @comment block past it (each costs as much to read as an entry)."""

    def __init__(self, text: str, cap: int | None) -> None:
        super().__init__(text)
        self.cap = cap
        self.entries = self.others = 0

    def _next_mark(self, accept_eof: bool) -> re.Match[str] | None:
        mark = super()._next_mark(accept_eof)
        # the split's own loop, between blocks, is what takes the end of the file: a block starts at its "@" mark
        # (counted here, before the block's parsing, whose errors bibtexparser logs as its own bugs)
        if self.cap is not None and accept_eof and mark is not None and mark.group(0).startswith("@"):
            if mark.group(0).lower().startswith(_BIBTEX_OTHER_BLOCKS):
                self.others += 1
                count, what = self.others, "@string, @preamble and @comment blocks"
            else:
                self.entries += 1
                count, what = self.entries, "entries"
            if count > self.cap:
                raise TooManyEntries(self.cap, self._current_line + 1, what)  # the line entries are read at
        return mark


def read_bibtex(text: str, max_entries: int | None = None) -> list[LibraryEntry]:
    stack = [*default_parse_stack(), SeparateCoAuthors(), SplitNameParts()]
    library = _CappedSplitter(text, max_entries).split()  # what bibtexparser.parse_string does, the split capped
    for step in stack:
        library = step.transform(library=library)
    entries: list[Entry] = list(library.entries)
    for failed in library.failed_blocks:
        if isinstance(failed, DuplicateBlockKeyBlock) and isinstance(failed.ignore_error_block, Entry):
            # two entries under one key are still two entries; the parser left the second one raw (quotes, names)
            entry: Any = failed.ignore_error_block
            for middleware in stack:
                if isinstance(middleware, BlockMiddleware):
                    entry = middleware.transform_block(entry, library)
                else:  # @string references: resolved against the file's own
                    entry = middleware.transform(Library([*library.strings, entry])).entries[0]
            entries.append(entry)
            continue
        line = (failed.start_line or 0) + 1
        raw = (failed.raw or "").strip().splitlines()
        raise MalformedLibrary(f"a BibTeX entry that cannot be read: {raw[0][:80] if raw else ''}", line)
    return [_bibtex_entry(e) for e in sorted(entries, key=lambda e: e.start_line or 0)]


def _bibtex_entry(entry: Entry) -> LibraryEntry:
    fields = {f.key.lower(): f.value for f in entry.fields}

    def text(name: str) -> str:
        value = fields.get(name)
        return latex_text(value) if isinstance(value, str) else ""

    def verbatim(name: str) -> str:
        value = fields.get(name)
        return _verbatim(value) if isinstance(value, str) else ""

    names = fields.get("author") if isinstance(fields.get("author"), list) else []
    authors = [
        (latex_text(" ".join(n.first)), latex_text(" ".join([*n.von, *n.last])))
        for n in names or []
        if " ".join(n.last).lower() != "others"
    ]
    archive = (text("archiveprefix") or text("eprinttype") or "arxiv").lower()
    eprints = [verbatim(name) for name in ("eprint", "arxivid") if archive == "arxiv" or name == "arxivid"]
    return LibraryEntry(
        line=(entry.start_line or 0) + 1,
        label=entry.key,
        title=text("title"),
        authors=tuple(authors),
        year=_year(text("year") or text("date")),
        dois=_present([verbatim("doi")]),
        eprints=_present(eprints),
        urls=_present([verbatim(name) for name in _BIBTEX_URL_FIELDS]),
        mentions=_present([text(name) for name in _BIBTEX_TEXT_FIELDS]),
    )


@lru_cache(maxsize=1)
def _ris_parser() -> rispy.RisParser:
    return rispy.RisParser()


def read_ris(text: str, max_entries: int | None = None) -> list[LibraryEntry]:
    """RIS through rispy, after a pass that finds where each reference starts (stopping at the one past the cap) and
    what rispy would pass over in silence: text outside a reference, and a reference the file ends inside."""
    parser = _ris_parser()
    starts: list[int] = []
    inside = False
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        tag = parser.parse_line(line)[0] if line.strip() else None
        if tag == parser.START_TAG:
            if inside:
                raise MalformedLibrary("a reference starts (TY) before the one above ends (ER)", number)
            if max_entries is not None and len(starts) == max_entries:
                raise TooManyEntries(max_entries, number)
            starts.append(number)
            inside = True
        elif tag == parser.END_TAG:
            if not inside:
                raise MalformedLibrary("ER ends no reference: no TY line starts it", number)
            inside = False
        elif line.strip() and not inside:
            raise MalformedLibrary(
                f"text outside any reference (one starts with a TY line): {line.strip()[:80]}", number
            )
    if inside:
        raise MalformedLibrary("the file ends inside a reference: its ER line is missing", starts[-1])
    records = rispy.loads("\n".join(lines))
    return [_ris_entry(record, line) for record, line in zip(records, starts, strict=True)]


def _ris_entry(record: dict[str, Any], line: int) -> LibraryEntry:
    def one(*names: str) -> str:
        for name in names:
            value = record.get(name)
            if isinstance(value, list):
                value = value[0] if value else ""
            if value:
                return str(value).strip()
        return ""

    def many(*names: str) -> list[str]:
        values: list[str] = []
        for name in names:
            value = record.get(name)
            values += [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []
        return values

    names = many("authors") or many("first_authors")
    return LibraryEntry(
        line=line,
        label=one("id"),
        title=" ".join(one("title", "primary_title").split()),
        authors=tuple(_ris_name(name) for name in names if name.strip()),
        year=_year(one("year", "publication_year", "date")),
        dois=_present(many("doi")),
        urls=_present(many("urls", "file_attachments1", "file_attachments2", "link_to_pdf")),
        mentions=_present(
            many("note", "notes", "accession_number", "secondary_title", "journal_name", "volume", "type_of_work")
        ),
    )


def _ris_name(name: str) -> tuple[str, str]:
    """RIS writes `Family, Given[, Suffix]`; a name without a comma is one name (an institution, a collaboration)."""
    return split_name(name) if "," in name else ("", " ".join(name.split()))


def read_csl_json(text: str, max_entries: int | None = None) -> list[LibraryEntry]:
    return [_csl_entry(item, line, n) for n, (item, line) in enumerate(_json_items(text, max_entries), start=1)]


def _json_items(text: str, max_entries: int | None = None) -> Iterator[tuple[Any, int]]:
    """The items of a JSON array, each with the line it starts on, decoded one at a time: reading stops at the item
    past the cap (TooManyEntries), and at the first one that is no JSON or nests too deep for the decoder (each
    level of an array or object is a call: 100,000 of them overflow it), which MalformedLibrary names."""
    at = _after_space(text, 0)
    line = text.count("\n", 0, at) + 1
    if not text.startswith("[", at):
        _decoded(text, at, line)  # a JSON error is said as one, before "not an array"
        raise MalformedLibrary("CSL-JSON is an array of items ([{…}, …]); this JSON is not an array", line)
    at = _after_space(text, at + 1)
    counted_to, items = 0, 0
    while not (items == 0 and text.startswith("]", at)):  # an empty array has no items
        line += text.count("\n", counted_to, at)  # counted on from the last item: linear in the file's length
        counted_to = at
        if max_entries is not None and items == max_entries:
            raise TooManyEntries(max_entries, line)
        item, end = _decoded(text, at, line)
        yield item, line
        items += 1
        at = _after_space(text, end)
        if text.startswith("]", at):
            break
        if not text.startswith(",", at):
            raise MalformedLibrary("not JSON: Expecting ',' delimiter", text.count("\n", 0, at) + 1)
        at = _after_space(text, at + 1)
    end = _after_space(text, at + 1)
    if end < len(text):
        raise MalformedLibrary("not JSON: Extra data", text.count("\n", 0, end) + 1)


def _after_space(text: str, at: int) -> int:
    """Where the text goes on after JSON's white space from `at`."""
    space = _JSON_SPACE.match(text, at)
    return space.end() if space else at


def _decoded(text: str, at: int, line: int) -> tuple[Any, int]:
    """The JSON value starting at `at` (on `line`) and where it ends; MalformedLibrary where it breaks."""
    try:
        return _JSON_DECODER.raw_decode(text, at)
    except json.JSONDecodeError as exc:
        raise MalformedLibrary(f"not JSON: {exc.msg}", exc.lineno) from exc
    except RecursionError as exc:
        raise MalformedLibrary("not JSON that can be read: arrays or objects nested too deep", line) from exc


def _csl_entry(item: Any, line: int, number: int) -> LibraryEntry:
    if not isinstance(item, dict):
        raise MalformedLibrary(f"item {number} is not an object", line)

    def text(name: str) -> str:
        value = item.get(name)
        return " ".join(str(value).split()) if isinstance(value, str | int | float) else ""

    authors = []
    for person in item.get("author") or []:
        if not isinstance(person, dict):
            continue
        if person.get("literal"):  # one name, not split: an institution, a collaboration
            authors.append(("", " ".join(str(person["literal"]).split())))
        elif person.get("family"):
            family = " ".join(str(p) for p in (person.get("non-dropping-particle"), person["family"]) if p)
            authors.append((str(person.get("given") or ""), family))
    issued: dict[str, Any] = item["issued"] if isinstance(item.get("issued"), dict) else {}
    parts = issued.get("date-parts") or [[]]
    first = parts[0][0] if parts and isinstance(parts[0], list) and parts[0] else ""
    return LibraryEntry(
        line=line,
        label=text("citation-key") or text("id"),
        title=text("title"),
        authors=tuple(authors),
        year=_year(str(first) or str(issued.get("raw") or issued.get("literal") or "")),
        dois=_present([text("DOI")]),
        urls=_present([text("URL")]),
        mentions=_present([text(n) for n in ("number", "note", "container-title", "archive_location", "publisher")]),
    )


def _present(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.strip() for v in values if v and v.strip()))


def _year(text: str) -> int | None:
    found = _YEAR.search(text)
    return int(found.group(1)) if found else None


# Resolving ---------------------------------------------------------------------------------------------------------


def lookup_keys(entry: LibraryEntry) -> list[LookupKey]:
    """The keys an entry is looked up by, strongest first: DOIs, arXiv ids, ACL ids, then title + first author."""
    keys: list[PaperKey] = []
    for doi in entry.dois:
        keys += _keys([doi])
    keys += [k for k in _keys(entry.eprints, arxiv_prefix=True) if k.field == "ids.arxiv"]
    keys += _keys(entry.urls, urls=True)
    keys += [k for k in _keys(_tokens(entry.mentions)) if k.field == "ids.arxiv"]
    keys += [acl for k in keys if (acl := anthology_key(k))]
    by_strength: list[PaperKey] = sorted(dict.fromkeys(keys), key=lambda k: _FIELD_RANK[k.field])
    ordered: list[LookupKey] = [*by_strength]
    if entry.title:
        ordered += [TitleAuthorKey(fingerprint(entry.title, key)) for key in entry.first_author_keys]
    return ordered


def _keys(texts: Iterable[str], *, arxiv_prefix: bool = False, urls: bool = False) -> list[PaperKey]:
    keys = []
    for text in texts:
        if urls and (anthology := _aclweb_id(text)):
            text = f"acl:{anthology}"
        candidates = [text, f"arxiv:{text}"] if arxiv_prefix and ":" not in text else [text]
        for candidate in candidates:
            try:
                keys.append(paper_key(candidate))
                break
            except NotAPaperId:
                continue
    return keys


def _aclweb_id(url: str) -> str | None:
    """The Anthology id in a URL of the Anthology's old home (`https://www.aclweb.org/anthology/P19-1001.pdf`)."""
    parts = urlsplit(url if "//" in url else f"//{url}")
    if not parts.netloc.lower().endswith("aclweb.org") or not parts.path.startswith("/anthology/"):
        return None
    last = parts.path.rstrip("/").rsplit("/", 1)[-1].removesuffix(".pdf")
    return last or None


def _tokens(texts: Iterable[str]) -> Iterator[str]:
    """The words of free text that could be an id: `arXiv preprint arXiv:2401.12345.` → …, `arXiv:2401.12345`."""
    for text in texts:
        for token in _TOKEN_SPLIT.split(text):
            token = token.rstrip(".:")
            if token:
                yield token.removeprefix("abs/")  # DBLP writes CoRR's volume as abs/<arXiv id>


def resolve(
    entry: LibraryEntry, keys: Sequence[LookupKey], found: Mapping[LookupKey, Sequence[dict[str, Any]]]
) -> Resolution:
    """The verdict on one entry from the papers holding its keys: the first key some paper holds decides. An id
    names one paper (a DOI two papers hold goes to the one `holder` picks, as the API's id lookup does); a title +
    author key several papers share is ambiguous, and the entry lists them."""
    for key in keys:
        candidates = list(found.get(key) or ())
        if not candidates:
            continue
        if isinstance(key, PaperKey):
            chosen = holder(key, candidates)
            assert chosen is not None
            return Resolution(entry, "resolved", chosen["_id"], _RESOLVED_BY[key.field])
        ids = tuple(sorted({c["_id"] for c in candidates}))
        if len(ids) == 1:
            return Resolution(entry, "resolved", ids[0], "title+author")
        return Resolution(entry, "ambiguous", by="title+author", candidates=ids)
    return Resolution(entry, "unresolved")


async def resolve_entries(entries: Sequence[LibraryEntry], finder: PaperFinder, batch: int = 500) -> list[Resolution]:
    """Every entry's verdict, asking the finder once per `batch` entries."""
    resolutions: list[Resolution] = []
    for start in range(0, len(entries), batch):
        chunk = entries[start : start + batch]
        keys = [lookup_keys(entry) for entry in chunk]
        found = await finder.holders(list(dict.fromkeys(k for entry_keys in keys for k in entry_keys)))
        resolutions += [resolve(entry, entry_keys, found) for entry, entry_keys in zip(chunk, keys, strict=True)]
    return resolutions
