"""The follow kinds, one entry each, in the order the pages list them: the field a follow of the kind is made
from (the form's one input, and the name a follow left unnamed takes). `FollowKind` (schemas/events.py, the
events' contract) names the kinds once; the API's body and the matcher's counts read it, and this table must hold
every one of them (tests/papertrail/domain/follows/test_kinds.py)."""

from dataclasses import dataclass

from schemas.events import FollowKind


@dataclass(frozen=True, slots=True)
class FollowKindSpec:
    kind: FollowKind
    own_field: str  # the field of the API's follow body (and the page's form) a follow of this kind is made from


FOLLOW_KINDS: dict[str, FollowKindSpec] = {
    spec.kind: spec
    for spec in (
        FollowKindSpec("keyword", "query"),
        FollowKindSpec("author", "author"),
        FollowKindSpec("topic", "topic_id"),
        FollowKindSpec("similar", "description"),
        FollowKindSpec("venue", "venue"),
        FollowKindSpec("institution", "institution"),
    )
}
