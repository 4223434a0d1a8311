"""Citations of real papers (ACL 2024, arXiv OAI pages, the May 2026 listings): keys, BibTeX as arXiv and the ACL
Anthology write it (checked against the Anthology's own entries of the same papers, tests/fixtures/library/ORIGIN.md),
RIS, CSL-JSON valid against the CSL schema."""

import json
import re
from datetime import datetime

import bibtexparser
import jsonschema
import pytest
import rispy

from papertrail.domain.text import squash
from papertrail.domain.venues.claims import venue_claims
from schemas.paper import Paper
from services.query.library import citations
from services.query.library.citations import bibtex_text, citation_keys, export, kind, name_parts, to_csl_json
from tests.support.library_papers import acl_2024, arxiv_oai, corpus_days, red_fm, stored_papers
from tests.support.paths import FIXTURES, SOURCES
from tests.support.sources import acl_records

CSL_SCHEMA = json.loads((FIXTURES / "library/csl-data.json").read_text(encoding="utf-8"))


def every_paper() -> list:
    return [*acl_2024(), *arxiv_oai(), *corpus_days(), red_fm()]


def fields_of(bibtex: str) -> tuple[str, str, dict[str, str]]:
    library = bibtexparser.parse_string(bibtex)
    assert not library.failed_blocks, library.failed_blocks
    [entry] = library.entries
    return entry.entry_type, entry.key, {f.key: f.value for f in entry.fields}


def test_an_arxiv_preprint_is_cited_as_arxiv_exports_it() -> None:
    paper = next(p for p in corpus_days() if p.ids.arxiv == "2604.27073")
    entry_type, key, fields = fields_of(export([paper], "bibtex"))
    assert entry_type == "misc"
    assert key == "ma2026coded"  # family name, year, first word of the title past "On"
    assert list(fields) == ["title", "author", "year", "eprint", "archivePrefix", "primaryClass", "url"]
    assert fields["eprint"] == "2604.27073"
    assert fields["archivePrefix"] == "arXiv"
    assert fields["primaryClass"] == paper.categories[0]
    assert fields["url"] == "https://arxiv.org/abs/2604.27073"
    assert fields["author"] == "Ma, Yinbin and Tuninetti, Daniela"


def anthology_entry(name: str) -> tuple[str, dict[str, str]]:
    """The ACL Anthology's own BibTeX of a paper, as recorded: its type and fields, line wraps squashed."""
    entry_type, _, fields = fields_of((FIXTURES / "library" / name).read_text(encoding="utf-8"))
    return entry_type, {name: squash(value) for name, value in fields.items()}


def cited(paper: Paper) -> tuple[str, dict[str, str]]:
    entry_type, _, fields = fields_of(export([paper], "bibtex"))
    return entry_type, {name: squash(value) for name, value in fields.items()}


def recorded_acl_paper(acl_id: str, volume_file: str = "2024.acl.xml") -> Paper:
    """An ACL paper as the normalizer stores it from a recorded volume file, exactly as recorded (no DOI added)."""
    records = [r for r in acl_records(SOURCES / "acl" / volume_file) if r.record_id == acl_id]
    return stored_papers(records)[0]


def test_an_acl_paper_is_cited_field_for_field_as_the_anthologys_own_bibtex() -> None:
    """2024.acl-long.10 from the volume as recorded on 2024-08-15 (before the Anthology registered DOIs) against the
    Anthology's entry of it copied three days later: every field, in the Anthology's order; the keys differ only."""
    entry_type, genuine = anthology_entry("cscd-ns_anthology.bib")
    assert cited(recorded_acl_paper("2024.acl-long.10")) == (entry_type, genuine)
    assert list(genuine)[:4] == ["title", "author", "editor", "booktitle"]  # the order is compared too


