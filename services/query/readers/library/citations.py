"""A paper as a citation: BibTeX, RIS and CSL-JSON, each entry under a stable citation key. Pure.

arXiv preprints come out as arXiv's own "Export BibTeX Citation" writes them (`@misc` with `eprint`,
`archivePrefix = {arXiv}`, `primaryClass`, `url`); ACL Anthology papers as the Anthology writes them
(`@inproceedings` with `booktitle`, or `@article` with `journal` for TACL and Computational Linguistics), with `url`
and `doi`. What a paper record does not keep is left out rather than guessed: the Anthology's page range, month,
address, publisher and editors, and the volume's full title (the booktitle is the venue as papers hold it,
"ACL 2024").

An arXiv paper accepted at a venue of the catalogue (its published record, or an accepted claim of its journal
reference, DOI or comment: papertrail/venues/accepted.py) is cited as published there: `@inproceedings` with the
venue's name and edition as `booktitle` (`@article` with `journal` for a journal), the edition's year and the
published DOI when the paper holds one, keeping its `eprint`. A workshop or a submission leaves it a preprint (a
workshop at ICML is not the ICML proceedings, a submission no publication), and so does a venue outside the
catalogue: a journal reference is free text ("Phys. Rev. B 89, 024402"), kept as a note. Page ranges are not held.
"""

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import bibtexparser
import rispy
from bibtexparser import model
from pylatexenc.latexencode import UnicodeToLatexEncoder

# Name keys come from the normalizer, which made them; they move to the shared package with the restructuring.
from papertrail.names import author_key, split_name
from papertrail.paper_ids import ARXIV_OWN_DOI
from papertrail.venues.accepted import AcceptedVenue, accepted_venues
from papertrail.venues.catalogue import default_index
from schemas.paper import Author, Paper

CitationFormat = Literal["bibtex", "ris", "csl-json"]
FORMATS: tuple[CitationFormat, ...] = ("bibtex", "ris", "csl-json")
MEDIA_TYPES: dict[CitationFormat, str] = {
    "bibtex": "application/x-bibtex",
    "ris": "application/x-research-info-systems",
    "csl-json": "application/vnd.citationstyles.csl+json",
}
FILE_EXTENSIONS: dict[CitationFormat, str] = {"bibtex": "bib", "ris": "ris", "csl-json": "json"}

# Words a citation key skips to reach the first word that says what the paper is about (as Google Scholar's keys).
_STOPWORDS = frozenset(
    "a an the on of in for to and or with from by at as is are be can do does via towards toward into onto "
    "what when where which who why how we our your its it this that these those not no".split()
)
_KEY_LETTERS = re.compile(r"[^a-z0-9]")
# A formula in a title as arXiv metadata writes one: kept whole in BibTeX (it is LaTeX already), escaped nowhere.
_FORMULA = re.compile(r"\$\$.+?\$\$|\$(?:[^$\\]|\\.)+\$", re.DOTALL)
# Journals of the ACL Anthology: TACL and Computational Linguistics, by the collection of the Anthology id
# (`2024.tacl-1.5`, `2024.cl-1.3`; before 2020 `Q19-1001`, `J19-1001`); every other volume is proceedings.
_ACL_JOURNALS = frozenset({"tacl", "cl"})
_ACL_OLD_JOURNAL_LETTERS = ("Q", "J")

Kind = Literal["preprint", "proceedings", "journal"]


