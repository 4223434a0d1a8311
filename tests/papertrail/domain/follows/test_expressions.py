"""Keyword expressions: precedence, implicit AND, NOT, parentheses, phrases, folding, and the errors."""

import itertools

import pytest

from papertrail.domain.follows.expressions import (
    MAX_DEPTH,
    And,
    ExpressionError,
    Not,
    Or,
    Term,
    compile_predicate,
    parse_expression,
)


def holds(expression: str, *present: str) -> bool:
    return parse_expression(expression).evaluate(set(present))


def test_the_issue_example_parses_with_not_binding_to_the_next_term() -> None:
    expression = parse_expression('retrieval AND ("language model" OR LLM) NOT survey')
    assert expression.root == And((Term("retrieval"), Or((Term("language model"), Term("llm"))), Not(Term("survey"))))
    assert expression.terms == {"retrieval", "language model", "llm", "survey"}
    assert expression.positive_terms == {"retrieval", "language model", "llm"}
    assert holds('retrieval AND ("language model" OR LLM) NOT survey', "retrieval", "llm")
    assert not holds('retrieval AND ("language model" OR LLM) NOT survey', "retrieval", "llm", "survey")
    assert not holds('retrieval AND ("language model" OR LLM) NOT survey', "retrieval")


def test_and_binds_tighter_than_or_and_parentheses_override() -> None:
    assert holds("a OR b AND c", "a")  # a OR (b AND c)
    assert not holds("(a OR b) AND c", "a")
    assert holds("(a OR b) AND c", "a", "c")


def test_adjacent_terms_are_an_implicit_and() -> None:
    assert parse_expression("graph neural").root == And((Term("graph"), Term("neural")))
    assert not holds("graph neural", "graph")


def test_terms_fold_case_diacritics_and_punctuation_like_paper_text() -> None:
    expression = parse_expression('"Chain-of-Thought" Modèle GPT-4')
    assert expression.terms == {"chain of thought", "modele", "gpt 4"}


def test_lower_case_operator_words_are_ordinary_terms() -> None:
    assert parse_expression("question and answer").terms == {"question", "and", "answer"}


def test_trailing_star_is_a_prefix_term() -> None:
    assert parse_expression("agent*").root == Term("agent", prefix=True)
    with pytest.raises(ExpressionError, match=r"\* is only allowed at the end"):
        parse_expression("ag*ent")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(retrieval OR rag", "unbalanced parenthesis at position 1: it is never closed"),
        ("retrieval OR rag)", "unbalanced parenthesis at position 17: nothing opened it"),
        ("retrieval NOT", "NOT needs a term after it (position 11)"),
        ("retrieval AND", "AND needs a term after it (position 11)"),
        ("OR retrieval", "OR at position 1 needs a term before it"),
        ('"language model', "unclosed quote at position 1"),
        ("", "the expression is empty"),
        ("()", "empty parentheses at position 1"),
        ('""', "an empty phrase at position 1"),
        ("NOT survey", "matches papers that contain none of its terms"),
        ("rag OR NOT survey", "matches papers that contain none of its terms"),
    ],
)
def test_bad_expressions_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as error:
        parse_expression(text)
    assert message in str(error.value)


@pytest.mark.parametrize("opening", ["(", "NOT ("])
def test_nesting_past_the_depth_cap_is_refused_by_name_not_a_recursion_error(opening: str) -> None:
    deep = "(" * 995 + "rag" + ")" * 995  # within MAX_LENGTH; a RecursionError (a 500) before the cap
    with pytest.raises(ExpressionError, match=f"nest more than {MAX_DEPTH} deep at position {MAX_DEPTH + 1}"):
        parse_expression(deep)
    levels = MAX_DEPTH // len(opening.split())
    at_the_cap = "x AND " + opening * levels + "rag" + ")" * levels
    assert parse_expression(at_the_cap).terms == {"x", "rag"}


@pytest.mark.parametrize(
    "text",
    [
        'retrieval AND ("language model" OR LLM) NOT survey',
        "a OR b AND c",
        "(a OR b OR c) NOT d",
        "a AND (b OR c) NOT d",
        "a b c",
        "(a AND NOT b) OR (c AND NOT (d OR a*))",
        "a* OR (b AND (c OR d) AND NOT (a AND c))",
    ],
)
def test_the_compiled_predicate_agrees_with_evaluate_on_every_combination_of_hits(text: str) -> None:
    expression = parse_expression(text)
    holds_fast = compile_predicate(expression)
    terms = sorted(expression.terms)
    outcomes = set()
    for n in range(len(terms) + 1):
        for present in itertools.combinations(terms, n):
            # the fast path sees every term that occurred in the paper, not only the expression's own
            hits = set(present) | {"unrelated"}
            assert holds_fast(hits) == expression.evaluate(set(present)), (text, present)
            outcomes.add(holds_fast(hits))
    assert outcomes == {True, False}  # the comparison is not vacuous