def test_an_acl_paper_with_its_doi_is_cited_as_the_anthology_writes_it_since() -> None:
    """2024.acl-long.11 from the volume as the Anthology holds it since (each paper's `<doi>`) against its entry as
    the Anthology wrote it in 2025: the DOI between url and pages. Since late 2024 the Anthology writes its page's
    address with a closing slash; PaperTrail keeps the address without one (both are the same page)."""
    entry_type, genuine = anthology_entry("dtm_anthology.bib")
    paper = recorded_acl_paper("2024.acl-long.11", "2024.acl-long-10-11.xml")
    written_type, fields = cited(paper)
    assert genuine["url"] == fields["url"] + "/"
    assert (written_type, fields | {"url": genuine["url"]}) == (entry_type, genuine)
    assert fields["doi"] == "10.18653/v1/2024.acl-long.11" == paper.ids.dois[0]


def test_a_findings_paper_is_cited_field_for_field_as_the_anthologys_own_bibtex() -> None:
    """2024.findings-eacl.1 against the Anthology's entry its authors copied: the Findings volume's title, and an
    address with an apostrophe written as the Anthology writes it (`St. Julian{'}s, Malta`)."""
    entry_type, genuine = anthology_entry("chem-finese_anthology.bib")
    assert cited(recorded_acl_paper("2024.findings-eacl.1", "2024.findings-eacl-1.xml")) == (entry_type, genuine)


def test_an_acl_title_keeps_the_letters_the_anthology_marks_and_the_anthologys_fields() -> None:
    """2024.acl-long.534 against the Anthology's entry the MERA authors copied (its abstract left out of their copy):
    `{R}ussian` keeps its capital in a style that lower-cases titles, which `Russian` would not."""
    paper = next(p for p in acl_2024() if p.ids.acl == "2024.acl-long.534")  # with the DOI the Anthology gave it
    entry_type, genuine = anthology_entry("mera_anthology.bib")
    written_type, fields = cited(paper)
    assert fields["title"] == "{MERA}: A Comprehensive {LLM} Evaluation in {R}ussian"
    assert (written_type, {k: v for k, v in fields.items() if k != "abstract"}) == (entry_type, genuine)
    assert "eprint" not in fields  # no arXiv id held


def test_ris_and_csl_json_carry_what_the_anthologys_entry_says() -> None:
    """The same paper in RIS (as Zotero reads a conference paper) and CSL-JSON (as the Anthology's own CSL data
    names the fields): the volume's title, editors, publisher, place, the month, the pages; read off the genuine
    entry, not restated."""
    _, genuine = anthology_entry("dtm_anthology.bib")
    paper = recorded_acl_paper("2024.acl-long.11", "2024.acl-long-10-11.xml")
    editors = genuine["editor"].split(" and ")
    first, last = genuine["pages"].split("--")
    month = datetime.strptime(genuine["month"], "%b").month  # the macro `aug`: 8
    [ris] = rispy.loads(export([paper], "ris"))
    assert ris["type_of_reference"] == "CPAPER" and ris["title"] == genuine["title"]
    assert (ris["secondary_title"], ris["secondary_authors"]) == (genuine["booktitle"], editors)
    assert (ris["publisher"], ris["place_published"]) == (genuine["publisher"], genuine["address"])
    assert (ris["start_page"], ris["end_page"], ris["doi"]) == (first, last, genuine["doi"])
    assert ris["date"] == f"{genuine['year']}/{month:02d}//" and ris["year"] == genuine["year"]
    [csl] = json.loads(export([paper], "csl-json"))
    jsonschema.validate([csl], CSL_SCHEMA)
    assert (csl["type"], csl["title"], csl["container-title"]) == (
        "paper-conference",
        genuine["title"],
        genuine["booktitle"],
    )
    assert [f"{e['family']}, {e['given']}" for e in csl["editor"]] == editors
    assert (csl["publisher"], csl["publisher-place"]) == (genuine["publisher"], genuine["address"])
    assert csl["page"] == f"{first}-{last}" and csl["DOI"] == genuine["doi"]
    assert csl["issued"] == {"date-parts": [[int(genuine["year"]), month]]}


