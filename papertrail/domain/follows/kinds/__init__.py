"""The follow kinds, one module each, registered here by one line, in the order the pages list them. Each holds what
a follow of its kind is made from (the API body's fields, the page's form), its check before it is stored and its
rule compilation for the matcher (`FollowKindSpec`). `FollowKind` (schemas/events.py, the events' contract) names
the kinds; this registry holds every one of them (tests/papertrail/domain/follows/test_kinds.py). No I/O."""

from typing import Any

from papertrail.domain.follows.kind_spec import FollowKindSpec
from papertrail.domain.follows.kinds import author, institution, keyword, similar, topic, venue

FOLLOW_KINDS: dict[str, FollowKindSpec] = {
    spec.kind: spec
    for spec in (
        keyword.KIND,
        author.KIND,
        topic.KIND,
        similar.KIND,
        venue.KIND,
        institution.KIND,
    )
}


def follow_kind(kind: str) -> FollowKindSpec:
    """The kind's module; ValueError for a kind no module holds."""
    try:
        return FOLLOW_KINDS[kind]
    except KeyError:
        raise ValueError(f"no follow kind {kind!r}; the kinds are {', '.join(FOLLOW_KINDS)}") from None


def check_follow(kind: str, **values: Any) -> None:
    """FollowRuleError (checks.py) naming what makes a new follow of this kind and these values (the API body's)
    invalid."""
    spec = FOLLOW_KINDS.get(kind)
    if spec is not None:
        spec.check(values)
