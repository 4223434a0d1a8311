"""Written paper ids → the key papers hold them under, and which holder answers; without servers."""

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.query.catalogue.reads.paper_lookup import (
    MAX_ID_LENGTH,
    PAPER_ID_FORMS,
    NotAPaperId,
    PaperKey,
    holder,
    paper_key,
)

ARXIV = PaperKey("ids.arxiv", "2212.09999")
ACL = PaperKey("ids.acl", "2023.acl-long.2")
DOI = PaperKey("ids.dois", "10.18653/v1/2023.acl-long.2")
SICI = PaperKey("ids.dois", "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0")  # an old-style DOI


@pytest.mark.parametrize(
    ("written", "key"),
    [
        ("arxiv:2212.09999", ARXIV),
        ("2212.09999", ARXIV),
        ("https://export.arXiv.org/ABS/2212.09999v3/", ARXIV),
        ("2212.09999v2", ARXIV),
        ("arXiv:2212.09999v12", ARXIV),
        ("ARXIV:2212.09999V1", ARXIV),
        (" arxiv:2212.09999 ", ARXIV),
        ("https://arxiv.org/abs/2212.09999v3", ARXIV),
        ("http:/arxiv.org/pdf/2212.09999v1.pdf", ARXIV),  # a proxy folded the //
        ("10.48550/arXiv.2212.09999", ARXIV),  # arXiv's own DOI names the arXiv paper
        ("doi:10.48550/ARXIV.2212.09999", ARXIV),
        ("https://doi.org/10.48550/arXiv.2212.09999", ARXIV),
        ("arxiv:hep-th/9901001v2", PaperKey("ids.arxiv", "hep-th/9901001")),
        ("math.GT/0309136", PaperKey("ids.arxiv", "math.GT/0309136")),
        ("10.48550/arXiv.hep-th/9901001", PaperKey("ids.arxiv", "hep-th/9901001")),
        ("acl:2023.acl-long.2", ACL),
        ("2023.acl-long.2", ACL),
        ("ACL:2023.ACL-Long.2", ACL),
        ("https://aclanthology.org/2023.acl-long.2/", ACL),
        ("https://aclanthology.org/2023.acl-long.2.pdf", ACL),
        ("HTTPS://WWW.ACLANTHOLOGY.ORG/2023.ACL-LONG.2.pdf/", ACL),
        ("https://aclanthology.org/P19-1001.pdf", PaperKey("ids.acl", "P19-1001")),
        ("P19-1001", PaperKey("ids.acl", "P19-1001")),
        ("acl:W19-5301", PaperKey("ids.acl", "W19-5301")),
        ("10.18653/v1/2023.acl-long.2", DOI),
        ("10.18653/V1/2023.ACL-LONG.2", DOI),
        ("doi:10.18653/v1/2023.acl-long.2", DOI),
        ("DOI:10.18653/v1/2023.acl-long.2", DOI),
        ("https://doi.org/10.18653/v1/2023.acl-long.2", DOI),
        ("https://dx.doi.org/10.18653/V1/2023.acl-long.2", DOI),
        ("https:/doi.org/10.18653/v1/2023.acl-long.2", DOI),
        ("doi.org/10.18653/v1/2023.acl-long.2", DOI),
        ("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0", SICI),
        # arXiv's DOI prefix before what is no arXiv id is a DOI still: no paper holds it (404, not 422)
        ("10.48550/arXiv.2212", PaperKey("ids.dois", "10.48550/arxiv.2212")),
    ],
)
def test_every_written_form_of_an_id_finds_its_key(written: str, key: PaperKey) -> None:
    assert paper_key(written) == key


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("", "an empty paper id"),
        ("   ", "an empty paper id"),
        ("hello", "'hello' is not a paper id"),
        ('{"$ne": null}', "is not a paper id"),
        ("arxiv:12.34", "'12.34' is not an arXiv id such as 2401.12345"),
        ("arxiv:2212.09999v", "is not an arXiv id"),
        ("arxiv:", "'' is not an arXiv id"),
        ("doi:11.1234/x", "'11.1234/x' is not a DOI such as 10.18653/v1/2024.acl-long.1"),
        ("10.1/x", "is not a DOI"),
        ("10.18653/v1 2023", "is not a DOI"),
        ("10.1234/caf\u00e9", "is not a DOI"),  # printable ASCII only, as the API's document states
        ("\u0662\u0664\u0660\u0661.12345", "is not a paper id"),  # digits are 0-9, not any script's
        ("acl:drop table", "is not an ACL Anthology id"),
        ("acl:x", "is not an ACL Anthology id"),
        ("https://arxiv.org/abs/not-an-id", "is not an arXiv id"),
        ("arxiv:2212.09999\n", None),  # trailing whitespace is only whitespace
        ("arxiv:2212.0\x009999", "control characters"),
        ("10.1234/" + "x" * 400, "longer than 300 characters"),
    ],
)
def test_text_that_is_no_paper_id_is_refused_naming_the_problem(written: str, problem: str | None) -> None:
    if problem is None:
        assert paper_key(written) == ARXIV
        return
    with pytest.raises(NotAPaperId) as refused:
        paper_key(written)
    assert problem in str(refused.value)