def test_one_work_from_both_sources_is_cited_as_proceedings_with_its_arxiv_id_too() -> None:
    paper = red_fm()
    entry_type, key, fields = fields_of(export([paper], "bibtex"))
    assert (entry_type, key) == ("inproceedings", "huguetcabot2023redfm")
    assert fields["eprint"] == "2306.09802"
    # the family name as the Anthology split it ("Huguet Cabot"), the accent in LaTeX as the Anthology writes it
    assert fields["author"].startswith("Huguet Cabot, Pere-Llu{\\'i}s and Tedeschi, Simone")
    # the proceedings' volume, as the ACL record prints the paper
    assert fields["booktitle"].startswith("Proceedings of the 61st Annual Meeting") and fields["pages"] == "4326--4343"


def test_a_published_arxiv_paper_keeps_arxivs_entry_with_its_doi_and_journal_reference() -> None:
    paper = next(p for p in arxiv_oai() if p.journal_ref and citations.published_doi(p))
    entry_type, _, fields = fields_of(export([paper], "bibtex"))
    assert entry_type == "misc"
    assert fields["doi"] == citations.published_doi(paper)
    assert fields["eprint"] == paper.ids.arxiv


def test_anthology_journals_are_articles_and_everything_else_of_the_anthology_proceedings() -> None:
    printed = acl_2024()[0]
    assert printed.published_in is not None and printed.published_in.kind == kind(printed) == "proceedings"
    journal = printed.published_in.model_copy(update={"kind": "journal"})  # the volume's type says which
    assert kind(printed.model_copy(update={"published_in": journal})) == "journal"
    paper = printed.model_copy(update={"published_in": None})  # stored before its volume was kept: its id says
    assert kind(paper) == "proceedings"
    for journal_id in ("2024.tacl-1.5", "2023.cl-1.3", "Q19-1001", "J19-1001"):
        assert kind(paper.model_copy(update={"ids": paper.ids.model_copy(update={"acl": journal_id})})) == "journal"
    for proceedings_id in ("2024.findings-acl.1", "P19-1001", "W19-0101"):
        changed = paper.model_copy(update={"ids": paper.ids.model_copy(update={"acl": proceedings_id})})
        assert kind(changed) == "proceedings"


def test_latex_specials_are_escaped_formulas_kept_and_every_value_parses_back() -> None:
    assert bibtex_text("50% of A&B's #1 a_b {x} ~ ^ \\") == (
        "50{\\%} of {A{\\&}B's} {\\#}1 a{\\_}b {\\{}x{\\}} {\\textasciitilde} {\\textasciicircum} {\\textbackslash}"
    )
    assert bibtex_text("$\\alpha$-Net for Müller") == '$\\alpha$-Net for M{\\"u}ller'
    assert bibtex_text("大语言模型") == "大语言模型"  # no LaTeX name: kept, BibTeX reads UTF-8
    library = bibtexparser.parse_string(export(every_paper(), "bibtex"))
    assert not library.failed_blocks
    assert len(library.entries) == len(every_paper())


def test_keys_are_ascii_stable_and_told_apart_whatever_the_order() -> None:
    papers = every_paper()
    keys = citation_keys(papers)
    assert len(set(keys)) == len(papers)
    assert all(re.fullmatch(r"[a-z0-9]+", k) for k in keys)
    assert citation_keys(list(reversed(papers))) == list(reversed(keys))
    twins = [k for k in keys if k.startswith("chen2024unified")]
    assert sorted(twins)[:2] == ["chen2024unified", "chen2024unifieda"]
    alone = [p for p, k in zip(papers, keys, strict=True) if k == "chen2024unifieda"]
    assert citation_keys(alone) == ["chen2024unified"]  # a key only gets its letter beside its twin


def test_names_split_where_the_source_split_them() -> None:
    cabot = red_fm().authors[0]
    assert (name_parts(cabot).given, name_parts(cabot).family) == ("Pere-Lluís", "Huguet Cabot")
    collaboration = next(a for p in arxiv_oai() for a in p.authors if a.key == "atlas collaboration")
    assert name_parts(collaboration).given == "" and name_parts(collaboration).family == "ATLAS Collaboration"
    junior = next(a for p in arxiv_oai() for a in p.authors if a.name.endswith(" Jr."))
    assert name_parts(junior).suffix == "Jr."


