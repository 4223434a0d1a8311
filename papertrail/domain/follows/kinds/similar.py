"""Similar follows: papers like some seed papers or a description, matched by their vectors
(papertrail/embedding/similarity.py), never by terms."""

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.checks import MAX_DESCRIPTION_CHARS, MAX_SEEDS, FollowRuleError
from papertrail.domain.follows.compiled import CompiledFollow
from papertrail.domain.follows.kind_spec import FollowKindSpec, FollowValues
from schemas.events import Follow

# The cosines a reader may ask a similar follow for: below 0.3 nearly every paper of a field is "like" any other
# (docs/benchmarks.md); above 0.95 only near-duplicates are.
MIN_THRESHOLD, MAX_THRESHOLD = 0.3, 0.95


def check(values: FollowValues) -> None:
    seeds, description = values.get("seeds") or (), values.get("description")
    if not seeds and not (description and description.strip()):
        raise FollowRuleError(
            "a similar follow needs `seeds` (1-20 paper ids), a `description`, or both", "similar_needed"
        )
    if len(seeds) > MAX_SEEDS:
        raise FollowRuleError(
            f"seeds: {len(seeds)} papers; a similar follow takes at most {MAX_SEEDS}",
            "too_many_seeds",
            count=len(seeds),
            most=MAX_SEEDS,
        )
    if description is not None and len(description) > MAX_DESCRIPTION_CHARS:
        raise FollowRuleError(
            f"description: longer than {MAX_DESCRIPTION_CHARS} characters",
            "description_too_long",
            most=MAX_DESCRIPTION_CHARS,
        )


def stored(values: FollowValues) -> dict[str, Any]:
    """The seeds as written (the query service resolves them to the papers held), the description trimmed, the
    threshold asked for (None: the service's default)."""
    description = (values.get("description") or "").strip() or None
    return {"seeds": list(values.get("seeds") or ()), "description": description, "threshold": values.get("threshold")}


def compile_rules(follow: Follow, topics: Mapping[str, Topic]) -> CompiledFollow:
    # matched by its vectors, never by terms: compiled only to be known by id
    if not follow.seeds and not follow.description:
        raise ValueError("a similar follow needs seed papers or a description")
    return CompiledFollow(follow, signature=("similar", follow.id))


def form_values(form: Mapping[str, str]) -> dict[str, Any]:
    # a DOI or an arXiv id holds no space: ids may be written one a line or side by side
    seeds = form.get("seeds", "").split()
    description = form.get("description", "").strip() or None
    name = form.get("name", "").strip() or similar_name(seeds, description)
    return {"seeds": seeds, "description": description, "threshold": form.get("threshold") or None, "name": name}


def similar_name(seeds: list[str], description: str | None) -> str:
    """A name for a similar follow its reader left unnamed: its first seeds, or the start of its description."""
    if seeds:
        return ("≈ " + ", ".join(seeds[:3]) + (" …" if len(seeds) > 3 else ""))[:200]
    return "≈ " + (description or "")[:60]


KIND = FollowKindSpec(
    "similar",
    "description",
    {
        "seeds": (
            list[str],
            Field(
                default_factory=list,
                max_length=MAX_SEEDS,
                description="similar follow: papers it is like, by any id they hold (arXiv id, DOI, ACL Anthology id, "
                "URL)",
                examples=[["2401.12345", "10.18653/v1/2024.acl-long.1"]],
            ),
        ),
        "description": (
            str | None,
            Field(
                None, max_length=MAX_DESCRIPTION_CHARS, description="similar follow: what it is about, in your words"
            ),
        ),
        "threshold": (
            float | None,
            Field(
                None,
                ge=MIN_THRESHOLD,
                le=MAX_THRESHOLD,
                description="similar follow: the least cosine similarity of a match (default: the embedding model's)",
            ),
        ),
    },
    check,
    compile_rules,
    stored=stored,
    form_values=form_values,
)
