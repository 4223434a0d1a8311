"""The prompt module: messages built from the paper (affiliations included), response formats, answer parsing."""

import json

import pytest

from services.summarizer.prompt import (
    MAX_KEYWORDS,
    PROMPT_VERSION,
    InvalidAnswer,
    SummaryAnswer,
    build_messages,
    parse_answer,
    repair_messages,
    response_format,
)
from tests.support.fake_openai import FakeOpenAI, corpus_event, corpus_lines


def _line(arxiv_id: str) -> dict:
    return next(line for line in corpus_lines() if line["id"] == arxiv_id)


def test_messages_carry_title_abstract_categories_and_affiliations() -> None:
    paper = corpus_event(_line("2605.01171")).paper  # CADFit; Faez Ahmed with an affiliation
    system, user = build_messages(paper, "json_schema")
    assert system["role"] == "system" and user["role"] == "user"
    assert f"Title: {paper.title}" in user["content"]
    assert paper.abstract in user["content"]
    assert "cs.CV, cs.LG" in user["content"]
    assert "- Faez Ahmed (Massachusetts Institute of Technology)" in user["content"]
    assert "- Ghadi Nehme\n" in user["content"]  # no affiliation: the name alone
    assert "JSON Schema" not in system["content"]  # the schema travels in response_format


def test_json_mode_puts_the_schema_into_the_prompt() -> None:
    paper = corpus_event(_line("2605.00921")).paper
    system, _ = build_messages(paper, "json_object")
    assert '"tldr_zh"' in system["content"] and "JSON Schema" in system["content"]
    assert response_format("json_object") == {"type": "json_object"}


def test_json_schema_format_is_strict_and_requires_every_field() -> None:
    fmt = response_format("json_schema")
    schema = fmt["json_schema"]["schema"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert set(schema["required"]) == set(SummaryAnswer.model_fields)
    assert schema["additionalProperties"] is False
    institution = schema["$defs"]["AnswerInstitution"]
    assert institution["additionalProperties"] is False and set(institution["required"]) == {"name", "name_zh"}


def test_a_long_abstract_is_cut_and_many_authors_summarized() -> None:
    event = corpus_event(_line("2605.00921"))
    paper = event.paper.model_copy(update={"abstract": "x" * 50_000, "authors": [event.paper.authors[0]] * 40})
    _, user = build_messages(paper, "json_schema")
    assert len(user["content"]) < 8_000
    assert "and 10 more" in user["content"]


def test_a_good_answer_parses_and_keywords_are_capped() -> None:
    fake = FakeOpenAI()
    line = _line("2605.01011")
    body = {"messages": build_messages(corpus_event(line).paper, "json_object")}
    raw = fake.answer_for(body)
    assert raw is not None and len(raw["keywords"]) > MAX_KEYWORDS
    answer = parse_answer("```json\n" + json.dumps(raw, ensure_ascii=False) + "\n```")
    assert answer.tldr_zh == line["AI"]["tldr"]
    assert len(answer.keywords) == MAX_KEYWORDS


@pytest.mark.parametrize(
    ("text", "kind", "words"),
    [
        ("", "invalid_json", "empty"),
        ('{"title_zh": "半截', "invalid_json", "not JSON"),
        ('{"title_zh": "标题"}', "schema", "tldr_zh"),
        ("[1, 2]", "schema", "object"),
    ],
)
def test_a_bad_answer_names_its_problem(text: str, kind: str, words: str) -> None:
    with pytest.raises(InvalidAnswer) as caught:
        parse_answer(text)
    assert caught.value.kind == kind
    assert words in caught.value.problem


def test_repair_shows_the_model_its_answer_and_the_problem() -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    repaired = repair_messages(messages, "{bad", "not JSON")
    assert repaired[:2] == messages
    assert repaired[2] == {"role": "assistant", "content": "{bad"}
    assert "not JSON" in repaired[3]["content"]


def test_the_prompt_has_a_version() -> None:
    assert PROMPT_VERSION and PROMPT_VERSION[0].isdigit()
