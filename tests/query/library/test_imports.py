"""Library files in: real BibTeX, RIS and CSL-JSON files read, their entries' lookup keys, and every exported paper
resolved back to itself through the fake in-memory finder built from real papers."""

import asyncio
import pickle
from collections import Counter
from dataclasses import replace

import bibtexparser
import pytest

from services.query.catalogue.reads.paper_lookup import PaperKey
from services.query.library.citations import FORMATS, CitationFormat, export
from services.query.library.imports import (
    _LATEX_MARKUP,
    FileEntry,
    MalformedLibrary,
    TitleAuthorKey,
    _latex_to_text,
    _walker_context,
    entry_record,
    latex_text,
    lookup_keys,
    read_library,
    resolve,
    resolve_entries,
    stored_entry,
)
from tests.support.library_papers import MemoryFinder, acl_2024, arxiv_oai, corpus_days, red_fm, stored_papers
from tests.support.paths import FIXTURES
from tests.support.sources import acl_records

LIBRARY = FIXTURES / "library"


def every_paper() -> list:
    return [*acl_2024(), *arxiv_oai(), *corpus_days(), red_fm()]


def ids(keys: list) -> list[tuple[str, str]]:
    return [(k.field, k.value) for k in keys if isinstance(k, PaperKey)]


@pytest.mark.parametrize("citation_format", FORMATS)
def test_an_export_imported_again_resolves_every_entry_to_its_own_paper(citation_format: CitationFormat) -> None:
    papers = every_paper()
    entries = read_library(export(papers, citation_format), citation_format)
    resolutions = asyncio.run(resolve_entries(entries, MemoryFinder(papers)))
    assert [r.paper_id for r in resolutions] == [p.id for p in papers]
    assert Counter(r.by for r in resolutions) == {"doi": 1022, "arxiv": 323}  # every paper by its strongest id


@pytest.mark.parametrize("citation_format", FORMATS)
def test_without_ids_an_export_still_resolves_by_title_and_first_author(citation_format: CitationFormat) -> None:
    """The title and names survive the file format (LaTeX escapes, `Family, Given`, institutions, `Jr.`) well enough
    for the normalizer's fingerprint to find each paper again."""
    papers = every_paper()
    entries = read_library(export(papers, citation_format), citation_format)
    resolutions = asyncio.run(resolve_entries(entries, MemoryFinder(papers, by_title_only=True)))
    assert [r.paper_id for r in resolutions] == [p.id for p in papers]
    assert {r.by for r in resolutions} == {"title+author"}


def test_the_anthologys_own_export_resolves_by_doi_by_acl_id_or_by_title_and_authors() -> None:
    [entry] = read_library((LIBRARY / "mera_anthology.bib").read_bytes(), filename="mera_anthology.bib")
    assert entry.title == "MERA: A Comprehensive LLM Evaluation in Russian"
    assert entry.authors[0] == ("Alena", "Fenogenova") and len(entry.authors) == 20
    assert ids(lookup_keys(entry)) == [
        ("ids.dois", "10.18653/v1/2024.acl-long.534"),
        ("ids.acl", "2024.acl-long.534"),
    ]
    with_dois = MemoryFinder(acl_2024())
    as_recorded = MemoryFinder(stored_papers(acl_records()))  # the recorded volume predates the Anthology's DOIs
    title_only = MemoryFinder(acl_2024(), by_title_only=True)
    verdicts = [asyncio.run(resolve_entries([entry], finder))[0] for finder in (with_dois, as_recorded, title_only)]
    assert [(v.paper_id, v.by) for v in verdicts] == [
        ("acl:2024.acl-long.534", "doi"),
        ("acl:2024.acl-long.534", "acl"),
        ("acl:2024.acl-long.534", "title+author"),
    ]


