"""Keyword follows: a keyword expression (AND / OR / NOT, parentheses) over a paper's title, abstract or both."""

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.checks import FollowRuleError
from papertrail.domain.follows.compiled import FIELDS, CompiledFollow, Rule
from papertrail.domain.follows.expressions import ExpressionError, parse_expression
from papertrail.domain.follows.kind_spec import FollowKindSpec, FollowValues
from schemas.events import Follow

MAX_QUERY_CHARS = 2000


def check(values: FollowValues) -> None:
    query = values.get("query")
    if not query or not query.strip():
        raise FollowRuleError("a keyword follow needs `query`", "query_needed")
    try:
        parse_expression(query)
    except ExpressionError as error:
        raise FollowRuleError(f"query: {error}", "bad_query", error=str(error)) from error


def compile_rules(follow: Follow, topics: Mapping[str, Topic]) -> CompiledFollow:
    if not follow.query:
        raise ValueError("a keyword follow needs a query")
    categories = frozenset(follow.categories)
    rule = Rule(parse_expression(follow.query), FIELDS[follow.fields], categories)
    return CompiledFollow(follow, rules=(rule,), signature=("keyword", follow.query, follow.fields, categories))


def form_values(form: Mapping[str, str]) -> dict[str, Any]:
    return {"fields": form.get("fields") or "both", "categories": form.get("categories", "").split()}


KIND = FollowKindSpec(
    "keyword",
    "query",
    {
        "query": (
            str | None,
            Field(
                None,
                max_length=MAX_QUERY_CHARS,
                description='keyword expression, e.g. retrieval AND ("language model" OR LLM) NOT survey',
            ),
        )
    },
    check,
    compile_rules,
    form_values=form_values,
)
