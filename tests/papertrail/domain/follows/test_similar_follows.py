"""What a `similar` follow must say to be stored, and its reasons as digests and Atom feeds write them. No I/O."""

import pytest

from papertrail.domain.follows.checks import MAX_DESCRIPTION_CHARS, MAX_SEEDS, FollowRuleError
from papertrail.domain.follows.kinds import check_follow
from papertrail.domain.follows.reasons import reason_text
from papertrail.runtime.wording import Translator

EN = Translator("en")  # the language of the reasons in digests and feeds


def _check(seeds: list[str], description: str | None = None) -> None:
    check_follow("similar", query=None, author=None, topic_id=None, seeds=seeds, description=description)


def test_a_similar_follow_needs_seeds_or_a_description_within_bounds() -> None:
    _check(["2401.12345"])
    _check([], "papers on code-based cryptography")
    with pytest.raises(FollowRuleError, match="needs `seeds`"):
        _check([], "   ")
    with pytest.raises(FollowRuleError, match=f"at most {MAX_SEEDS}"):
        _check([f"2401.{n:05d}" for n in range(MAX_SEEDS + 1)])
    with pytest.raises(FollowRuleError, match="description: longer than"):
        _check([], "x" * (MAX_DESCRIPTION_CHARS + 1))


def test_reasons_as_plain_lines() -> None:
    seed = {"term": "SafeConv: safe convolutions", "field": "similar", "seed_id": "arxiv:2605.01234", "score": 0.7412}
    assert reason_text(seed, EN) == 'similar to "SafeConv: safe convolutions" (0.74)'
    assert (
        reason_text({"term": "description", "field": "similar", "score": 0.71}, EN)
        == "similar to your description (0.71)"
    )
    assert reason_text({"term": "Jane Doe", "field": "authors"}, EN) == "author Jane Doe"
    rag = {"term": "rag", "field": "title", "subtopic": "retrieval"}
    assert reason_text(rag, EN) == "retrieval: rag (in the title)"