@given(
    number=st.from_regex(r"\A[0-9]{4}\.[0-9]{4,5}\Z"),
    version=st.one_of(st.just(""), st.integers(1, 99).map(lambda n: f"v{n}")),
    form=st.sampled_from(["{}", "arxiv:{}", "arXiv:{}", "https://arxiv.org/abs/{}", "10.48550/arXiv.{}"]),
)
def test_an_arxiv_id_in_any_form_and_version_is_the_same_key(number: str, version: str, form: str) -> None:
    if form.startswith("10.48550") and version:
        version = ""  # arXiv's DOIs name the paper, not a version
    assert paper_key(form.format(number + version)) == PaperKey("ids.arxiv", number)


@given(doi=st.from_regex(r"\A10\.[0-9]{4,9}/[A-Za-z0-9._;()/:-]{1,40}\Z"))
def test_a_doi_in_any_case_and_any_prefix_is_the_same_key(doi: str) -> None:
    if doi.lower().startswith("10.48550/arxiv."):
        return  # arXiv's own DOIs become arXiv ids (above)
    expected = PaperKey("ids.dois", doi.lower())
    for written in (doi, doi.upper(), f"doi:{doi}", f"https://doi.org/{doi.swapcase()}"):
        assert paper_key(written) == expected


ANY_FORM = re.compile(f"(?:{PAPER_ID_FORMS})")
# the characters ids are written in, and some that no id holds, for text near an id
NEAR_AN_ID = st.text(alphabet=st.sampled_from("0123456789.-/:vVaAxXiIrRcClLdDoOpPsSgGhHtTwW_ é"), max_size=40)


def accepted(text: str) -> bool:
    try:
        paper_key(text)
    except NotAPaperId:
        return False
    return True


@given(written=st.from_regex(ANY_FORM, fullmatch=True).filter(lambda text: len(text) <= MAX_ID_LENGTH))
def test_every_text_of_the_stated_forms_is_a_paper_id(written: str) -> None:
    """PAPER_ID_FORMS (the pattern the API's document gives a paper id) claims nothing paper_key refuses."""
    assert accepted(written)


@given(written=st.one_of(NEAR_AN_ID, st.from_regex(ANY_FORM, fullmatch=True).flatmap(lambda id: mutated(id))))
def test_a_paper_id_is_of_the_stated_forms(written: str) -> None:
    """And paper_key takes nothing the pattern does not state (space around it aside)."""
    assert accepted(written) == bool(ANY_FORM.fullmatch(written.strip()) and len(written.strip()) <= MAX_ID_LENGTH)


def mutated(written: str) -> st.SearchStrategy[str]:
    """`written` with a character dropped, doubled or replaced, or cut short: text one slip away from an id."""
    places = st.integers(0, max(len(written) - 1, 0))
    return st.one_of(
        places.map(lambda at: written[:at] + written[at + 1 :]),
        places.map(lambda at: written[:at] + written[at : at + 1] * 2 + written[at + 1 :]),
        st.tuples(places, st.characters(codec="utf-8")).map(lambda p: written[: p[0]] + p[1] + written[p[0] + 1 :]),
        places.map(lambda at: written[:at]),
    )


def test_a_key_names_the_canonical_id_of_a_paper_first_known_by_it() -> None:
    assert ARXIV.canonical == "arxiv:2212.09999"
    assert ACL.canonical == "acl:2023.acl-long.2"
    assert DOI.canonical == "doi:10.18653/v1/2023.acl-long.2"


def _paper(paper_id: str, status: str, day: int) -> dict[str, object]:
    return {"_id": paper_id, "status": status, "first_seen": datetime(2024, 1, day, tzinfo=UTC)}


def test_a_doi_held_by_two_papers_answers_the_one_it_names_else_the_published_one_seen_first() -> None:
    preprint = _paper("arxiv:2212.09999", "preprint", 1)
    published_late = _paper("acl:2023.acl-long.2", "published", 9)
    published_early = _paper("arxiv:2301.00001", "published", 5)
    named = _paper("doi:10.18653/v1/2023.acl-long.2", "preprint", 20)
    assert holder(DOI, [preprint, published_late]) is published_late
    assert holder(DOI, [published_late, published_early, preprint]) is published_early
    assert holder(DOI, [published_early, named]) is named
    assert holder(ARXIV, [preprint]) is preprint
    assert holder(ARXIV, []) is None


def test_a_published_records_own_canonical_ids_are_looked_up_by_their_field() -> None:
    """A paper first known from PMLR or DBLP is named `openreview:…`, `pmlr:…` or `dblp:…` (issue 24 §3)."""
    for written, field in (
        ("openreview:QY7Au9nZwp", "ids.openreview"),
        ("pmlr:v267/acharya25a", "ids.pmlr"),
        ("dblp:conf/acl/ChangSRM23", "ids.dblp"),
    ):
        key = paper_key(written)
        assert (key.field, key.canonical) == (field, written)
    with pytest.raises(NotAPaperId):
        paper_key("pmlr:<script>")
