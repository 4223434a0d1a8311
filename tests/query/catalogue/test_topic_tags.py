"""Catalogue topics are tagged where a paper is indexed, by the matcher's own rules (no servers)."""

from datetime import UTC, datetime

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.follows.rules import PaperText, compile_follow, match_one, topics_by_id
from schemas.events import Follow
from services.query.catalogue.indexer.topic_tags import TopicTagger
from tests.support.corpus import sample_papers


def test_tags_are_the_topics_the_matcher_rules_hit_with_their_reasons() -> None:
    catalogue = load_catalogue()
    tagger = TopicTagger(catalogue)
    papers = list(sample_papers().values())
    topics = topics_by_id(catalogue)
    now = datetime.now(UTC)
    follows = {
        t.id: compile_follow(
            Follow(id=t.id, user_id="u", kind="topic", name=t.name, topic_id=t.id, created_at=now), topics
        )
        for t in catalogue
    }
    tagged = 0
    for paper in papers:
        expected = {
            topic_id: [r.model_dump(mode="json") for r in reasons]
            for topic_id, compiled in follows.items()
            if (reasons := match_one(compiled, PaperText.of(paper)))
        }
        assert tagger.of(paper) == expected, paper.id
        tagged += bool(expected)
    assert 0 < tagged < len(papers), "the sample should hold papers with and without topics"


def test_reasons_name_the_subtopic_term_and_field() -> None:
    tagger = TopicTagger(load_catalogue())
    tags = tagger.tags(
        "arxiv:2605.00001",
        "Chain of Thought for Arithmetic",
        "We study mathematical reasoning of language models.",
        ["cs.CL"],
    )
    reasons = tags["llm-reasoning"]
    assert {(r["subtopic_id"], r["term"], r["field"]) for r in reasons} >= {
        ("chain-of-thought", "chain of thought", "title"),
        ("math-reasoning", "reasoning", "abstract"),
    }
    # the math-reasoning subtopic is limited to cs.CL / cs.AI / cs.LG
    elsewhere = tagger.tags("arxiv:2605.00002", "Arithmetic", "Mathematical reasoning.", ["math.LO"])
    assert "math-reasoning" not in {r["subtopic_id"] for r in elsewhere.get("llm-reasoning", [])}
    assert tagger.tags("arxiv:2605.00003", "Molecular communication codes", "Run-length limits.", ["cs.IT"]) == {}


def test_the_digest_follows_the_catalogue_not_its_order() -> None:
    catalogue = load_catalogue()
    digest = TopicTagger(catalogue).digest
    assert TopicTagger(list(reversed(catalogue))).digest == digest
    changed = load_catalogue()
    changed[0].subtopics[0].rule += " OR sudoku"
    assert TopicTagger(changed).digest != digest
