"""Author follows: papers by an author, by name (pinned, if asked, to an affiliation, an ORCID iD or a source's
author id)."""

from collections.abc import Mapping

from pydantic import Field

from papertrail.domain.follows.authors import author_rule
from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.checks import FollowRuleError
from papertrail.domain.follows.compiled import CompiledFollow
from papertrail.domain.follows.kind_spec import FollowKindSpec, FollowValues
from schemas.events import Follow


def check(values: FollowValues) -> None:
    author = values.get("author")
    if not author or not author.strip():
        raise FollowRuleError("an author follow needs `author`", "author_needed")


def compile_rules(follow: Follow, topics: Mapping[str, Topic]) -> CompiledFollow:
    if not follow.author:
        raise ValueError("an author follow needs an author name")
    pins = {"affiliation": follow.affiliation, "orcid": follow.orcid, "source_author_id": follow.source_author_id}
    author = author_rule(follow.author, **pins)
    return CompiledFollow(follow, author=author, signature=("author", author, frozenset(follow.categories)))


KIND = FollowKindSpec(
    "author",
    "author",
    {
        "author": (str | None, Field(None, max_length=200, description="author name for an author follow")),
        "affiliation": (
            str | None,
            Field(None, max_length=200, description="author follow: only with this affiliation"),
        ),
        "orcid": (
            str | None,
            Field(None, pattern=r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$", description="author follow: ORCID iD"),
        ),
        "source_author_id": (
            str | None,
            Field(None, max_length=200, description="author follow: a source's author id"),
        ),
    },
    check,
    compile_rules,
)
