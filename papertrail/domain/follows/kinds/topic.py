"""Topic follows: a topic of the catalogue (topics.toml), each of its subtopics a keyword rule."""

from collections.abc import Mapping

from pydantic import Field

from papertrail.domain.follows.catalogue import Topic, check_subtopics, load_catalogue
from papertrail.domain.follows.checks import FollowRuleError
from papertrail.domain.follows.compiled import FIELDS, CompiledFollow, Rule
from papertrail.domain.follows.expressions import parse_expression
from papertrail.domain.follows.kind_spec import FollowKindSpec, FollowValues
from schemas.events import Follow


def check(values: FollowValues) -> None:
    topic_id = values.get("topic_id")
    known = {topic.id for topic in load_catalogue()}
    if topic_id not in known:
        raise FollowRuleError(
            f"topic_id {topic_id!r} is not a catalogue topic; known: {sorted(known)}", "unknown_topic", topic=topic_id
        )


def compile_rules(follow: Follow, topics: Mapping[str, Topic]) -> CompiledFollow:
    subtopics = follow.subtopics
    if follow.topic_id:
        if follow.topic_id not in topics:
            raise ValueError(f"unknown topic {follow.topic_id!r}; the catalogue has {', '.join(sorted(topics))}")
        subtopics = subtopics or topics[follow.topic_id].subtopics
    if not subtopics:
        raise ValueError("a topic follow needs a catalogue topic_id or its own subtopics")
    check_subtopics(subtopics, f"topic {follow.topic_id or follow.name!r}")
    rules = tuple(
        Rule(
            parse_expression(s.rule),
            FIELDS[s.fields],
            # the subtopic's categories and the follow's own filter must both hold
            frozenset(s.categories),
            s,
        )
        for s in subtopics
    )
    categories = frozenset(follow.categories)
    signature = ("topic", tuple((s.rule, s.fields, tuple(s.categories), s.id, s.name) for s in subtopics), categories)
    return CompiledFollow(follow, rules=rules, signature=signature)


KIND = FollowKindSpec(
    "topic",
    "topic_id",
    {"topic_id": (str | None, Field(None, max_length=64, description="catalogue topic id for a topic follow"))},
    check,
    compile_rules,
)
