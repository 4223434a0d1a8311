"""A paper as a citation: BibTeX, RIS and CSL-JSON, each entry under a stable citation key. Pure.

arXiv preprints come out as arXiv's own "Export BibTeX Citation" writes them (`@misc` with `eprint`,
`archivePrefix = {arXiv}`, `primaryClass`, `url`); ACL Anthology papers as the Anthology's own BibTeX writes them
(`@inproceedings` with the volume's title as `booktitle`, or `@article` with `journal` for TACL and Computational
Linguistics), from the volume the paper's published record prints it in (`published_in`): the title with its case
marks, editors, month, year, address, publisher, url, DOI, pages and abstract, in the Anthology's order. RIS and
CSL-JSON carry the same: the volume's title, editors, publisher and place, the month, pages and DOI. An ACL paper
stored before its record kept the volume is cited with its venue ("ACL 2024") as `booktitle` until its record comes
again (docs/operations.md).

An arXiv paper accepted at a venue of the catalogue (its published record, or an accepted claim of its journal
reference, DOI or comment: papertrail/domain/venues/accepted.py) is cited as published there: `@inproceedings` with the
venue's name and edition as `booktitle` (`@article` with `journal` for a journal), the edition's year and the
published DOI when the paper holds one, keeping its `eprint`. A workshop or a submission leaves it a preprint (a
workshop at ICML is not the ICML proceedings, a submission no publication), and so does a venue outside the
catalogue: a journal reference is free text ("Phys. Rev. B 89, 024402"), kept as a note.
"""

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import bibtexparser
import rispy
from bibtexparser import model

# Name keys come from the normalizer, which made them; they move to the shared package with the restructuring.
from papertrail.domain.names import author_key, split_name
from papertrail.domain.paper_ids import ARXIV_OWN_DOI
from papertrail.domain.text import latex_encoded
from papertrail.domain.venues.accepted import AcceptedVenue, accepted_venues
from papertrail.domain.venues.catalogue import default_index
from schemas.paper import Author, Paper, PublishedIn

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


# The months as a printed volume names them; their first three letters are BibTeX's macros (`month = aug`).
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")  # fmt: skip
_PAGE_RANGE = re.compile(r"(?<=[0-9])[-–—]+(?=[0-9])")


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
    """The proceedings' or journal's title: as the volume the paper is printed in names it ("Proceedings of the 62nd
    Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)"), else the venue as an
    ACL record holds it ("ACL 2024"), or the catalogue's name of the venue accepted at with its edition
    ("International Conference on Machine Learning (ICML 2026)")."""
    printed = paper.published_in
    if printed is not None and printed.kind == "proceedings":
        return printed.booktitle
    if printed is not None and printed.journal:  # a journal's volume is titled "…, Volume 12": the journal is not
        return printed.journal
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
    """What a citation calls the paper: an ACL Anthology paper is proceedings or a journal article (as its volume
    says, else by its collection), a paper accepted at a venue (its publication) that venue's proceedings or
    journal, any other a preprint."""
    if paper.published_in is not None:
        return paper.published_in.kind
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
    return re.sub(r"\S+", _brace_capitals, latex_encoded(text))


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
    if not name.given:  # one name: braced, or BibTeX would take its last word for the family name
        return f"{{{latex_encoded(name.family)}}}"
    parts = [name.family, name.suffix, name.given] if name.suffix else [name.family, name.given]
    return ", ".join(map(latex_encoded, parts))


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
    paper_kind = kind(paper)
    printed = paper.published_in
    fields = _printed_fields(paper, printed, paper_kind) if printed else _bibtex_fields(paper, paper_kind)
    if marks is not None:
        fields += [
            model.Field("keywords", bibtex_text(", ".join(marks.tags))),
            model.Field("annote", bibtex_text(marks.note.strip())),
        ]
    entry_type = {"preprint": "misc", "proceedings": "inproceedings", "journal": "article"}[paper_kind]
    return model.Entry(entry_type, key, [field for field in fields if field.value])


def _bibtex_fields(paper: Paper, paper_kind: Kind) -> list[model.Field]:
    """A preprint as arXiv writes it, or a paper published at a venue of the catalogue (or an ACL paper stored
    before its volume was kept) with that venue's name as its container."""
    fields = [("title", bibtex_text(paper.title)), ("author", bibtex_names(paper.authors))]
    if paper_kind == "proceedings":
        fields.append(("booktitle", bibtex_text(container_title(paper))))
    elif paper_kind == "journal":
        fields.append(("journal", bibtex_text(container_title(paper))))
    fields.append(("year", str(paper_year(paper))))
    fields += _eprint_fields(paper)
    if doi := published_doi(paper):
        fields.append(("doi", bibtex_verbatim(doi)))
    if paper_kind == "preprint" and paper.journal_ref:
        fields.append(("note", bibtex_text(paper.journal_ref)))
    if url := paper_url(paper):
        fields.append(("url", bibtex_verbatim(url)))
    return [model.Field(name, value) for name, value in fields]


