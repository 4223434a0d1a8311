"""What a paper shows and indexes of its authors' institutions, without servers: ROR-matched ones first, each once
in author order; an unmatched affiliation as written; the summary's names only where no author has any; the facet
entries read back; a reader's words matched to the names."""

from papertrail.domain.author_institutions import (
    display_name,
    institution_counts,
    institution_entries,
    institution_ids,
    is_ror_id,
    matches_words,
    paper_institutions,
    read_entry,
    searchable_names,
)
from schemas.paper import AuthorInstitution

# ROR records as ror-community/ror-records holds them (id, name, Chinese label, country)
TSINGHUA = AuthorInstitution(affiliation="Tsinghua University, Tsinghua University", ror="03cve4549",
                             name="Tsinghua University", name_zh="清华大学", country="CN", evidence="name")  # fmt: skip
BAIDU = AuthorInstitution(affiliation="Baidu Ernie-bot", ror="03vs3wt56", name="Baidu (China)", name_zh="百度",
                          country="CN", evidence="name")  # fmt: skip
# the seed site's lab, kept as written when no record is matched
LAB = AuthorInstitution(affiliation="TJUNLP Lab, College of Intelligence and Computing, Tianjin University")


def author(*institutions: AuthorInstitution) -> dict:
    return {"name": "x", "institutions": [i.model_dump(mode="json") for i in institutions]}


def test_institutions_are_shown_once_each_in_author_order_an_unmatched_one_as_written() -> None:
    authors = [author(), author(TSINGHUA), author(BAIDU, TSINGHUA), author(LAB), author(LAB)]
    shown = paper_institutions(authors, [{"name": "Model University", "name_zh": "模型大学"}])
    assert [(i["name"], i["name_zh"], i["ror"]) for i in shown] == [
        ("Tsinghua University", "清华大学", "03cve4549"),
        ("Baidu", "百度", "03vs3wt56"),  # ROR's qualifier for namesakes left out
        ("TJUNLP Lab, College of Intelligence and Computing, Tianjin University", None, None),
    ]
    assert institution_ids(authors) == ["03cve4549", "03vs3wt56"]


def test_the_summarys_names_stand_in_only_where_no_author_has_an_institution() -> None:
    shown = paper_institutions([author(), {"name": "y"}], [{"name": "Tianjin University", "name_zh": "天津大学"}])
    assert shown == [{"name": "Tianjin University", "name_zh": "天津大学", "ror": None}]
    assert paper_institutions([author()]) == []


def test_facet_entries_read_back_with_their_counts() -> None:
    entries = institution_entries([author(TSINGHUA, BAIDU), author(TSINGHUA, LAB)])
    assert entries == ["03cve4549|Tsinghua University|清华大学|CN", "03vs3wt56|Baidu (China)|百度|CN"]
    assert read_entry("not|an|entry|x") is None and read_entry("03cve4549|a|b") is None
    counts, names = institution_counts({entries[0]: 3, entries[1]: 1, "junk": 9})
    assert counts == {"03cve4549": 3, "03vs3wt56": 1}
    assert names["03vs3wt56"] == {"name": "Baidu (China)", "name_zh": "百度", "country": "CN"}
    named = AuthorInstitution(affiliation="a|b", ror="03cve4549", name="A|B")
    assert institution_entries([author(named)]) == ["03cve4549|A/B||"]  # the separator never inside a name


def test_words_match_names_ids_and_chinese() -> None:
    tsinghua = {"ror": "03cve4549", "name": "Tsinghua University", "name_zh": "清华大学"}
    assert all(matches_words(tsinghua, q) for q in ("tsinghua", "Tsing univ", "清华", "03cve4549", " "))
    assert not any(matches_words(tsinghua, q) for q in ("peking", "北京", "singhua"))


def test_ids_names_and_searchable_words() -> None:
    assert is_ror_id("03cve4549") and not is_ror_id("03cve454") and not is_ror_id("https://ror.org/03cve4549")
    assert display_name("Baidu (China)") == "Baidu" and display_name("(X)") == "(X)"
    names = searchable_names([author(TSINGHUA, LAB)], [{"name": "Tsinghua University", "name_zh": "清华大学"}])
    assert names == ["清华大学", "Tsinghua University", "Tsinghua University, Tsinghua University", LAB.affiliation]


def test_an_operators_correction_is_kept_by_the_authors_name_key_and_nothing_else_is() -> None:
    from papertrail.domain.author_institutions import corrected, keep_corrections
    from papertrail.domain.names import make_author

    held = [make_author("Yangning Li").model_copy(update={"institutions": [corrected(TSINGHUA)]}),
            make_author("Zhongli Li").model_copy(update={"institutions": [BAIDU]})]  # fmt: skip
    # a later record lists the authors afresh, another before them, and without the institutions
    later = [make_author("Yinghui Li"), make_author("Yangning Li"), make_author("Zhongli Li")]
    kept = keep_corrections(later, held)
    assert [[i.ror for i in a.institutions] for a in kept] == [[], ["03cve4549"], []]
    assert kept[1].institutions[0].evidence == "correction" and kept[1].institutions[0].source == "correction"
    # written with initials only by another source: the one author of that family name and initial
    assert [[i.ror for i in a.institutions] for a in keep_corrections([make_author("Y. Li")], held)] == [["03cve4549"]]
