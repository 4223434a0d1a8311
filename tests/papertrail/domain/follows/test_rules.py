"""Matching real corpus papers against topic, keyword and author follows, with the exact reasons."""

import json
import random
from datetime import UTC, datetime

import pytest

from bench.match_follows import generate_follows
from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.follows.checks import chinese_terms, only_chinese
from papertrail.domain.follows.expressions import ExpressionError
from papertrail.domain.follows.rules import FollowIndex, PaperText, topics_by_id
from schemas.events import Follow, MatchReason, Subtopic
from schemas.paper import Author, Paper
from schemas.summary import Summary
from tests.support.corpus import corpus_papers, paper_from_line, sample_papers
from tests.support.fake_openai import ADDITIONS, corpus_lines, corpus_summary_fields

NOW = datetime(2026, 5, 20, tzinfo=UTC)
PAPERS = sample_papers()
ADDED_TITLES = json.loads(ADDITIONS.read_text(encoding="utf-8"))["title_zh"]  # hand-translated, ORIGIN.md says
RAG_NOT_SURVEY = 'retrieval AND ("language model" OR LLM) NOT survey'


def follow(follow_id: str, kind: str, **fields: object) -> Follow:
    return Follow.model_validate(
        {"id": follow_id, "user_id": "u1", "kind": kind, "name": follow_id, "created_at": NOW, **fields}
    )


@pytest.fixture
def index() -> FollowIndex:
    return FollowIndex(topics=topics_by_id(load_catalogue()))


def matched(index: FollowIndex, paper_id: str) -> dict[str, list[MatchReason]]:
    return {f.id: reasons for f, reasons in index.match(PAPERS[paper_id])}


def test_topic_follow_explains_subtopic_term_field_and_categories(index: FollowIndex) -> None:
    index.upsert(follow("reasoning", "topic", topic_id="llm-reasoning"))
    # "TUR-DPO": math reasoning appears only in the abstract; the subtopic is limited to cs.CL/cs.AI/cs.LG
    assert matched(index, "arxiv:2605.00224")["reasoning"] == [
        MatchReason(
            subtopic="math reasoning",
            subtopic_id="math-reasoning",
            term="mathematical",
            field="abstract",
            categories=["cs.AI"],
        ),
        MatchReason(
            subtopic="math reasoning",
            subtopic_id="math-reasoning",
            term="reasoning",
            field="abstract",
            categories=["cs.AI"],
        ),
    ]
    # a cs.GT paper about matching markets is not LLM reasoning
    assert "reasoning" not in matched(index, "arxiv:2604.27104")


def test_keyword_follow_with_and_or_not_and_parentheses(index: FollowIndex) -> None:
    index.upsert(follow("rag", "keyword", query=RAG_NOT_SURVEY))
    index.upsert(follow("rag-any", "keyword", query='retrieval AND ("language model" OR LLM)'))
    # MemORAI: "LLM" in title and abstract, "Retrieval" in both
    assert matched(index, "arxiv:2605.01386")["rag"] == [
        MatchReason(term="llm", field="title"),
        MatchReason(term="llm", field="abstract"),
        MatchReason(term="retrieval", field="title"),
        MatchReason(term="retrieval", field="abstract"),
    ]
    # the survey-research paper mentions retrieval and LLM, so only the follow without NOT survey takes it
    survey = matched(index, "arxiv:2605.19229")
    assert "rag" not in survey
    assert survey["rag-any"] == [
        MatchReason(term="llm", field="abstract"),
        MatchReason(term="retrieval", field="abstract"),
    ]


def test_fields_are_respected(index: FollowIndex) -> None:
    paper = PAPERS["arxiv:2605.00674"]  # "…for Mathematics with LLMs": "olympiad" only in the abstract
    assert "olympiad" not in paper.title.lower() and "olympiad" in paper.abstract.lower()
    index.upsert(follow("title-only", "keyword", query="olympiad", fields="title"))
    index.upsert(follow("abstract-only", "keyword", query="olympiad", fields="abstract"))
    index.upsert(follow("both", "keyword", query="olympiad"))
    hits = matched(index, paper.id)
    assert set(hits) == {"abstract-only", "both"}
    assert hits["both"] == [MatchReason(term="olympiad", field="abstract")]


def test_category_filter(index: FollowIndex) -> None:
    index.upsert(follow("cv", "keyword", query="retrieval", categories=["cs.CV"]))
    index.upsert(follow("cl", "keyword", query="retrieval", categories=["cs.CL", "cs.IR"]))
    hits = matched(index, "arxiv:2605.00631")  # cs.CL, cs.IR
    assert set(hits) == {"cl"}
    assert hits["cl"][0].categories == ["cs.CL", "cs.IR"]


