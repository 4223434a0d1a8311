"""Institution follows: the papers with an author at an institution, by its ROR id."""

from collections.abc import Mapping

from pydantic import Field

from papertrail.domain.author_institutions import ROR_ID_PATTERN, is_ror_id
from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.checks import FollowRuleError
from papertrail.domain.follows.compiled import CompiledFollow, InstitutionRule
from papertrail.domain.follows.kind_spec import FollowKindSpec, FollowValues
from schemas.events import Follow


def check(values: FollowValues) -> None:
    institution = values.get("institution")
    if not institution or not is_ror_id(institution):
        raise FollowRuleError(
            "an institution follow needs `institution`, a ROR id (e.g. 03cve4549; GET /api/institutions?q=)",
            "institution_needed",
        )


def compile_rules(follow: Follow, topics: Mapping[str, Topic]) -> CompiledFollow:
    if not follow.institution:
        raise ValueError("an institution follow needs an institution (a ROR id)")
    institution = InstitutionRule(follow.institution)
    return CompiledFollow(
        follow, institution=institution, signature=("institution", institution, frozenset(follow.categories))
    )


KIND = FollowKindSpec(
    "institution",
    "institution",
    {
        "institution": (
            str | None,
            Field(
                None,
                pattern=ROR_ID_PATTERN,
                description="institution follow: the ROR id of the institution (GET /api/institutions); papers with "
                "an author there match",
                examples=["03cve4549"],
            ),
        )
    },
    check,
    compile_rules,
)