def test_a_hand_kept_bib_file_is_read_whatever_its_style() -> None:
    entries = read_library((LIBRARY / "acl-style-files_custom.bib").read_text(encoding="utf-8"), "bibtex")
    by_label = {e.label: e for e in entries}
    assert list(by_label) == [
        "Aho:72",
        "APA:83",
        "Chandra:81",
        "andrew2007scalable",
        "Gusfield:97",
        "rasooli-tetrault-2015",
        "Ando2005",
        "ct1965",
    ]
    assert by_label["Aho:72"].line == 3
    assert by_label["APA:83"].authors == (("", "American Psychological Association"),)
    assert by_label["andrew2007scalable"].title == "Scalable training of $L_1$-regularized log-linear models"
    assert by_label["Ando2005"].title.startswith("A Framework for Learning") and by_label["Ando2005"].year == 2005
    assert ids(lookup_keys(by_label["Chandra:81"])) == [("ids.dois", "10.1145/322234.322243")]
    # `volume = {arXiv:1503.06733}` and the arXiv URL name one paper
    assert ids(lookup_keys(by_label["rasooli-tetrault-2015"])) == [("ids.arxiv", "1503.06733")]
    assert isinstance(lookup_keys(by_label["Gusfield:97"])[-1], TitleAuthorKey)


def test_a_zotero_bib_export_has_its_latex_read() -> None:
    entries = read_library((LIBRARY / "acl-style-files_zotero.bib").read_bytes(), filename="x.bib")
    huhn, barker, eichler = entries
    assert huhn.title == "AUTONOMOUS AGENTS IN ORGANIZED LOCALITIES: METAMODEL AND CONCEPTUAL ARCHITECTURE"
    assert huhn.authors[2] == ("Gianina", "Gănceanu") and huhn.authors[6] == ("Christian", "Müller-Schloer")
    assert huhn.year == 2010
    assert ids(lookup_keys(barker)) == [("ids.dois", "10.6028/nist.sp.800-59")]  # DOIs compare lower-cased
    assert eichler.authors[2] == ("Jörg", "Eberspächer")


def test_a_ris_file_gives_each_reference_its_line_and_its_arxiv_id_from_t2_and_ur() -> None:
    data = (LIBRARY / "lpcode-mstf_references.ris").read_bytes()
    entries = read_library(data, filename="references.ris")
    assert len(entries) == 21
    assert [e.line for e in entries[:3]] == [1, 13, 29]
    first = entries[0]
    assert first.authors[0] == ("Shinwoo", "Park") and first.year == 2025
    assert ids(lookup_keys(first)) == [("ids.arxiv", "2502.17749")]
    ropgen = next(e for e in entries if e.title.startswith("RoPGen"))
    assert ids(lookup_keys(ropgen)) == [("ids.dois", "10.1145/3510003.3510181"), ("ids.arxiv", "2202.06043")]
    resolutions = asyncio.run(resolve_entries(entries, MemoryFinder(every_paper())))
    assert {r.status for r in resolutions} == {"unresolved"}  # none of these papers is held


def test_manubots_csl_json_names_the_doi_then_the_arxiv_id_then_the_anthology_id() -> None:
    entries = read_library((LIBRARY / "manubot_references_excerpt.json").read_bytes(), filename="references.json")
    assert [e.line for e in entries] == [2, 45, 99]
    assert ids(lookup_keys(entries[0])) == [
        ("ids.dois", "10.18653/v1/2024.bionlp-1.23"),
        ("ids.arxiv", "2301.12473"),
        ("ids.acl", "2024.bionlp-1.23"),
    ]
    assert ids(lookup_keys(entries[1])) == [("ids.arxiv", "2309.16035")]
    assert entries[2].year == 2025 and entries[2].label == "IsQsZP7O"