def test_unfollowing_stops_matches_and_refollowing_needs_no_rebuild(index: FollowIndex) -> None:
    index.upsert(follow("rag", "keyword", query=RAG_NOT_SURVEY))
    assert "rag" in matched(index, "arxiv:2605.01386")
    rebuilds = index.rebuilds
    index.remove("rag")
    assert matched(index, "arxiv:2605.01386") == {}
    index.upsert(follow("rag2", "keyword", query="LLM retrieval"))  # terms already in the automaton
    assert "rag2" in matched(index, "arxiv:2605.01386")
    assert index.rebuilds == rebuilds


def test_an_updated_follow_replaces_the_old_one(index: FollowIndex) -> None:
    index.upsert(follow("f", "keyword", query="retrieval"))
    index.upsert(follow("f", "keyword", query="olympiad"))
    assert "f" not in matched(index, "arxiv:2605.01386")
    assert "f" in matched(index, "arxiv:2605.00674")


def test_a_follow_that_does_not_compile_leaves_the_index_unchanged(index: FollowIndex) -> None:
    index.upsert(follow("f", "keyword", query="retrieval"))
    with pytest.raises(ExpressionError, match="unbalanced parenthesis"):
        index.upsert(follow("f", "keyword", query="(retrieval"))
    with pytest.raises(ValueError, match="unknown topic 'nope'"):
        index.upsert(follow("g", "topic", topic_id="nope"))
    assert "f" in matched(index, "arxiv:2605.01386")


def test_user_defined_topic(index: FollowIndex) -> None:
    plants = Subtopic(id="plants", name="plant imaging", name_zh="植物图像", rule="plant* AND image*", fields="title")
    index.upsert(follow("mine", "topic", name="my topic", subtopics=[plants.model_dump()]))
    assert matched(index, "arxiv:2604.27538")["mine"] == [
        MatchReason(subtopic="plant imaging", subtopic_id="plants", term="image*", field="title"),
        MatchReason(subtopic="plant imaging", subtopic_id="plants", term="plant*", field="title"),
    ]


@pytest.mark.parametrize(
    ("name", "initial_only"),
    [("Zhang, Wei", False), ("Wei Zhang", False), ("Wéi Zhāng", False), ("W. Zhang", True), ("ZHANG, W.", True)],
)
def test_author_variants_follow_the_written_rule(index: FollowIndex, name: str, initial_only: bool) -> None:
    index.upsert(follow("wz", "author", author=name))
    by_paper = {pid: matched(index, pid).get("wz") for pid in PAPERS}
    hit = {pid for pid, reasons in by_paper.items() if reasons}
    wei = {"arxiv:2605.01451", "arxiv:2605.08961"}  # Wei Zhang, Wei-Qiang Zhang
    others = {"arxiv:2605.20043", "arxiv:2604.27472"}  # Wen Zhang, Weinan Zhang
    if initial_only:
        assert hit == wei | others  # an initial is compatible with every W. given name
    else:
        assert hit == wei  # "Wei" is not "Wen" nor "Weinan"
    # a follow of the initial only matches through it, and its reason says so
    how = "initial" if initial_only else None
    assert by_paper["arxiv:2605.01451"] == [MatchReason(term="Wei Zhang", field="authors", name_match=how)]


def test_author_diacritics_are_folded(index: FollowIndex) -> None:
    index.upsert(follow("goeau", "author", author="Goeau, Herve"))
    assert {pid for pid in PAPERS if "goeau" in matched(index, pid)} == {"arxiv:2604.27178", "arxiv:2604.27538"}
    assert matched(index, "arxiv:2604.27178")["goeau"] == [MatchReason(term="Hervé Goëau", field="authors")]


def _paper_with(author: Author) -> Paper:
    base = PAPERS["arxiv:2605.01451"]
    return base.model_copy(update={"authors": [author]})


def test_author_pins_need_evidence() -> None:
    index = FollowIndex()
    index.upsert(follow("tsinghua", "author", author="Wei Zhang", affiliation="Tsinghua University"))
    index.upsert(follow("orcid", "author", author="Wei Zhang", orcid="https://orcid.org/0000-0002-1825-009x"))
    index.upsert(follow("hf", "author", author="Wei Zhang", source_author_id="hf:abc123"))
    plain = Author(name="Wei Zhang", key="zhang w")
    at_tsinghua = Author(name="Wei Zhang", key="zhang w", affiliations=["Dept. of CS, Tsinghua University"])
    with_orcid = Author(name="W. Zhang", key="zhang w", orcid="0000-0002-1825-009X")
    other_orcid = Author(
        name="Wei Zhang", key="zhang w", orcid="0000-0001-0000-0000", affiliations=["Tsinghua University"]
    )
    renamed = Author(name="张伟", key="张伟", source_ids={"hf": "abc123"})
    assert {f.id for f, _ in index.match(_paper_with(plain))} == set()
    assert {f.id for f, _ in index.match(_paper_with(at_tsinghua))} == {"tsinghua"}
    assert {f.id for f, _ in index.match(_paper_with(with_orcid))} == {"orcid"}
    assert {f.id for f, _ in index.match(_paper_with(other_orcid))} == {"tsinghua"}
    assert {f.id for f, _ in index.match(_paper_with(renamed))} == {"hf"}


