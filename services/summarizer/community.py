"""A community summary (another system's, carried on the paper) as the paper's summary while it has none of ours:
only after the checks our own summaries pass (checks.py). No I/O."""

from schemas.paper import CommunitySummary, Paper
from schemas.summary import Summary
from services.summarizer.checks import CheckFailure, check_answer
from services.summarizer.prompt import SummaryAnswer


def as_answer(summary: CommunitySummary) -> SummaryAnswer:
    """The community summary in the shape the checks read: it has no Chinese title, English TL;DR or keywords,
    which the checks then pass over (an empty field is checked for nothing)."""
    return SummaryAnswer.model_construct(
        title_zh="",
        tldr_zh=summary.tldr_zh,
        motivation_zh=summary.motivation_zh,
        method_zh=summary.method_zh,
        result_zh=summary.result_zh,
        conclusion_zh=summary.conclusion_zh,
        tldr_en="",
        keywords=[],
        institutions=[],
        ai_related=False,
        ai_reason="",
    )


def community_checks(paper: Paper) -> list[CheckFailure] | None:
    """The checks the paper's community summary fails (empty: it may be shown), or None when it carries none."""
    if paper.community_summary is None:
        return None
    return check_answer(as_answer(paper.community_summary), paper)


def stand_in(paper: Paper, why_not_ours: str) -> Summary:
    """The paper's community summary as its summary, with its provenance; `error` keeps why ours is not written
    (the paper keeps waiting for it). Call only for a summary that passed `community_checks`."""
    community = paper.community_summary
    assert community is not None
    return Summary(
        status="ok",
        model=community.model,
        publisher=community.publisher,
        published_on=community.date,
        tldr_zh=community.tldr_zh,
        motivation_zh=community.motivation_zh or None,
        method_zh=community.method_zh or None,
        result_zh=community.result_zh or None,
        conclusion_zh=community.conclusion_zh or None,
        error=why_not_ours,
    )


def is_stand_in(summary: Summary) -> bool:
    """A summary another system published: shown, but the paper still waits for ours."""
    return summary.publisher is not None


def waits_for_ours(summary: Summary) -> bool:
    """Whether the paper stays in the summary sweep's queue with this summary."""
    return summary.status == "pending" or is_stand_in(summary)
