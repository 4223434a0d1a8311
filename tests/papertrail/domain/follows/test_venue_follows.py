"""Venue follows over real comments of the May 2026 corpus: an edition, a track, every CCF-A venue of a field; a
submission is no match, its acceptance in a later version is; the reason names the venue, the field and version."""

from datetime import UTC, datetime

import pytest

from papertrail.domain.follows.checks import FollowRuleError, catalogue_venue
from papertrail.domain.follows.kinds import check_follow
from papertrail.domain.follows.reasons import reason_text
from papertrail.domain.follows.rules import FollowIndex, PaperText, match_one
from papertrail.domain.venues.accepted import accepted_venues
from papertrail.domain.venues.claims import venue_claims
from papertrail.runtime.wording import Translator
from schemas.events import Follow
from schemas.paper import Paper, PaperIds
from services.query.web.format import reason_text as page_reason_text

EN = Translator("en")  # the language of the reasons in digests and feeds

NOW = datetime(2026, 5, 20, tzinfo=UTC)
# genuine comments of the corpus (/work/shared/corpus/arxiv-daily-2026-05)
ACCEPTED = "Accepted at ICML 2026"  # 2605.00411
SUBMITTED = "8 pages, 4 figures, 5 tables. Submitted to ICML 2026"
WORKSHOP = "16 pages, 7 figures, 12 tables. Accepted to the ICML 2026 Workshop on Hypothesis Testing, Seoul, South Korea, 2026. Copyright 2026 by the author(s)"  # noqa: E501
POSITION = "To appear in ICML 2026 (Position Track)"  # 2605.01428


def paper(comment: str | None, version: str = "v1", **fields: object) -> Paper:
    return Paper.model_validate(
        {
            "id": "arxiv:2605.00411",
            "ids": PaperIds(arxiv="2605.00411"),
            "title": "A paper",
            "comments": comment,
            "venue_claims": venue_claims(comment, None, []),
            "current_version": version,
            "first_seen": NOW,
            "updated_at": NOW,
            **fields,
        }
    )


def follow(follow_id: str, **fields: object) -> Follow:
    return Follow.model_validate(
        {"id": follow_id, "user_id": "u1", "kind": "venue", "name": follow_id, "created_at": NOW, **fields}
    )


@pytest.fixture
def index() -> FollowIndex:
    found = FollowIndex()
    found.upsert(follow("icml26", venue_key="AI/icml", venue_year=2026))
    found.upsert(follow("icml25", venue_key="AI/icml", venue_year=2025))
    found.upsert(follow("icml-workshops", venue_key="AI/icml", venue_track="workshop"))
    found.upsert(follow("ai-a", venue_field="AI", venue_rank="A"))
    found.upsert(follow("db-a", venue_field="DB", venue_rank="A"))
    found.upsert(follow("neurips", venue_key="AI/nips"))
    return found


def matched(index: FollowIndex, item: Paper) -> dict[str, list[str]]:
    found = {f.id: [reason_text(r.model_dump(), EN) for r in reasons] for f, reasons in index.match(item)}
    naive = {f.id: [reason_text(r.model_dump(), EN) for r in reasons] for f, reasons in index.match_naive(item)}
    assert found == naive  # the indexed path and the loop over every follow agree
    return found


def test_an_acceptance_matches_the_edition_and_the_field_with_its_reason(index: FollowIndex) -> None:
    assert matched(index, paper(ACCEPTED, "v3")) == {
        "icml26": ["accepted at ICML 2026 (comment of v3)"],
        "ai-a": ["accepted at ICML 2026 (comment of v3)"],
    }


def test_a_submission_is_no_match_and_its_acceptance_later_is(index: FollowIndex) -> None:
    assert matched(index, paper(SUBMITTED, "v1")) == {}
    assert set(matched(index, paper(ACCEPTED, "v3"))) == {"icml26", "ai-a"}


def test_a_workshop_at_icml_is_not_icml_unless_its_workshops_are_followed(index: FollowIndex) -> None:
    workshop = "accepted at ICML 2026 workshop (comment of v2)"
    assert matched(index, paper(WORKSHOP, "v2")) == {"icml-workshops": [workshop]}


def test_a_track_other_than_workshop_is_the_venue(index: FollowIndex) -> None:
    assert matched(index, paper(POSITION))["icml26"] == ["accepted at ICML 2026 position (comment of v1)"]


def test_a_published_record_matches_as_proceedings() -> None:
    index = FollowIndex()
    index.upsert(follow("acl", venue_key="AI/acl", venue_year=2024))
    published = paper(None, status="published", venue="ACL 2024", current_version=None)
    [(_, reasons)] = index.match(published)
    assert reason_text(reasons[0].model_dump(), EN) == "accepted at ACL 2024 (proceedings)"
    assert page_reason_text(reasons[0].model_dump(), "zh") == "已被 ACL 2024 录用(会议论文集)"


def test_the_reason_in_chinese_names_the_version_and_the_authors() -> None:
    index = FollowIndex()
    index.upsert(follow("icml26", venue_key="AI/icml", venue_year=2026))
    [(_, reasons)] = index.match(paper(ACCEPTED, "v3"))
    assert page_reason_text(reasons[0].model_dump(), "zh") == "已被 ICML 2026 录用(v3 作者注明)"
    assert page_reason_text(reasons[0].model_dump(), "en") == "accepted at ICML 2026 (comment of v3)"


def test_unfollowing_a_venue_drops_it_from_matching(index: FollowIndex) -> None:
    index.remove("icml26")
    index.remove("ai-a")
    assert matched(index, paper(ACCEPTED)) == {}
    assert index.by_venue.keys() == {"AI/icml", "AI/nips", "field:DB"}


def test_match_one_reads_the_same_as_the_index(index: FollowIndex) -> None:
    text = PaperText.of(paper(ACCEPTED, "v3"))
    assert [r.term for r in match_one(index.follows["icml26"], text)] == ["ICML 2026"]
    assert match_one(index.follows["icml25"], text) == []


def test_accepted_venues_keep_no_submission() -> None:
    assert accepted_venues(paper(SUBMITTED)) == ()
    [venue] = accepted_venues(paper(ACCEPTED, "v2"))
    assert (venue.venue_key, venue.year, venue.ccf_field, venue.ccf_rank, venue.source_version) == (
        "AI/icml",
        2026,
        "AI",
        "A",
        "v2",
    )


def test_a_venue_follow_names_a_catalogue_venue_or_a_field() -> None:
    assert catalogue_venue("International Conference on Machine Learning").key == "AI/icml"
    assert catalogue_venue("AI/icml").acronym == "ICML"
    with pytest.raises(FollowRuleError, match="not in the venue catalogue"):
        check_follow("venue", query=None, author=None, topic_id=None, venue="Conference of Nowhere")
    with pytest.raises(FollowRuleError, match="needs `venue`"):
        check_follow("venue", query=None, author=None, topic_id=None)
    check_follow("venue", query=None, author=None, topic_id=None, venue_field="AI")
    with pytest.raises(ValueError, match="needs a venue_key"):
        FollowIndex().upsert(follow("bad"))