def test_automaton_and_naive_loop_agree_on_the_sample(index: FollowIndex) -> None:
    for topic in load_catalogue():
        index.upsert(follow(f"topic-{topic.id}", "topic", topic_id=topic.id))
    for n, query in enumerate([RAG_NOT_SURVEY, "benchmark* NOT medical", "(plant OR crop) AND image*", "llm*"]):
        index.upsert(follow(f"kw-{n}", "keyword", query=query))
    for n, name in enumerate(["Wei Zhang", "W. Zhang", "Hervé Goëau", "Melih Sahin"]):
        index.upsert(follow(f"au-{n}", "author", author=name))
    total = 0
    for paper in PAPERS.values():
        fast = index.match(PaperText.of(paper))
        assert fast == index.match_naive(paper), paper.id
        total += len(fast)
    assert total >= len(PAPERS)  # the comparison is not vacuous


def test_automaton_and_naive_loop_agree_on_generated_follows_over_corpus_papers() -> None:
    """The benchmark's follow mix (topics, NOT / OR / phrase / prefix expressions, fields, categories, authors)."""
    papers = corpus_papers()
    index = FollowIndex(topics=topics_by_id(load_catalogue()))
    for generated in generate_follows(800, papers, random.Random(11)):
        index.upsert(generated)
    total = 0
    kinds = set()
    for paper in papers[::40]:
        text = PaperText.of(paper)
        fast = index.match(text)
        assert fast == index.match_naive(text), paper.id
        total += len(fast)
        kinds |= {f.kind for f, _ in fast}
    assert total > 100 and kinds == {"topic", "keyword", "author"}  # the comparison is not vacuous


def test_a_chinese_keyword_follow_matches_the_chinese_title_and_summary(index: FollowIndex) -> None:
    """Chinese terms are matched anywhere (Chinese has no spaces between words), by the words an unquoted one is cut
    into, in the paper's Chinese title (as its title) and its AI summary's Chinese TL;DR and 导读 (as its abstract); the
    English text alone holds none of them."""
    clear = next(line for line in corpus_lines() if line["id"] == "2605.01011")
    paper = paper_from_line(clear)
    summary = Summary(status="ok", title_zh=ADDED_TITLES["2605.01011"], **corpus_summary_fields(clear))
    index.upsert(follow("llm", "keyword", query="大语言模型"))  # 大, 语言, 模型: all in the Chinese title
    index.upsert(follow("abstain", "keyword", query="弃权 AND 谦卑赤字", fields="abstract"))  # in the TL;DR
    index.upsert(follow("title-only", "keyword", query="谦卑赤字", fields="title"))
    index.upsert(follow("mixed", "keyword", query="医学 AND LLMs"))  # 医学 in Chinese, LLMs in the English title
    index.upsert(follow("absent", "keyword", query="扩散模型"))  # 扩散 is not said: 扩大模型规模 is no match
    for found in (index.match(PaperText.of(paper, summary)), index.match_naive(PaperText.of(paper, summary))):
        hits = {f.id: reasons for f, reasons in found}
        assert set(hits) == {"llm", "abstain", "mixed"}
        # 大, 语言 and 模型 in the Chinese title (大 and 模型 in the summary too): named as written, once a field
        assert hits["llm"] == [
            MatchReason(term="大语言模型", field="title"),
            MatchReason(term="大语言模型", field="abstract"),
        ]
        assert hits["abstain"] == [
            MatchReason(term="弃权", field="abstract"),
            MatchReason(term="谦卑赤字", field="abstract"),
        ]
        assert MatchReason(term="医学", field="title") in hits["mixed"]
    assert index.match(PaperText.of(paper)) == []  # without its summary: English words only


def test_chinese_terms_and_follows_of_chinese_terms_only() -> None:
    assert chinese_terms('大模型推理 OR "LLM inference" NOT 综述') == ["大模型推理"]
    assert only_chinese("大模型推理") and only_chinese("大模型 AND 推理 NOT survey") and only_chinese("LLM AND 推理")
    assert not only_chinese('大模型推理 OR "LLM inference"') and not only_chinese("LLM NOT 推理")
    assert not only_chinese("LLM inference")
