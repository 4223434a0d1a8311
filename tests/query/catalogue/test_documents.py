"""The search document of an enriched paper: what decides its AI-related flag, and its abstract as written and as
read."""

import json
from datetime import UTC, datetime

from papertrail.domain.search_document import paper_document
from schemas.events import PaperEnriched
from schemas.paper import CommunityPick, Paper, PaperIds, PaperVersion
from schemas.summary import Summary
from tests.support.paths import SOURCES

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def _pick() -> Paper:
    """The first pick of the recorded 2025-09-16 daily list, as the normalizer holds it before arXiv's record."""
    item = json.loads((SOURCES / "hf_daily_papers/daily_papers_2025-09-16.json").read_text(encoding="utf-8"))[0]
    return Paper(
        id=f"arxiv:{item['paper']['id']}",
        ids=PaperIds(arxiv=item["paper"]["id"]),
        title=item["paper"]["title"],
        sources=["hf"],
        community=CommunityPick(date="2025-09-16", upvotes=item["paper"]["upvotes"]),
        ai_related=True,
        first_seen=NOW,
        updated_at=NOW,
    )


def _document(paper: Paper, summary: Summary) -> dict:
    version = PaperVersion(paper_id=paper.id, seq=1, kind="first_observed", source="hf",
                           source_record_id=paper.id, observed_at=NOW, content_hash="h")  # fmt: skip
    return paper_document(PaperEnriched(kind="new", paper=paper, version=version, summary=summary), {})


def test_a_model_verdict_does_not_unmark_an_ai_related_paper() -> None:
    says_no = Summary(status="ok", tldr_en="…", ai_related=False, ai_reason="not about AI", generated_at=NOW)
    assert _document(_pick(), says_no)["ai_related"] is True


def test_the_document_carries_the_flag_the_summarizer_refined() -> None:
    paper = _pick().model_copy(update={"ai_related": False})
    assert _document(paper, Summary(status="pending"))["ai_related"] is False
    # the summarizer sets the flag on the paper when its model says yes (policy.refined_paper)
    says_yes = Summary(status="ok", tldr_en="…", ai_related=True, ai_reason="LLM", generated_at=NOW)
    assert _document(paper.model_copy(update={"ai_related": True}), says_yes)["ai_related"] is True


def test_the_abstract_is_kept_as_written_and_searched_as_read() -> None:
    # 2605.14068 of the corpus (tests/fixtures/corpus): the API's `abstract` is the author's text, the index reads
    # `abstract_text`
    written = r"improves over \texttt{Qwen-3-VL-8B-Thinking} from \textbf{2.8\%} to \textbf{33.3\%} tree-generation"
    document = _document(_pick().model_copy(update={"abstract": written}), Summary(status="pending"))
    assert document["abstract"] == written
    assert document["abstract_text"] == "improves over Qwen-3-VL-8B-Thinking from 2.8% to 33.3% tree-generation"