@lru_cache(maxsize=1)
def _latex_encoder() -> UnicodeToLatexEncoder:
    # Braces around every replacement keep `{\"u}ller` one letter for BibTeX's sorting and case changes; characters
    # LaTeX has no name for (Chinese, say) stay as they are: biber and modern BibTeX read UTF-8.
    return UnicodeToLatexEncoder(
        non_ascii_only=False,
        replacement_latex_protection="braces-all",
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


def _ascii_word(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return _KEY_LETTERS.sub("", "".join(c for c in decomposed if not unicodedata.combining(c)))


def paper_year(paper: Paper) -> int:
    """The year a citation gives: the record's year of publication, else the year of the venue it was accepted at,
    else its first version's, else when first seen."""
    if paper.year:
        return paper.year
    accepted = publication(paper)
    return accepted.year if accepted and accepted.year else (paper.published_at or paper.first_seen).year


def publication(paper: Paper) -> AcceptedVenue | None:
    """Where a paper that is no ACL Anthology record was published: the first catalogue venue and edition it was
    accepted at (its published record before its claims), other than a workshop. A venue the catalogue does not hold
    is free text ("Phys. Rev. B 89, 024402"), which says neither proceedings nor journal: the paper stays a preprint
    with its journal reference as a note."""
    if paper.ids.acl:
        return None
    found = accepted_venues(paper)
    return next((v for v in found if v.venue_key and v.track != "workshop" and v.year is not None), None)


def _is_journal(accepted: AcceptedVenue) -> bool:
    venue = default_index().venues.get(accepted.venue_key) if accepted.venue_key else None
    return accepted.track == "journal" or (venue is not None and venue.type == "journal")


def container_title(paper: Paper) -> str:
    """The proceedings' or journal's title: the venue as an ACL record holds it ("ACL 2024"), or the catalogue's name
    of the venue accepted at with its edition ("International Conference on Machine Learning (ICML 2026)")."""
    accepted = publication(paper)
    if accepted is None:
        return paper.venue or ""
    venue = default_index().venues.get(accepted.venue_key) if accepted.venue_key else None
    return accepted.label if venue is None or venue.name == venue.acronym else f"{venue.name} ({accepted.label})"


@dataclass(frozen=True, slots=True)
class NameParts:
    """An author's name as citations write it: `Family, Given` (and `Jr.` after the family name, in BibTeX)."""

    given: str
    family: str
    suffix: str = ""


_SUFFIXES = frozenset({"Jr.", "Jr", "Sr.", "Sr", "II", "III", "IV"})


def name_parts(author: Author) -> NameParts:
    """An author's name split where the source split it: the name's key was made from that split ("Pere-Lluís Huguet
    Cabot", key "huguet cabot p" → family "Huguet Cabot"; "ATLAS Collaboration", key "atlas collaboration" → one family
    name). A name the key does not explain is split by the normalizer's rule."""
    words = author.name.split()
    suffix = words.pop() if len(words) > 2 and words[-1] in _SUFFIXES else ""
    for given_words in range(len(words) - 1, -1, -1):
        given, family = " ".join(words[:given_words]), " ".join(words[given_words:])
        if author_key(given, family) == author.key:
            return NameParts(given, family, suffix)
    return NameParts(*split_name(author.name))


def base_key(paper: Paper) -> str:
    """First author's family name + year + first significant title word, ASCII-folded: `vaswani2017attention`."""
    family = name_parts(paper.authors[0]).family if paper.authors else ""
    surname = _ascii_word(family) or "anon"
    title_words = (_ascii_word(word) for word in _FORMULA.sub(" ", paper.title).replace("-", " ").split())
    word = next((w for w in title_words if w and w not in _STOPWORDS and not w.isdigit()), "")
    return f"{surname}{paper_year(paper)}{word}"


def citation_keys(papers: Sequence[Paper]) -> list[str]:
    """Each paper's key, in the papers' order. Papers sharing a base key are told apart by the order of their ids
    (the first keeps the base key, the next get `a`, `b`, …), so a paper's key does not depend on the order asked in."""
    by_base: dict[str, list[str]] = {}
    for paper in papers:
        by_base.setdefault(base_key(paper), []).append(paper.id)
    taken = set(by_base)
    keys_by_id: dict[str, str] = {}
    for base, ids in by_base.items():
        for n, paper_id in enumerate(sorted(set(ids))):
            key = base
            if n:
                key = next(k for k in (base + _suffix(i) for i in range(n - 1, n + 10_000)) if k not in taken)
                taken.add(key)
            keys_by_id[paper_id] = key
    return [keys_by_id[p.id] for p in papers]


def _suffix(n: int) -> str:
    """a, b, …, z, aa, ab, …"""
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def kind(paper: Paper) -> Kind:
    """What a citation calls the paper: an ACL Anthology paper is proceedings or a journal article, a paper accepted at
    a venue (its publication) that venue's proceedings or journal, any other a preprint."""
    acl = paper.ids.acl
    if not acl:
        accepted = publication(paper)
        if accepted is None:
            return "preprint"
        return "journal" if _is_journal(accepted) else "proceedings"
    if acl[:1].isdigit():
        collection = acl.split("-", 1)[0].split(".", 1)[-1]
        return "journal" if collection in _ACL_JOURNALS else "proceedings"
    return "journal" if acl.startswith(_ACL_OLD_JOURNAL_LETTERS) else "proceedings"


def published_doi(paper: Paper) -> str | None:
    """The DOI of the published work, if the paper holds one other than arXiv's own."""
    return next((d for d in paper.ids.dois if not ARXIV_OWN_DOI.match(d)), None)


def any_doi(paper: Paper) -> str | None:
    """The published work's DOI, else the DOI arXiv registers for the preprint (as Zotero records one)."""
    if doi := published_doi(paper):
        return doi
    return f"10.48550/arXiv.{paper.ids.arxiv}" if paper.ids.arxiv else None


def paper_url(paper: Paper) -> str | None:
    if kind(paper) != "preprint" and paper.ids.acl:
        return paper.links.get("anthology") or f"https://aclanthology.org/{paper.ids.acl}"
    if paper.ids.arxiv:
        return paper.links.get("abs") or f"https://arxiv.org/abs/{paper.ids.arxiv}"
    return paper.links.get("abs") or paper.links.get("doi")


# BibTeX ---------------------------------------------------------------------------------------------------------


def bibtex_text(text: str) -> str:
    """Text as a BibTeX value: LaTeX specials and accents escaped (`&` → `{\\&}`, `ü` → `{\\"u}`), formulas kept as
    written, and words with capitals past their first letter braced (`{BERT}`) so bibliography styles keep them."""
    parts, last = [], 0
    for formula in _FORMULA.finditer(text):
        parts += [_protected(text[last : formula.start()]), formula.group(0)]
        last = formula.end()
    parts.append(_protected(text[last:]))
    return "".join(parts)


def _protected(text: str) -> str:
    return re.sub(r"\S+", _brace_capitals, _latex_encoder().unicode_to_latex(text))


def _brace_capitals(word: re.Match[str]) -> str:
    letters = [c for c in word[0] if c.isalpha()]
    return f"{{{word[0]}}}" if any(c.isupper() for c in letters[1:]) else word[0]


def bibtex_verbatim(text: str) -> str:
    """A URL or a DOI as a BibTeX value: kept as written (biblatex reads both verbatim), but a brace or a backslash,
    which would end or escape the value, percent-encoded as a URL would have it."""
    return text.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")


def bibtex_names(authors: Sequence[Author]) -> str:
    """Authors as `Family, Given and …`: unambiguous for multi-word family names. Names are not braced like title
    words: BibTeX abbreviates `Pere-Lluís` to `P.-L.` only when it sees both parts."""
    return " and ".join(_bibtex_name(name_parts(author)) for author in authors)


def _bibtex_name(name: NameParts) -> str:
    encode = _latex_encoder().unicode_to_latex
    if not name.given:  # one name: braced, or BibTeX would take its last word for the family name
        return f"{{{encode(name.family)}}}"
    parts = [name.family, name.suffix, name.given] if name.suffix else [name.family, name.given]
    return ", ".join(map(encode, parts))


@dataclass(frozen=True, slots=True)
class ShelfMarks:
    """What the reader wrote on a saved paper, exported with its citation: tags as `keywords`, the note as
    `annote` (BibTeX's field for a reader's annotation; `note` stays the citation's own)."""

    tags: tuple[str, ...] = ()
    note: str = ""
    key: str | None = None  # the citation key of the file the paper was imported from: `\cite`s written with it


_CITATION_KEY = re.compile(r"^[A-Za-z0-9_:./+\-]{1,100}$")  # what BibTeX, RIS and CSL all take as a key


def citation_key_ok(key: str) -> bool:
    return bool(_CITATION_KEY.match(key))


def entry_keys(papers: Sequence[Paper], marks: Sequence["ShelfMarks | None"] | None) -> list[str]:
    """Each paper's key: the imported one where the reader has one (once: a second paper with the same imported key
    gets its own), else its own stable key (citation_keys), told apart from the imported ones."""
    own = citation_keys(papers)
    imported = [m.key if m is not None else None for m in marks] if marks is not None else [None] * len(papers)
    taken = {key for key in imported if key}
    used: set[str] = set()
    keys = []
    for own_key, key in zip(own, imported, strict=True):
        if key and key not in used:
            used.add(key)
            keys.append(key)
            continue
        chosen = own_key
        n = 0
        while chosen in taken or chosen in used:
            chosen, n = own_key + _suffix(n), n + 1
        used.add(chosen)
        keys.append(chosen)
    return keys


def bibtex_entry(paper: Paper, key: str, marks: ShelfMarks | None = None) -> model.Entry:
    fields = [("title", bibtex_text(paper.title)), ("author", bibtex_names(paper.authors))]
    paper_kind = kind(paper)
    if paper_kind == "proceedings":
        fields.append(("booktitle", bibtex_text(container_title(paper))))
    elif paper_kind == "journal":
        fields.append(("journal", bibtex_text(container_title(paper))))
    fields.append(("year", str(paper_year(paper))))
    if paper.ids.arxiv:
        fields += [("eprint", paper.ids.arxiv), ("archivePrefix", "arXiv")]
        if paper.categories:
            fields.append(("primaryClass", paper.categories[0]))
    if doi := published_doi(paper):
        fields.append(("doi", bibtex_verbatim(doi)))
    if paper_kind == "preprint" and paper.journal_ref:
        fields.append(("note", bibtex_text(paper.journal_ref)))
    if url := paper_url(paper):
        fields.append(("url", bibtex_verbatim(url)))
    if marks is not None:
        fields += [("keywords", bibtex_text(", ".join(marks.tags))), ("annote", bibtex_text(marks.note.strip()))]
    entry_type = {"preprint": "misc", "proceedings": "inproceedings", "journal": "article"}[paper_kind]
    return model.Entry(entry_type, key, [model.Field(name, value) for name, value in fields if value])


def to_bibtex(papers: Sequence[Paper], marks: Sequence[ShelfMarks | None] | None = None) -> str:
    library = bibtexparser.Library()
    shelf = marks if marks is not None else [None] * len(papers)
    for paper, key, mark in zip(papers, entry_keys(papers, marks), shelf, strict=True):
        library.add(bibtex_entry(paper, key, mark))
    return bibtexparser.write_string(library)


# RIS ------------------------------------------------------------------------------------------------------------


def ris_record(paper: Paper, key: str) -> dict[str, Any]:
    """One RIS reference as rispy names its tags: Zotero's types (GEN for a preprint, CPAPER, JOUR)."""
    paper_kind = kind(paper)
    record: dict[str, Any] = {
        "type_of_reference": {"preprint": "GEN", "proceedings": "CPAPER", "journal": "JOUR"}[paper_kind],
        "id": key,
        "title": paper.title,
        "authors": [_ris_name(name_parts(author)) for author in paper.authors],
        "year": str(paper_year(paper)),
    }
    if paper.published_at:
        record["date"] = paper.published_at.strftime("%Y/%m/%d")
    if paper_kind == "preprint":
        if paper.ids.arxiv:
            record |= {"publisher": "arXiv", "note": f"arXiv:{paper.ids.arxiv}"}
    else:
        record["secondary_title"] = container_title(paper)
    if doi := any_doi(paper):
        record["doi"] = doi
    if url := paper_url(paper):
        record["urls"] = [url]
    if paper.abstract:
        record["abstract"] = paper.abstract
    if paper_kind == "preprint" and paper.journal_ref:
        record["notes"] = [paper.journal_ref]
    if paper.categories:
        record["keywords"] = list(paper.categories)
    return {name: value for name, value in record.items() if value}


class _RisWriter(rispy.RisWriter):
    """rispy's RIS writer without the `1.` line it puts before each reference, which RIS does not define and Zotero
    does not write."""

    def set_header(self, count: int) -> str:
        return ""


def _ris_name(name: NameParts) -> str:
    """`Family, Given[, Suffix]`; a name without a given name stays whole, without a comma (an institution)."""
    return ", ".join(part for part in (name.family, name.given, name.suffix) if part)


def to_ris(papers: Sequence[Paper], marks: Sequence[ShelfMarks | None] | None = None) -> str:
    records = [ris_record(p, key) for p, key in zip(papers, entry_keys(papers, marks), strict=True)]
    return rispy.dumps(records, implementation=_RisWriter) if records else ""


# CSL-JSON -------------------------------------------------------------------------------------------------------


def csl_item(paper: Paper, key: str) -> dict[str, Any]:
    """One CSL-JSON item, as Zotero exports a preprint (`article`, publisher arXiv, number `arXiv:…`), a conference
    paper (`paper-conference`) or a journal article (`article-journal`)."""
    paper_kind = kind(paper)
    published = paper.published_at
    date_parts = [published.year, published.month, published.day] if published else [paper_year(paper)]
    if published and paper.year and published.year != paper.year:
        date_parts = [paper.year]
    item: dict[str, Any] = {
        "id": key,
        "citation-key": key,
        "type": {"preprint": "article", "proceedings": "paper-conference", "journal": "article-journal"}[paper_kind],
        "title": paper.title,
        "author": [_csl_name(author) for author in paper.authors],
        "issued": {"date-parts": [date_parts]},
    }
    if paper_kind == "preprint":
        if paper.ids.arxiv:
            item |= {"publisher": "arXiv", "number": f"arXiv:{paper.ids.arxiv}"}
        if paper.journal_ref:
            item["note"] = paper.journal_ref
    elif title := container_title(paper):
        item["container-title"] = title
    if doi := any_doi(paper):
        item["DOI"] = doi
    if url := paper_url(paper):
        item["URL"] = url
    if paper.abstract:
        item["abstract"] = paper.abstract
    return item


def _csl_name(author: Author) -> dict[str, str]:
    name = name_parts(author)
    if not name.given:
        return {"literal": name.family}
    return {"family": name.family, "given": name.given} | ({"suffix": name.suffix} if name.suffix else {})


def to_csl_json(papers: Sequence[Paper], marks: Sequence[ShelfMarks | None] | None = None) -> list[dict[str, Any]]:
    return [csl_item(p, key) for p, key in zip(papers, entry_keys(papers, marks), strict=True)]


def export(
    papers: Sequence[Paper], citation_format: CitationFormat, marks: Sequence[ShelfMarks | None] | None = None
) -> str:
    """The papers as one file of the format, entries in the papers' order, each under the key the reader imported it
    with if any (`marks`, one per paper); BibTeX carries the reader's tags and note as keywords and annote."""
    if citation_format == "bibtex":
        return to_bibtex(papers, marks)
    if citation_format == "ris":
        return to_ris(papers, marks)
    return json.dumps(to_csl_json(papers, marks), ensure_ascii=False, indent=2) + "\n"
