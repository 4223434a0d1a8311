"""What makes a follow valid before it is stored: the expression grammar and topic catalogue the matcher compiles
it with, and what a `similar` follow needs, checked where the query service accepts it. No I/O."""

from collections.abc import Sequence

from papertrail.follows.catalogue import load_catalogue
from papertrail.follows.expressions import ExpressionError, parse_expression

MAX_SEEDS = 20  # a reader's "papers like these": a handful, and the scorer's cost grows with them
MAX_DESCRIPTION_CHARS = 2000  # a paragraph; the model reads ~256 tokens of it anyway


class FollowRuleError(ValueError):
    """The follow cannot be stored; the message names the problem."""


def check_follow(
    kind: str,
    *,
    query: str | None,
    author: str | None,
    topic_id: str | None,
    seeds: Sequence[str] = (),
    description: str | None = None,
) -> None:
    if kind == "similar":
        if not seeds and not (description and description.strip()):
            raise FollowRuleError("a similar follow needs `seeds` (1-20 paper ids), a `description`, or both")
        if len(seeds) > MAX_SEEDS:
            raise FollowRuleError(f"seeds: {len(seeds)} papers; a similar follow takes at most {MAX_SEEDS}")
        if description is not None and len(description) > MAX_DESCRIPTION_CHARS:
            raise FollowRuleError(f"description: longer than {MAX_DESCRIPTION_CHARS} characters")
    elif kind == "keyword":
        if not query or not query.strip():
            raise FollowRuleError("a keyword follow needs `query`")
        try:
            parse_expression(query)
        except ExpressionError as error:
            raise FollowRuleError(f"query: {error}") from error
    elif kind == "author":
        if not author or not author.strip():
            raise FollowRuleError("an author follow needs `author`")
    elif kind == "topic":
        known = {topic.id for topic in load_catalogue()}
        if topic_id not in known:
            raise FollowRuleError(f"topic_id {topic_id!r} is not a catalogue topic; known: {sorted(known)}")