def test_zoteros_csl_json_with_string_years_and_institutional_authors() -> None:
    entries = read_library((LIBRARY / "zotero_csl_export_excerpt.json").read_text(encoding="utf-8"), "csl-json")
    assert [e.label for e in entries] == ["45", "55", "65"]
    assert {e.year for e in entries} == {1999}
    assert entries[0].authors == (("authorFirst", "authorLast"), ("", "Institutional Author"))
    assert ids(lookup_keys(entries[0])) == [("ids.dois", "10.1234/example.doi")]


def test_an_entry_under_a_key_used_twice_is_still_imported() -> None:
    text = (LIBRARY / "mera_anthology.bib").read_text(encoding="utf-8")
    entries = read_library(text + "\n" + text, "bibtex")
    assert [e.line for e in entries] == [1, 36]
    assert entries[1] == replace(entries[0], line=36)  # read as the first: quotes off, names split, the same DOI


@pytest.mark.parametrize(
    ("data", "library_format", "line", "says"),
    [
        ("@misc{a, title={ok}}\n\n@article{b,\n  title = {unclosed,\n}\n@misc{c, title={x}}\n", "bibtex", 3, "cannot"),
        ("TY  - GEN\nTI  - A title\n", "ris", 1, "ER line is missing"),
        ("TY  - GEN\nTI  - A\nER  -\nstray words\n", "ris", 4, "outside any reference"),
        ("TY  - GEN\nTY  - JOUR\nER  -\n", "ris", 2, "before the one above ends"),
        ('[\n  {"id": "a", "type": "article"},\n  {"id": "b", "type": }\n]', "csl-json", 3, "not JSON"),
        ('{"id": "a"}', "csl-json", 1, "not an array"),
        ('[\n  {"id": "a", "type": "article"},\n  "just text"\n]', "csl-json", 3, "item 2 is not an object"),
        ("   \n", "bibtex", 1, "empty"),
        ("% only a comment\n", "bibtex", 1, "no bibtex entries"),
        (b"TY  - GEN\nTI  - caf\xe9\nER  -\n", "ris", 2, "not UTF-8"),
        ("Dear reader, here is my library.", None, 1, "not a BibTeX, RIS or CSL-JSON file"),
        ("[" * 100_000 + "]" * 100_000, "csl-json", 1, "nested too deep"),  # RecursionError in json
        ('[\n  {"id": "a"},\n  {"note": ' + "[" * 100_000 + "]" * 100_000 + "}\n]", "csl-json", 3, "nested too deep"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_line(
    data: str | bytes, library_format: CitationFormat | None, line: int, says: str
) -> None:
    with pytest.raises(MalformedLibrary, match=says) as refused:
        read_library(data, library_format)
    assert refused.value.line == line
    assert str(refused.value).startswith(f"line {line}: ")


def test_the_format_is_taken_from_the_file_name_else_from_the_text() -> None:
    ris = (LIBRARY / "lpcode-mstf_references.ris").read_text(encoding="utf-8")
    assert len(read_library(ris)) == 21
    csl = (LIBRARY / "manubot_references_excerpt.json").read_text(encoding="utf-8")
    assert len(read_library(csl)) == 3
    assert len(read_library((LIBRARY / "mera_anthology.bib").read_text(encoding="utf-8"))) == 1


def entry_of(title: str) -> FileEntry:
    return FileEntry(line=1, label="x", title=title, authors=(), year=None)


def test_a_title_and_author_several_papers_share_is_ambiguous_and_an_id_is_not() -> None:
    first, second = ({"_id": p.id, "status": p.status, "first_seen": p.first_seen} for p in (acl_2024()[0], red_fm()))
    entry = entry_of("Anything")
    shared_title = TitleAuthorKey("f" * 32)
    verdict = resolve(entry, [shared_title], {shared_title: [first, second]})
    assert (verdict.status, verdict.paper_id) == ("ambiguous", None)
    assert verdict.candidates == tuple(sorted([acl_2024()[0].id, red_fm().id]))
    doi = PaperKey("ids.dois", "10.18653/v1/2023.acl-long.237")  # held by two papers: the one it names wins
    verdict = resolve(entry, [doi, shared_title], {doi: [first, second], shared_title: [first, second]})
    assert (verdict.status, verdict.paper_id, verdict.by) == ("resolved", "acl:2023.acl-long.237", "doi")
    assert resolve(entry, [doi], {}).status == "unresolved"


def test_entries_are_resolved_in_batches_with_one_question_each() -> None:
    papers = [*corpus_days()]
    entries = read_library(export(papers, "ris"), "ris")
    finder = MemoryFinder(papers)
    resolutions = asyncio.run(resolve_entries(entries, finder, batch=100))
    assert len(finder.asked) == -(-len(entries) // 100)
    assert all(r.status == "resolved" for r in resolutions)


def test_ids_are_found_where_each_exporter_writes_them() -> None:
    """Google Scholar's `journal = {arXiv preprint arXiv:…}`, DBLP's `volume = {abs/…}`, biblatex's `eprinttype`,
    Mendeley's `arxivId`, the Anthology's old home on aclweb.org; an eprint of another archive is no arXiv id."""
    text = r"""
@article{scholar, title={A}, author={Maharana, Adyasha}, journal={arXiv preprint arXiv:2402.17753}, year={2024}}
@article{dblp, title={B}, author={Vaswani, Ashish}, journal={CoRR}, volume={abs/1706.03762}, year={2017}}
@online{biblatex, title={C}, author={Doe, Jane}, eprint={2401.12345v2}, eprinttype={arxiv}}
@article{mendeley, title={D}, author={Roe, Rich}, arxivId={hep-th/9901001}}
@inproceedings{aclweb, title={E}, author={Poe, Pat}, url={https://www.aclweb.org/anthology/P19-1001.pdf}}
@article{pubmed, title={F}, author={Low, Lee}, eprint={31234567}, eprinttype={pubmed}}
"""
    entries = {e.label: e for e in read_library(text, "bibtex")}
    assert {label: ids(lookup_keys(e)) for label, e in entries.items()} == {
        "scholar": [("ids.arxiv", "2402.17753")],
        "dblp": [("ids.arxiv", "1706.03762")],
        "biblatex": [("ids.arxiv", "2401.12345")],
        "mendeley": [("ids.arxiv", "hep-th/9901001")],
        "aclweb": [("ids.acl", "P19-1001")],
        "pubmed": [],
    }


def test_a_value_without_latex_markup_reads_as_pylatexenc_reads_it() -> None:
    """The short cut for plain values (most of a .bib) gives what the LaTeX parser gives, on every value and word of
    the real .bib files and of exports of real papers."""
    texts = [export(every_paper(), "bibtex"), *(path.read_text() for path in LIBRARY.glob("*.bib"))]
    values = {"a ' b", 'say "hi"', "x - y", "A!B?", "a\u00a0b", "naïve café", "中文标题", "a\tb\n\nc"}
    for text in texts:
        for entry in bibtexparser.parse_string(text).entries:
            for value in (f.value for f in entry.fields if isinstance(f.value, str)):
                values |= {value, *value.split()}
    plain = [v for v in values if not _LATEX_MARKUP.search(v)]
    assert len(plain) > 1000
    parsed = {v: " ".join(_latex_to_text().latex_to_text(v, latex_context=_walker_context()).split()) for v in plain}
    assert {v: latex_text(v) for v in plain} == parsed
    assert latex_text("x -- y") == "x – y" and latex_text("{\\&} 30\\%") == "& 30%"


def test_an_entry_stored_for_later_reads_back_the_same_and_a_malformed_file_crosses_processes() -> None:
    """What the import stores of an entry (in MongoDB) gives the entry back; MalformedLibrary, raised in the worker
    process that reads the file, keeps its line across the process boundary (pickled)."""
    entries = read_library((LIBRARY / "acl-style-files_zotero.bib").read_bytes())
    assert [stored_entry(e.line, e.label, e.title, entry_record(e)) for e in entries] == entries
    error = pickle.loads(pickle.dumps(MalformedLibrary("no BibTeX entries", 3)))
    assert isinstance(error, MalformedLibrary) and error.line == 3 and str(error) == "line 3: no BibTeX entries"


# Real files repeated past a cap, then something malformed: a reader that stops at the cap never reaches it.
CAPPED = [
    ("bibtex", ("acl-style-files_custom.bib", "mera_anthology.bib"), "@article{b,\n  title = {unclosed,\n}\n"),
    ("ris", ("lpcode-mstf_references.ris",), "stray words\n"),
    ("csl-json", ("manubot_references_excerpt.json", "zotero_csl_export_excerpt.json"), '{"id": }'),
]


def repeated(library_format: CitationFormat, names: tuple[str, ...], copies: int, tail: str = "") -> str:
    """The real files one after another, `copies` times, then `tail`: CSL-JSON's items joined into one array."""
    texts = [(LIBRARY / name).read_text(encoding="utf-8") for name in names]
    if library_format != "csl-json":
        return "\n".join(texts * copies) + "\n" + tail
    items = [text.strip().removeprefix("[").removesuffix("]").strip() for text in texts]
    return "[\n" + ",\n".join([*(items * copies), *([tail] if tail else [])]) + "\n]"


@pytest.mark.parametrize(("library_format", "names", "tail"), CAPPED)
def test_reading_stops_at_the_first_entry_past_the_cap_and_names_its_line(
    library_format: CitationFormat, names: tuple[str, ...], tail: str
) -> None:
    """A file of more entries than an import takes is refused at the entry past the cap (its line named, so the
    reader knows where to split): what follows is never read, here a malformed entry the whole parse would refuse."""
    from services.query.library.imports import TooManyEntries

    each = len(read_library(repeated(library_format, names, 1), library_format))
    cap = 2 * each
    whole = read_library(repeated(library_format, names, 3), library_format)  # what the first entries are
    with pytest.raises(MalformedLibrary):
        read_library(repeated(library_format, names, 3, tail), library_format)
    with pytest.raises(TooManyEntries) as refused:
        read_library(repeated(library_format, names, 3, tail), library_format, max_entries=cap)
    assert (refused.value.cap, refused.value.line) == (cap, whole[cap].line)
    assert f"more than {cap:,} entries" in str(refused.value) and str(refused.value).startswith(
        f"line {whole[cap].line}"
    )
    assert len(read_library(repeated(library_format, names, 2), library_format, max_entries=cap)) == cap  # at the cap


def test_a_bib_file_of_more_string_or_comment_blocks_than_the_cap_is_refused_too() -> None:
    """@string, @preamble and @comment blocks are no entries, but reading each costs as much: the same cap holds."""
    from services.query.library.imports import TooManyEntries

    entry = (LIBRARY / "mera_anthology.bib").read_text(encoding="utf-8")
    strings = "".join(f"@string{{s{n} = {{x}}}}\n@comment{{c{n}}}\n" for n in range(3))
    assert len(read_library(strings + entry, "bibtex", max_entries=6)) == 1
    with pytest.raises(TooManyEntries, match="more than 5 @string, @preamble and @comment blocks") as refused:
        read_library(strings + entry, "bibtex", max_entries=5)
    assert refused.value.line == 6


def test_too_many_entries_crosses_processes() -> None:
    """TooManyEntries is raised in the worker process that reads the file: it keeps its cap and line, pickled."""
    from services.query.library.imports import TooManyEntries

    error = pickle.loads(pickle.dumps(TooManyEntries(50, 7, "entries")))
    assert isinstance(error, TooManyEntries) and (error.cap, error.line, error.what) == (50, 7, "entries")
    assert str(error).startswith("line 7: the file holds more than 50 entries")
