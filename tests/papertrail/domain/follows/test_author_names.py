"""Authors told apart by the full name as written: the name keys author pages use, and how an author follow's name
agrees with a paper's author (papertrail/domain/names.py, papertrail/domain/follows/authors.py). The names are real:
from the May
2026 arXiv corpus (/work/shared/corpus) and the ACL Anthology's 2024.acl.xml (tests/fixtures/sources/acl)."""

from datetime import UTC, datetime

import pytest

from papertrail.domain.follows.authors import author_rule, given_names_match
from papertrail.domain.follows.reasons import reason_text
from papertrail.domain.follows.rules import FollowIndex, PaperText
from papertrail.domain.names import display_name_key, initials_only, make_author, name_key, split_name
from papertrail.domain.text import fold
from papertrail.runtime.wording import Translator
from schemas.events import Follow, MatchReason
from schemas.paper import Author
from services.normalizer.parsers.acl import parse_acl
from tests.support.sources import acl_records

EN = Translator("en")  # the language of the reasons in digests and feeds

NOW = datetime(2026, 5, 20, tzinfo=UTC)


@pytest.mark.parametrize(
    ("name", "key", "initial_key"),
    [
        # the ~30 Li of initial Y in 2024.acl.xml were one author page ("li y") before
        ("Yinghui Li", "li yinghui", "li y"),
        ("Li, Yinghui", "li yinghui", "li y"),
        ("Yafu Li", "li yafu", "li y"),
        ("Yang Li", "li yang", "li y"),
        ("Yangning Li", "li yangning", "li y"),
        ("Y.k. Li", "li y k", "li y"),  # DeepSeekMoE (2024.acl-long.70)
        ("H. Li", "li h", "li h"),  # a bare initial keeps the key it had: old pages' URLs name it
        # hyphens and spacing inside a given name do not split it; accents and case are folded
        ("Yu-Feng Li", "li yufeng", "li y"),
        ("Yufeng Li", "li yufeng", "li y"),
        ("Wei-Qiang Zhang", "zhang weiqiang", "zhang w"),
        ("Hervé Goëau", "goeau herve", "goeau h"),
        ("GOEAU, Herve", "goeau herve", "goeau h"),
        ("S. M. Hadi Sadati", "sadati s m hadi", "sadati s"),
        ("Pere-Lluís Huguet Cabot", "cabot perelluishuguet", "cabot p"),
    ],
)
def test_name_keys_tell_full_names_apart(name: str, key: str, initial_key: str) -> None:
    assert display_name_key(name) == key
    assert make_author(name).key == initial_key  # the coarse key (pairing, fingerprints) is unchanged


def test_a_source_s_own_split_gives_the_same_name_key() -> None:
    # the Anthology writes <first>Y.k.</first><last>Li</last>; arXiv writes "Y.k. Li"
    acl = make_author("Y.k. Li", given="Y.k.", family="Li")
    assert display_name_key(acl.name) == name_key("Y.k.", "Li") == display_name_key("Y.k. Li")


@pytest.mark.parametrize(
    ("name", "only"), [("Y. Li", True), ("Y.k. Li", True), ("Li", True), ("Yinghui Li", False), ("Y. Kun Li", False)]
)
def test_initials_only(name: str, only: bool) -> None:
    assert initials_only(name) is only


def _given(name: str) -> tuple[str, ...]:
    return tuple(fold(split_name(name)[0]).split())


@pytest.mark.parametrize(
    ("followed", "author", "agreement"),
    [
        ("Yinghui Li", "Yinghui Li", "name"),
        ("Li, Yinghui", "Yinghui Li", "name"),
        ("Yu-Feng Li", "Yufeng Li", "name"),
        ("Wei Zhang", "Wei-Qiang Zhang", "name"),  # a second given name left out
        ("Yinghui Li", "Y. Li", "initial"),  # a bare initial: could be any of them
        ("Y. Li", "Yangning Li", "initial"),
        ("Y. Li", "Y.k. Li", "initial"),
        ("Li", "Yafu Li", "family"),
        ("S. M. Sadati", "Sayed Mohammad Sadati", "initials"),
        ("Yinghui Li", "Y.k. Li", None),  # Y.k. names a second given name Yinghui does not have
        ("Yinghui Li", "Yafu Li", None),
        ("Yang Li", "Yangning Li", None),
        ("Wei Zhang", "Wen Zhang", None),
    ],
)
def test_given_names_agree_as_written_through_initials_or_not_at_all(
    followed: str, author: str, agreement: str | None
) -> None:
    assert given_names_match(_given(followed), _given(author)) == agreement
    assert given_names_match(_given(author), _given(followed)) == agreement  # the same either way round


