"""Institution follows on a genuine ACL 2024 paper (2024.acl-long.469: the Anthology's affiliations, matched by
reading to their ROR records): a follow of an institution an author is at matches once, whatever the number of its
authors there, with the reason "an author at Tsinghua University" / "作者来自 清华大学"; another institution, an
unmatched affiliation or a category filter not met make no match; the engine and the naive loop agree."""

from datetime import UTC, datetime

import pytest

from papertrail.domain.follows.checks import FollowRuleError
from papertrail.domain.follows.kinds import check_follow
from papertrail.domain.follows.reasons import reason_text
from papertrail.domain.follows.rules import FollowIndex, PaperText, match_one
from papertrail.domain.names import make_author
from papertrail.runtime.wording import Translator
from schemas.events import Follow
from schemas.paper import AuthorInstitution, Paper, PaperIds
from services.query.web.format import reason_text as page_reason_text

EN = Translator("en")  # the language of the reasons in digests and feeds

NOW = datetime(2026, 5, 20, tzinfo=UTC)
TSINGHUA = AuthorInstitution(affiliation="Tsinghua University, Tsinghua University", ror="03cve4549",
                             name="Tsinghua University", name_zh="清华大学", country="CN", evidence="name")  # fmt: skip
SYSU = AuthorInstitution(affiliation="SUN YAT-SEN UNIVERSITY", ror="0064kty71", name="Sun Yat-sen University",
                         name_zh="中山大学", country="CN", evidence="name")  # fmt: skip
UNMATCHED = AuthorInstitution(affiliation="Baidu Ernie-bot")  # as a matcher unsure of it would keep it


def paper(*institutions: list[AuthorInstitution]) -> Paper:
    names = ["Yangning Li", "Hai-Tao Zheng", "Ying Shen"]
    authors = [make_author(n).model_copy(update={"institutions": i}) for n, i in zip(names, institutions, strict=False)]
    return Paper(
        id="acl:2024.acl-long.469", ids=PaperIds(acl="2024.acl-long.469"), title="Towards Real-World Writing "
        "Assistance", authors=authors, categories=["cs.CL"], first_seen=NOW, updated_at=NOW,
    )  # fmt: skip


def follow(follow_id: str, ror: str, **fields: object) -> Follow:
    return Follow.model_validate({"id": follow_id, "user_id": "u1", "kind": "institution", "name": follow_id,
                                  "institution": ror, "created_at": NOW, **fields})  # fmt: skip


@pytest.fixture
def index() -> FollowIndex:
    found = FollowIndex()
    found.upsert(follow("thu", "03cve4549"))
    found.upsert(follow("thu-cv", "03cve4549", categories=["cs.CV"]))
    found.upsert(follow("sysu", "0064kty71"))
    found.upsert(follow("pku", "02v51f717"))
    return found


def test_a_paper_with_authors_there_matches_once_with_the_institutions_name(index: FollowIndex) -> None:
    item = paper([TSINGHUA], [TSINGHUA], [SYSU, UNMATCHED])
    found = {f.id: reasons for f, reasons in index.match(item)}
    assert sorted(found) == ["sysu", "thu"]
    [reason] = found["thu"]
    assert reason_text(reason.model_dump(), EN) == "an author at Tsinghua University"
    assert page_reason_text(reason.model_dump(), "zh") == "作者来自 清华大学"
    assert page_reason_text(reason.model_dump(), "en") == "an author at Tsinghua University"
    naive = {f.id: r for f, r in index.match_naive(item)}
    assert naive == found


def test_no_author_there_or_only_an_unmatched_affiliation_is_no_match(index: FollowIndex) -> None:
    assert index.match(paper([UNMATCHED], [])) == []
    assert match_one(index.follows["pku"], PaperText.of(paper([TSINGHUA]))) == []


def test_a_removed_follow_matches_no_more(index: FollowIndex) -> None:
    index.remove("thu")
    assert [f.id for f, _ in index.match(paper([TSINGHUA]))] == []
    assert index.count_by_kind()["institution"] == 3


def test_a_follow_needs_a_ror_id() -> None:
    check_follow("institution", query=None, author=None, topic_id=None, institution="03cve4549")
    for wrong in (None, "Tsinghua University", "https://ror.org/03cve4549"):
        with pytest.raises(FollowRuleError, match="ROR id"):
            check_follow("institution", query=None, author=None, topic_id=None, institution=wrong)
