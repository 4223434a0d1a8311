"""Venue follows: the papers accepted at a catalogue venue (an edition, a track), or at every venue of a CCF field
(of a rank)."""

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.checks import FollowRuleError, catalogue_venue
from papertrail.domain.follows.compiled import CompiledFollow, VenueRule
from papertrail.domain.follows.kind_spec import FollowKindSpec, FollowValues
from schemas.events import CcfFieldCode, Follow
from schemas.paper import ClaimTrack

NARROWING = ("venue_year", "venue_track", "venue_field", "venue_rank")


def check(values: FollowValues) -> None:
    venue, venue_field = values.get("venue"), values.get("venue_field")
    if venue is None and venue_field is None:
        raise FollowRuleError(
            "a venue follow needs `venue` (e.g. ICML, AI/icml) or `venue_field` (e.g. AI)", "venue_needed"
        )
    if venue is not None:
        catalogue_venue(venue)


def stored(values: FollowValues) -> dict[str, Any]:
    """The venue as the catalogue keys it (a reader names it by acronym or alias), and what narrows it."""
    venue = values.get("venue")
    return {"venue_key": catalogue_venue(venue).key if venue else None} | {n: values.get(n) for n in NARROWING}


def compile_rules(follow: Follow, topics: Mapping[str, Topic]) -> CompiledFollow:
    if not follow.venue_key and not follow.venue_field:
        raise ValueError("a venue follow needs a venue_key, or a venue_field (and a venue_rank)")
    venue = VenueRule(follow.venue_key, follow.venue_year, follow.venue_track, follow.venue_field, follow.venue_rank)
    return CompiledFollow(follow, venue=venue, signature=("venue", venue, frozenset(follow.categories)))


def form_values(form: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {name: form.get(name, "").strip() or None for name in NARROWING}
    rank = values["venue_rank"] and f"CCF-{values['venue_rank']}"
    written = [form.get("venue", "").strip() or values["venue_field"], values["venue_year"], rank]
    values["name"] = form.get("name", "").strip() or " ".join(str(w) for w in written if w) or "venue"
    return values


KIND = FollowKindSpec(
    "venue",
    "venue",
    {
        "venue": (
            str | None,
            Field(
                None,
                max_length=200,
                description="venue follow: a catalogue venue by its key, acronym or name (GET /api/venues)",
                examples=["ICML", "AI/icml"],
            ),
        ),
        "venue_year": (int | None, Field(None, ge=1950, le=2100, description="venue follow: only this edition")),
        "venue_track": (
            ClaimTrack | None,
            Field(None, description="venue follow: only this track (main, workshop, …)"),
        ),
        "venue_field": (
            CcfFieldCode | None,
            Field(None, description="venue follow without `venue`: every catalogue venue of this CCF field"),
        ),
        "venue_rank": (
            Literal["A", "B", "C"] | None,
            Field(None, description="venue follow: only venues of this CCF rank"),
        ),
    },
    check,
    compile_rules,
    stored=stored,
    form_values=form_values,
)