def follow(follow_id: str, author: str, **pins: str) -> Follow:
    return Follow.model_validate(
        {"id": follow_id, "user_id": "u1", "kind": "author", "name": author, "author": author, "created_at": NOW,
         **pins}
    )  # fmt: skip


def acl_paper(record_id: str) -> PaperText:
    raw = next(r for r in acl_records() if r.record_id == record_id)
    parsed = parse_acl(raw.content)
    return PaperText.build(f"acl:{record_id}", parsed.title, parsed.abstract, parsed.categories, parsed.authors)


DEEPSEEK_MOE = "2024.acl-long.70"  # "DeepSeekMoE: …", by … Y.k. Li …
CHARACTER_CHECKING = "2024.acl-long.469"  # "Towards Real-World Writing Assistance: …", by Yinghui Li …
YAFU_LI = "2024.acl-long.3"  # by Yafu Li …


def test_a_follow_of_yinghui_li_matches_neither_y_k_li_nor_yafu_li() -> None:
    """Before, "Yinghui Li" matched DeepSeekMoE through "Y.k. Li": the initial Y agreed and the K went unread."""
    index = FollowIndex()
    index.upsert(follow("yinghui", "Yinghui Li"))
    deepseek, yafu, own = acl_paper(DEEPSEEK_MOE), acl_paper(YAFU_LI), acl_paper(CHARACTER_CHECKING)
    assert "Y.k. Li" in [a.name for a in deepseek.authors] and "Yafu Li" in [a.name for a in yafu.authors]
    assert index.match(deepseek) == [] and index.match_naive(deepseek) == []
    assert index.match(yafu) == []
    assert [reasons for _, reasons in index.match(own)] == [[MatchReason(term="Yinghui Li", field="authors")]]


def test_a_bare_initial_matches_and_says_so() -> None:
    index = FollowIndex()
    index.upsert(follow("y-li", "Y. Li"))
    [(_, reasons)] = index.match(acl_paper(CHARACTER_CHECKING))
    assert reasons == [  # both Li of initial Y on the paper, and each reason says what it rests on
        MatchReason(term="Yinghui Li", field="authors", name_match="initial"),
        MatchReason(term="Yangning Li", field="authors", name_match="initial"),
    ]
    assert reason_text(reasons[0].model_dump(), EN) == "author Yinghui Li (initial only)"
    index.upsert(follow("yinghui", "Yinghui Li"))
    bare = PaperText.build("arxiv:x", "t", "a", [], [Author(name="Y. Li", key="li y")])
    assert [(f.id, r) for f, r in index.match(bare)] == [
        ("y-li", [MatchReason(term="Y. Li", field="authors")]),  # the same name as written
        ("yinghui", [MatchReason(term="Y. Li", field="authors", name_match="initial")]),
    ]


def test_an_initial_is_no_evidence_when_the_author_is_known_by_an_id() -> None:
    """A bare initial matches a full name only when nothing finer is known on its side: an author the source
    identifies (an ACL Anthology id, an ORCID) is left to follows pinned to that id."""
    index = FollowIndex()
    index.upsert(follow("yinghui", "Yinghui Li"))
    index.upsert(follow("pinned", "Yinghui Li", source_author_id="acl:yinghui-li"))
    identified = Author(name="Y. Li", key="li y", source_ids={"acl": "yinghui-li"})
    with_orcid = Author(name="Y. Li", key="li y", orcid="0000-0002-1825-0097")
    hf_entry = Author(name="Y. Li", key="li y", source_ids={"hf": "68c8cece"})  # one paper's author entry
    found = {
        who: {f.id for f, _ in index.match(PaperText.build("arxiv:x", "t", "a", [], [author]))}
        for who, author in [("identified", identified), ("orcid", with_orcid), ("hf", hf_entry)]
    }
    assert found == {"identified": {"pinned"}, "orcid": set(), "hf": {"yinghui"}}
    # the full name side knows more: a follow of a bare initial still takes an identified author's full name
    index.upsert(follow("y-li", "Y. Li"))
    full = Author(name="Yinghui Li", key="li y", source_ids={"acl": "yinghui-li"})
    assert {f.id for f, _ in index.match(PaperText.build("arxiv:x", "t", "a", [], [full]))} == {
        "yinghui", "pinned", "y-li"
    }  # fmt: skip


def test_a_stored_follow_keeps_its_name_and_compiles_as_before() -> None:
    """Follows store the name as the reader wrote it, never a key: nothing to migrate, and the candidates' key is the
    coarse one, so every paper it could match is still looked at."""
    rule = author_rule("Zhang, Wei")
    assert (rule.key, rule.given) == ("zhang w", ("wei",))
