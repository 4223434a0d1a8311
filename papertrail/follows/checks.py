"""What makes a follow valid before it is stored: the expression grammar and topic catalogue the matcher compiles
it with, checked where the query service accepts it. No I/O."""

from papertrail.follows.catalogue import load_catalogue
from papertrail.follows.expressions import ExpressionError, parse_expression


class FollowRuleError(ValueError):
    """The follow cannot be stored; the message names the problem."""


def check_follow(kind: str, *, query: str | None, author: str | None, topic_id: str | None) -> None:
    if kind == "keyword":
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
