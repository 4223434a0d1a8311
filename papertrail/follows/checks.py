"""What makes a follow valid before it is stored: the expression grammar and topic catalogue the matcher compiles
it with, and what a `similar` follow needs, checked where the query service accepts it. No I/O."""

from collections.abc import Sequence

from papertrail.follows.catalogue import load_catalogue
from papertrail.follows.expressions import ExpressionError, parse_expression
from papertrail.venues.catalogue import Venue, default_index

MAX_SEEDS = 20  # a reader's "papers like these": a handful, and the scorer's cost grows with them
MAX_DESCRIPTION_CHARS = 2000  # a paragraph; the model reads ~256 tokens of it anyway


class FollowRuleError(ValueError):
    """The follow cannot be stored; the message names the problem (in English, as the API says it); `rule` and
    `values` name it for the pages to say in the reader's language."""

    def __init__(self, message: str, rule: str = "", **values: object) -> None:
        super().__init__(message)
        self.rule, self.values = rule, values


def check_follow(
    kind: str,
    *,
    query: str | None,
    author: str | None,
    topic_id: str | None,
    seeds: Sequence[str] = (),
    description: str | None = None,
    venue: str | None = None,
    venue_field: str | None = None,
) -> None:
    if kind == "venue":
        if venue is None and venue_field is None:
            raise FollowRuleError(
                "a venue follow needs `venue` (e.g. ICML, AI/icml) or `venue_field` (e.g. AI)", "venue_needed"
            )
        if venue is not None:
            catalogue_venue(venue)
    elif kind == "similar":
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
    elif kind == "keyword":
        if not query or not query.strip():
            raise FollowRuleError("a keyword follow needs `query`", "query_needed")
        try:
            parse_expression(query)
        except ExpressionError as error:
            raise FollowRuleError(f"query: {error}", "bad_query", error=str(error)) from error
    elif kind == "author":
        if not author or not author.strip():
            raise FollowRuleError("an author follow needs `author`", "author_needed")
    elif kind == "topic":
        known = {topic.id for topic in load_catalogue()}
        if topic_id not in known:
            raise FollowRuleError(
                f"topic_id {topic_id!r} is not a catalogue topic; known: {sorted(known)}",
                "unknown_topic",
                topic=topic_id,
            )


def catalogue_venue(written: str) -> Venue:
    """The catalogue's venue a reader named by its key (AI/icml), acronym or any alias; FollowRuleError otherwise."""
    index = default_index()
    found = index.venues.get(written.strip()) or index.resolve(written)
    if found is None:
        why = "names more than one venue" if index.known(written) else "is not in the venue catalogue"
        rule = "ambiguous_venue" if index.known(written) else "unknown_venue"
        raise FollowRuleError(f"venue {written.strip()!r} {why}; see /api/venues?q=", rule, venue=written.strip())
    return found