def _printed_fields(paper: Paper, printed: PublishedIn, paper_kind: Kind) -> list[model.Field]:
    """A paper as the volume printing it is cited, in the fields and order of the ACL Anthology's own BibTeX: the
    title as printed (its case marks braced), editors, the volume's title (a journal's name, volume and number),
    month, year, address, publisher, url, DOI, pages (`146--159`), then the arXiv id when held, and the abstract."""
    head = [
        ("title", printed.title_latex),
        ("author", bibtex_names(paper.authors)),
        ("editor", bibtex_names(printed.editors)),
    ]
    if paper_kind == "journal":
        journal = latex_encoded(printed.journal) if printed.journal else bibtex_text(container_title(paper))
        head += [("journal", journal), ("volume", printed.volume or ""), ("number", printed.issue or "")]
    else:
        head.append(("booktitle", printed.booktitle_latex))
    tail = [
        ("year", str(paper_year(paper))),
        ("address", latex_encoded(printed.address or "")),
        ("publisher", latex_encoded(printed.publisher or "")),
        ("url", bibtex_verbatim(paper_url(paper) or "")),
        ("doi", bibtex_verbatim(published_doi(paper) or "")),
        ("pages", _PAGE_RANGE.sub("--", printed.pages or "")),
        *_eprint_fields(paper),
        ("abstract", latex_encoded(paper.abstract)),
    ]
    month = [_month_field(printed.month)] if printed.month else []
    return [model.Field(name, value) for name, value in head] + month + [model.Field(n, v) for n, v in tail]


def _month_field(month: str) -> model.Field:
    """A month BibTeX names as its macro, unquoted (`month = aug`); any other text as printed."""
    number = _month_number(month)
    if number is None:
        return model.Field("month", latex_encoded(month))
    return model.Field("month", _MONTHS[number - 1][:3], enclosing="no-enclosing")


def _eprint_fields(paper: Paper) -> list[tuple[str, str]]:
    if not paper.ids.arxiv:
        return []
    fields = [("eprint", paper.ids.arxiv), ("archivePrefix", "arXiv")]
    return fields + ([("primaryClass", paper.categories[0])] if paper.categories else [])


def _month_number(month: str | None) -> int | None:
    """A printed month's number (`August` → 8, `aug` → 8), None when it names no single month."""
    text = (month or "").strip().casefold()
    return next((n for n, name in enumerate(_MONTHS, 1) if text in (name, name[:3])), None)


def _page_range(pages: str | None) -> tuple[str, str]:
    """`146-159` → ("146", "159"); a single page → (page, "")."""
    first, _, last = _PAGE_RANGE.sub("-", pages or "").partition("-")
    return first.strip(), last.strip()


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
    printed = paper.published_in
    if printed is not None:
        record |= _ris_printed(paper, printed)
    if doi := published_doi(paper) if printed else any_doi(paper):
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


def _ris_printed(paper: Paper, printed: PublishedIn) -> dict[str, Any]:
    """What the volume printing a paper adds to its RIS reference: the title as printed, the editors (A2), publisher,
    place (CY), pages (SP, EP), a journal's volume and issue, and the month (`DA  - 2024/08//`)."""
    first, last = _page_range(printed.pages)
    month = _month_number(printed.month)
    record = {
        "title": printed.title,
        "secondary_authors": [_ris_name(name_parts(editor)) for editor in printed.editors],
        "publisher": printed.publisher,
        "place_published": printed.address,
        "start_page": first,
        "end_page": last,
        "volume": printed.volume,
        "number": printed.issue,
    }
    # RIS dates are YYYY/MM/DD/other; the volume gives the month, not the day
    return record | ({"date": f"{paper_year(paper)}/{month:02d}//"} if month else {})


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
    printed = paper.published_in
    if printed is not None:
        item |= _csl_printed(paper, printed)
    if doi := published_doi(paper) if printed else any_doi(paper):
        item["DOI"] = doi
    if url := paper_url(paper):
        item["URL"] = url
    if paper.abstract:
        item["abstract"] = paper.abstract
    return item


def _csl_printed(paper: Paper, printed: PublishedIn) -> dict[str, Any]:
    """What the volume printing a paper adds to its CSL item, as the Anthology's own CSL data names it: the title as
    printed, `editor`, `publisher`, `publisher-place`, `page`, a journal's `volume` and `issue`; and the month."""
    month = _month_number(printed.month)
    item: dict[str, Any] = {
        "title": printed.title,
        "editor": [_csl_name(editor) for editor in printed.editors],
        "publisher": printed.publisher,
        "publisher-place": printed.address,
        "page": printed.pages,
        "volume": printed.volume,
        "issue": printed.issue,
        "issued": {"date-parts": [[paper_year(paper), month] if month else [paper_year(paper)]]},
    }
    return {name: value for name, value in item.items() if value}


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
