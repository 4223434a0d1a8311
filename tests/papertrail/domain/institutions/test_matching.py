"""Affiliation strings matched to ROR records: the rules on a catalogue of genuine records (tests/fixtures/ror), and
genuine affiliations of the ACL Anthology and arXiv (bench/ror_sample.jsonl, bench/ror_heldout*.jsonl) against the
shipped catalogue."""

from pathlib import Path

import pytest

from papertrail.domain.institutions.matching import InstitutionMatcher, match_author, shipped_matcher, with_institutions
from papertrail.domain.names import make_author
from papertrail_tools.ror_catalogue import build

RECORDS = Path(__file__).resolve().parents[3] / "fixtures/ror/ror-records"


@pytest.fixture(scope="module")
def small() -> InstitutionMatcher:
    return InstitutionMatcher(build(RECORDS).catalogue.institutions.values())


def matched(matcher: InstitutionMatcher, affiliation: str, emails: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    return [(i.ror or "", i.evidence or "") for i in matcher.match(affiliation, emails)]


@pytest.mark.parametrize(
    ("affiliation", "expected"),
    [
        # a department keeps its words and links its university
        ("Department of Computer Science and Technology, Tsinghua University", [("03cve4549", "parent")]),
        ("Tsinghua University, Tsinghua University", [("03cve4549", "name")]),
        # the Chinese label, the unit's words around it (the issue's own example)
        ("天津大学智能与计算学院TJUNLP实验室", [("012tb2g32", "parent")]),
        ("TJUNLP Lab, College of Intelligence and Computing, Tianjin University", [("012tb2g32", "parent")]),
        ("清华大学", [("03cve4549", "label")]),
        ("中国科学院计算技术研究所", [("0090r4d87", "label")]),  # not the academy its name holds
        # an institute and the academy it belongs to: the institute is the more specific
        ("Institute of Computing Technology, Chinese Academy of Sciences", [("0090r4d87", "name")]),
        # a name two records share (Beijing's and Germany's), settled by the parent named beside it
        ("Institute of automation, Chinese academy of science", [("022c3hy66", "name")]),
        ("Institute of Automation", [("", "")]),
        ("THU", [("03cve4549", "acronym")]),
        ("Google", [("00njsd438", "name")]),  # the group, not its Australian company
        ("Honda R&D Co., Ltd.", [("", "")]),  # Honda (Germany) is not Honda
        (
            "Department of Physical Science, Graduate School of Science, Osaka Prefecture University, Osaka, Japan",
            [("02cf1je33", "parent")],
        ),  # inactive since its merger, still named by older papers
        ("Department of Computer Science", [("", "")]),
    ],
)
def test_rules_on_genuine_records(small: InstitutionMatcher, affiliation: str, expected: list[tuple[str, str]]) -> None:
    assert matched(small, affiliation) == expected


def test_a_department_goes_with_the_institution_written_after_it_alone() -> None:
    affiliation = (
        "Department of Computer Science, University of Massachusetts at Amherst, Imperial College London, "
        "National Technical University of Athens and Microsoft"
    )
    assert [(i.ror, i.evidence) for i in shipped_matcher().match(affiliation)] == [
        ("0072zz521", "parent"),
        ("041kmwe10", "name"),
        ("03cx6bg69", "name"),
        ("00d0nc645", "name"),
    ]


def test_a_match_carries_the_record_and_keeps_the_words(small: InstitutionMatcher) -> None:
    [found] = small.match("天津大学智能与计算学院TJUNLP实验室")
    assert found.affiliation == "天津大学智能与计算学院TJUNLP实验室"
    assert (found.name, found.name_zh, found.country) == ("Tianjin University", "天津大学", "CN")


def test_email_domains_count_only_where_the_words_name_nothing(small: InstitutionMatcher) -> None:
    words = "Department of Computer Science"
    assert matched(small, words, ("wang@mails.tsinghua.edu.cn",)) == [("03cve4549", "domain")]
    assert matched(small, words, ("wang@gmail.com",)) == [("", "")]
    assert matched(small, "Tianjin University", ("wang@mails.tsinghua.edu.cn",)) == [("012tb2g32", "name")]


def test_an_author_in_order_one_institution_once_with_the_source(small: InstitutionMatcher) -> None:
    institutions = match_author(
        ["Tianjin University", "Institute of Computing Technology", "Tianjin University", "Unknown Lab"],
        source="acl",
        matcher=small,
    )
    assert [(i.affiliation, i.ror, i.source) for i in institutions] == [
        ("Tianjin University", "012tb2g32", "acl"),
        ("Institute of Computing Technology", "0090r4d87", "acl"),
        ("Unknown Lab", None, "acl"),
    ]


def test_authors_without_affiliations_are_left_as_they_are(small: InstitutionMatcher) -> None:
    plain = make_author("Wei Zhang")
    affiliated = make_author("Li Wang", affiliations=["Tsinghua University"])
    authors = with_institutions([plain, affiliated], source="arxiv", matcher=small)
    assert authors[0] is plain
    assert [i.ror for i in authors[1].institutions] == ["03cve4549"]
    assert with_institutions([plain], source="arxiv") == [plain]  # nothing to match: the catalogue is not loaded


@pytest.mark.parametrize(
    ("affiliation", "expected"),
    [
        ("Dept. of Astronomy - Yonsei University", ["01wjejq96"]),
        ("Univ of Alberta", ["0160cpw27"]),
        ("Caltech", ["05dxps055"]),
        ("CfA", ["03c3r2d17"]),  # as written: "CFA" is another record's
        ("The University of Tokyo and The University of Tokyo", ["057zh3y96"]),
        (
            "Amazon.com, Johns Hopkins University and The Hong Kong University of Science and Technology",
            ["04mv4n011", "00za53h95", "00q4vv597"],
        ),
        ("Meta (FAIR)", ["01zbnvs85"]),  # the bracket is Meta's lab, not the antiproton facility FAIR
        ("Chittagong University of Engineering and Technology", ["052qsay17"]),  # "&" in ROR's name
        (
            "Department of Computer Science and Engineering, Hong Kong University of Science and Technology",
            ["00q4vv597"],
        ),
        # names inside a longer name the registry lacks are not that institution
        (
            "Mohamed bin Zayed University of Artificial Intelligence and Technical University of Darmstadt",
            ["05n911h24"],
        ),
        # two affiliations joined by "and", one a unit of the other in ROR: both are the author's
        ("Hasso Plattner Institute and University of Potsdam", ["058rn5r42", "03bnmw459"]),
        ("University of Massachusetts at Amherst", ["0072zz521"]),
        ("Skolkovo Institute of Science and Technology", []),
        ("NOVA School of Science and Technology", []),
        ("Northeastern University", []),  # Boston's or Shenyang's: not said
        # "in" written or not, as "at": "Washington University in St. Louis"
        ("Washington University, St. Louis", ["01yc7t268"]),
        # a name written without its country: "United States Naval Research Laboratory"
        ("Naval Research Lab", ["04d23a975"]),
        # each part of a dashed alias: "University of Tromsø - The Arctic University of Norway"
        ("University of Tromsø and Transmute AI Research", ["00wge5k78"]),
        # a one-word part is a place, not the record ("Charlottesville – Albemarle Association …", "BCF - INDIA")
        ("University of Virginia, Charlottesville", ["0153tk833"]),
        ("Indian Institute of Technology Patna, India", ["01ft5vz71"]),
        # a letter the source lost, as the accented letter the catalogue's names have there
        ("Universit\ufffd Paris-Saclay", ["03xjwb503"]),
        # an acronym in other capitals than its record's ("LaHC"), when no record has it as written
        ("LAHC", ["0028p8r67"]),
        # an acronym leading a unit's name: its institution; two letters are too few ("AI" is the Art Institute's)
        ("ZHAW School of Engineering", ["05pmsvm27"]),
        ("AI lab", []),
        # British and American spellings are one ("Defence" in the string, "Defense" in ROR's name), so the name is
        # not read as Serbia's "University of Defence" inside it
        ("National University of Defence Technology", ["05d2yfz11"]),
        # a university is in the country the affiliation ends with: not Bujumbura's "École Normale Supérieure"
        ("DMA, École normale supérieure, Université PSL, CNRS, 75005 Paris, France", ["03k9z2963"]),
        # an observatory's owner may be elsewhere (Carnegie Observatories, US, in Chile)
        (
            "Las Campanas Observatory, Carnegie Observatories, Casilla 601, La Serena, 7820436, Chile",
            ["042ga5208", "03h4zjr91"],
        ),
    ],
)
def test_genuine_affiliations_against_the_shipped_catalogue(affiliation: str, expected: list[str]) -> None:
    assert [i.ror for i in shipped_matcher().match(affiliation) if i.ror] == expected


def test_a_unit_led_by_its_institution_s_acronym_links_the_institution() -> None:
    [found] = shipped_matcher().match("ZHAW School of Engineering")
    assert (found.ror, found.evidence, found.affiliation) == ("05pmsvm27", "parent", "ZHAW School of Engineering")
