"""The title path's policy: which summaries get a local model's Chinese title, the prompt, what an answer may be, the
cache key, the title's provenance, and when the path runs (no summary endpoint, a title model set)."""

import pytest

from schemas.summary import NO_MODEL_CONFIGURED, Summary
from services.summarizer.settings import SummarizerSettings
from services.summarizer.titles import (
    TITLE_EXAMPLES,
    TITLE_PROMPT_VERSION,
    InvalidTitle,
    gets_a_title,
    parse_title,
    title_key,
    title_messages,
    with_title,
)

PENDING = Summary(status="pending", error=NO_MODEL_CONFIGURED)
COMMUNITY = Summary(status="ok", publisher="daily-arXiv-ai-enhanced", tldr_zh="摘要", error=NO_MODEL_CONFIGURED)
OURS = Summary(status="ok", model="deepseek-chat", title_zh="我们的标题", tldr_zh="摘要")
OURS_WITHOUT_TITLE = Summary(status="ok", model="deepseek-chat", tldr_zh="摘要")
FAILED = Summary(status="failed", error="schema after one repair attempt")


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        (PENDING, True),  # no endpoint: the paper waits, untitled
        (COMMUNITY, True),  # another system's summary shown meanwhile has no title
        (PENDING.model_copy(update={"title_zh": "已有标题"}), False),  # titled already
        (OURS, False),  # ours carries its own title
        (OURS_WITHOUT_TITLE, False),  # ours is the model's final word
        (FAILED, False),
    ],
)
def test_only_a_paper_waiting_for_ours_without_a_title_gets_one(summary: Summary, expected: bool) -> None:
    assert gets_a_title(summary) is expected


ENGLISH = "DynaGraph: Lightweight Multi-Model Interaction Framework via Dynamic Topological Reconfiguration"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("DynaGraph：通过动态拓扑重构的轻量级多模型交互框架", "DynaGraph：通过动态拓扑重构的轻量级多模型交互框架"),
        ("  “动态拓扑重构的多模型交互框架”  \n", "动态拓扑重构的多模型交互框架"),  # quotes and spaces around
        ("中文标题：动态拓扑重构的多模型交互框架", "动态拓扑重构的多模型交互框架"),  # a label before it
        ("动态拓扑重构的多模型交互框架\n\n这个标题的意思是……", "动态拓扑重构的多模型交互框架"),  # talk after it
    ],
)
def test_an_answer_gives_its_first_line_as_the_title(answer: str, expected: str) -> None:
    assert parse_title(answer, ENGLISH) == expected


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (None, "empty"),
        ("  \n ", "empty"),
        ("“”", "empty"),
        (ENGLISH, "not Chinese"),  # the small model echoing the English title
        ("DynaGraph: Lightweight Multi-Model 交互 Framework via Dynamic Topological Reconfiguration", "not Chinese"),
        ("动态" * 120, "characters for a title"),  # rambling, not a title
    ],
)
def test_an_answer_that_is_no_chinese_title_is_refused_naming_why(answer: str | None, problem: str) -> None:
    with pytest.raises(InvalidTitle, match=problem):
        parse_title(answer, ENGLISH)


def test_the_prompt_gives_the_examples_as_turns_and_the_title_last_on_one_line() -> None:
    messages = title_messages("A  Title\n  Over Two Lines")
    assert messages[0]["role"] == "system"
    turns = [(m["role"], m["content"]) for m in messages[1:-1]]
    examples = [(role, text) for pair in TITLE_EXAMPLES for role, text in zip(("user", "assistant"), pair, strict=True)]
    assert turns == examples
    assert messages[-1] == {"role": "user", "content": "A Title Over Two Lines"}


def test_the_cache_key_is_the_title_text_model_and_prompt_version() -> None:
    key = title_key("A Title", "qwen")
    assert key == title_key("A  Title", "qwen") and key.endswith(f":qwen:{TITLE_PROMPT_VERSION}")
    assert key != title_key("A Title", "other") and key != title_key("Another Title", "qwen")


def test_the_title_keeps_the_summary_and_names_the_model_that_wrote_it() -> None:
    titled = with_title(COMMUNITY, "标题", "qwen2.5-coder-1.5b-instruct")
    assert (titled.title_zh, titled.title_model) == ("标题", "qwen2.5-coder-1.5b-instruct")
    assert titled.model_copy(update={"title_zh": None, "title_model": None}) == COMMUNITY
    # the provenance is left out of the events where there is none (consumers built before it read them unchanged)
    assert "title_model" not in PENDING.model_dump(mode="json")


@pytest.mark.parametrize(
    ("values", "runs"),
    [
        ({}, False),
        ({"titles_base_url": "http://127.0.0.1:8091/v1", "titles_model": "qwen"}, True),
        ({"titles_base_url": "http://127.0.0.1:8091/v1"}, False),  # no model named
        (  # a summary endpoint writes titles with its summaries
            {
                "titles_base_url": "http://127.0.0.1:8091/v1",
                "titles_model": "qwen",
                "openai_base_url": "https://api.deepseek.com/v1",
                "openai_model": "deepseek-chat",
            },
            False,
        ),
    ],
)
def test_the_title_path_runs_only_without_a_summary_endpoint(values: dict[str, str], runs: bool) -> None:
    assert SummarizerSettings(**values).titles_configured is runs  # type: ignore[arg-type]


def test_a_title_endpoint_that_is_no_url_stops_the_service_naming_it() -> None:
    with pytest.raises(ValueError, match="titles_base_url"):
        SummarizerSettings(titles_base_url="localhost:8091")  # type: ignore[call-arg]
