"""The summary checks on real abstracts and deepseek-chat's real summaries (the corpus), and on answers crafted to
break each check."""

import json
from typing import Any

import pytest

from schemas.paper import Paper
from services.summarizer.checks import (
    MIN_CJK_SHARE,
    check_answer,
    cjk_share,
    copied_share,
    keyword_from_paper,
    numbers_in,
    paper_numbers,
)
from services.summarizer.prompt import SummaryAnswer
from tests.support.fake_openai import corpus_event, corpus_lines, corpus_summary_fields
from tests.support.paths import FIXTURES

CHECKS_CORPUS = {
    line["id"]: line
    for line in map(json.loads, (FIXTURES / "summarizer" / "checks-corpus.jsonl").read_text("utf-8").splitlines())
}
CARRY_ON, CL_BENCH, PLACEHOLDER = CHECKS_CORPUS["2604.27093"], CHECKS_CORPUS["2604.27043"], CHECKS_CORPUS["2605.07170"]
BY_ID = {line["id"]: line for line in corpus_lines()}
GAME_THEORY = BY_ID["2605.00921"]  # "up to 32,768 leaves", "$N{=}2$", "three natural-hierarchy datasets"


def paper_of(line: dict[str, Any]) -> Paper:
    return corpus_event(line).paper


def answer_of(line: dict[str, Any], **changes: Any) -> SummaryAnswer:
    """deepseek-chat's real Chinese summary of the paper, with an English TL;DR and keywords a good model writes."""
    values = {
        "title_zh": "论文标题的中文翻译",
        **corpus_summary_fields(line),
        "keywords": line["categories"][:2],
        "institutions": [],
        "ai_related": True,
        "ai_reason": "类别",
    }
    return SummaryAnswer.model_validate(values | changes)


def failed(line: dict[str, Any], **changes: Any) -> list[str]:
    return [f.check for f in check_answer(answer_of(line, **changes), paper_of(line))]


@pytest.mark.parametrize(
    ("line", "changes", "expected"),
    [
        # real summaries that pass every check
        (GAME_THEORY, {"keywords": ["hierarchical component selection", "equilibrium", "cs.GT"]}, []),
        (CARRY_ON, {"keywords": ["LLM safety", "multi-turn conversations", "intent clarification"]}, []),
        *[(line, {}, []) for line in corpus_lines()],
        # real summaries that fail: a model the abstract never names, an English placeholder
        (CL_BENCH, {}, ["numbers"]),
        (PLACEHOLDER, {"title_zh": "基线"}, ["cjk_share"]),
        # crafted to break one check each
        (CARRY_ON, {"tldr_zh": "We introduce CarryOnBench, an interactive benchmark for LLM safety."}, ["cjk_share"]),
        (CARRY_ON, {"method_zh": "使用 CarryOnBench benchmark measuring whether LLMs revise intent"}, ["cjk_share"]),
        (CARRY_ON, {"tldr_en": CARRY_ON["summary"]}, ["tldr_copy"]),
        (CARRY_ON, {"tldr_en": CARRY_ON["summary"].split(". ")[1] + "."}, ["tldr_copy"]),
        (GAME_THEORY, {"result_zh": "在最多 32,769 个叶子的合成层次上验证了机制。"}, ["numbers"]),
        (CARRY_ON, {"result_zh": "第一轮模型满足 10.5%-38.6% 的良性信息需求。"}, ["numbers"]),
        (CARRY_ON, {"tldr_en": "Fourteen models recover 95% of utility."}, ["numbers"]),
        (CARRY_ON, {"keywords": ["LLM safety", "protein folding"]}, ["keywords"]),
        (GAME_THEORY, {"keywords": ["reinforcement learning"]}, ["keywords"]),
        # several at once, in a fixed order
        (
            CARRY_ON,
            {"tldr_zh": CARRY_ON["summary"], "keywords": ["quantum chemistry"]},
            ["cjk_share", "tldr_copy", "keywords"],
        ),
    ],
)
def test_checks(line: dict[str, Any], changes: dict[str, Any], expected: list[str]) -> None:
    assert failed(line, **changes) == expected


def test_the_problem_names_what_to_fix() -> None:
    (numbers,) = check_answer(answer_of(CL_BENCH), paper_of(CL_BENCH))
    assert numbers.problem.startswith("numbers that are not in the title or abstract: 4 (in result_zh)")
    (chinese,) = check_answer(answer_of(CARRY_ON, conclusion_zh="It works."), paper_of(CARRY_ON))
    assert "conclusion_zh (0.00)" in chinese.problem


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("up to 32,768 leaves", {32768}),
        ("最多32768个叶子", {32768}),  # a Chinese character before the digits
        ("包含405个上下文-任务对和5,348条验证规则", {405, 5348}),
        ("仅满足10.5-37.6%的需求", {10.5, 37.6}),
        ("19.3 % and 0.50 and .5", {19.3, 0.5}),
        ("1）设计模块；2）利用短语；(3) 约束", set()),  # list markers are no figures
        ("１２８ 个", {128}),  # full-width digits
        ("13/14模型", {13, 14}),
        ("1, 2 and 3", {1, 2, 3}),  # a comma groups thousands only before three digits
    ],
)
def test_numbers_in(text: str, numbers: set[float]) -> None:
    assert numbers_in(text) == numbers


def test_the_paper_states_numbers_in_words_and_as_fractions() -> None:
    known = paper_numbers(paper_of(GAME_THEORY))
    assert {32768, 2, 3} <= known  # "32,768", "$N{=}2$", "three natural-hierarchy datasets"
    known = paper_numbers(paper_of(CARRY_ON))
    assert {5970, 10.5, 0.105, 14} <= known


def test_cjk_share() -> None:
    assert cjk_share(CARRY_ON["AI"]["tldr"]) > MIN_CJK_SHARE
    assert cjk_share(CARRY_ON["summary"]) == 0
    assert cjk_share("使用 LLM") == pytest.approx(2 / 3)  # a Latin word weighs as one character
    assert cjk_share("") == 0


def test_a_shared_phrase_is_no_copy() -> None:
    abstract = CARRY_ON["summary"]
    assert copied_share("CarryOnBench measures whether LLMs recover utility after benign clarification.", abstract) == 0
    assert copied_share(abstract, abstract) == 1


@pytest.mark.parametrize(
    ("keyword", "from_paper"),
    [
        ("LLM", True),  # in the text as written
        ("benchmarking", True),  # a stem of "benchmark"
        ("Multi-Turn Conversation", True),
        ("cs.CL", True),  # a category
        ("protein folding", False),
        ("RLHF", False),  # an acronym of nothing there
    ],
)
def test_keyword_from_paper(keyword: str, from_paper: bool) -> None:
    assert keyword_from_paper(keyword, paper_of(CARRY_ON)) is from_paper


def test_acronyms_of_consecutive_words_come_from_the_paper() -> None:
    paper = paper_of(BY_ID["2605.01011"])
    assert "large language model" in paper.abstract.lower() or "large language model" in paper.title.lower()
    assert keyword_from_paper("LLMs", paper)