def test_ris_is_what_rispy_reads_back() -> None:
    papers = [red_fm(), *corpus_days()[:5]]
    records = rispy.loads(export(papers, "ris"))
    assert [r["id"] for r in records] == citation_keys(papers)
    assert records[0]["type_of_reference"] == "CPAPER"
    assert records[0]["authors"][0] == "Huguet Cabot, Pere-Lluís"
    assert records[1]["type_of_reference"] == "GEN"
    assert records[1]["doi"] == f"10.48550/arXiv.{papers[1].ids.arxiv}"
    assert not export(papers, "ris").startswith("1.")


@pytest.mark.parametrize("papers", [every_paper, lambda: [red_fm()]], ids=["all", "one"])
def test_csl_json_is_valid_against_the_csl_schema(papers) -> None:
    items = json.loads(export(papers(), "csl-json"))
    jsonschema.validate(items, CSL_SCHEMA)
    assert {i["type"] for i in items} <= {"article", "paper-conference", "article-journal"}


def test_an_arxiv_preprint_in_csl_json_is_as_zotero_records_one() -> None:
    paper = corpus_days()[0]
    [item] = json.loads(export([paper], "csl-json"))
    assert item["type"] == "article"
    assert item["publisher"] == "arXiv"
    assert item["number"] == f"arXiv:{paper.ids.arxiv}"
    assert item["URL"] == f"https://arxiv.org/abs/{paper.ids.arxiv}"


def _with_comment(paper, comment: str):  # type: ignore[no-untyped-def]
    return paper.model_copy(update={"comments": comment, "venue_claims": venue_claims(comment, None, paper.ids.dois)})


def test_an_arxiv_paper_accepted_at_a_catalogue_venue_is_cited_as_published_keeping_its_eprint() -> None:
    paper = next(p for p in corpus_days() if p.ids.arxiv == "2604.27604")  # "Accepted to ACL 2026 Main Conference"
    entry_type, key, fields = fields_of(export([paper], "bibtex"))
    assert entry_type == "inproceedings" and key.startswith(name_parts(paper.authors[0]).family.lower()[:3])
    assert fields["booktitle"] == "Annual Meeting of the Association for Computational Linguistics {(ACL} 2026)"
    assert fields["year"] == "2026" and fields["eprint"] == "2604.27604" and fields["archivePrefix"] == "arXiv"
    assert "doi" not in fields  # none held: arXiv's own DOI is the preprint's, not the proceedings'
    with_doi = paper.model_copy(update={"ids": paper.ids.model_copy(update={"dois": ["10.18653/v1/2026.acl-long.7"]})})
    assert fields_of(export([with_doi], "bibtex"))[2]["doi"] == "10.18653/v1/2026.acl-long.7"
    [ris] = rispy.loads(export([paper], "ris"))
    assert ris["type_of_reference"] == "CPAPER" and ris["secondary_title"].endswith("(ACL 2026)")
    [csl] = to_csl_json([paper])
    assert csl["type"] == "paper-conference" and csl["container-title"].endswith("(ACL 2026)")


def test_a_workshop_a_submission_or_a_venue_outside_the_catalogue_stays_a_preprint() -> None:
    paper = next(p for p in corpus_days() if p.ids.arxiv == "2604.27604")
    # genuine comments of the May 2026 corpus
    for comment in (
        "16 pages, 7 figures, 12 tables. Accepted to the ICML 2026 Workshop on Hypothesis Testing, Seoul, South "
        "Korea, 2026. Copyright 2026 by the author(s)",
        "8 pages, 4 figures, 5 tables. Submitted to ICML 2026",
    ):
        assert fields_of(export([_with_comment(paper, comment)], "bibtex"))[0] == "misc"
    physics = next(p for p in arxiv_oai() if p.journal_ref == "Phys. Rev. B 89, 024402 (2014) [9 pages]")
    entry_type, _, fields = fields_of(export([physics], "bibtex"))
    assert entry_type == "misc" and fields["note"] == "Phys. Rev. B 89, 024402 (2014) [9 pages]"
