"""When a paper is summarized, what a cached summary is keyed by, and what the summarizer emits; no I/O."""

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from papertrail.runtime.endpoint import budget_day as budget_day
from papertrail.runtime.endpoint import budget_left as budget_left
from papertrail.runtime.endpoint import estimated_cost as estimated_cost
from schemas.events import PaperEmbedding, PaperEnriched, PaperNew, PaperNormalized
from schemas.paper import Paper
from schemas.summary import NO_MODEL_CONFIGURED, SUMMARY_PRIORITIES, Institution, Summary
from services.summarizer.prompt import SummaryAnswer

# Fields whose change makes the old summary wrong; everything else (venue, DOI, links) keeps it.
SUMMARIZED_FIELDS = frozenset({"title", "abstract"})


def cache_key(digest: str, model: str, prompt_version: str) -> str:
    """The cache entry: one summary per content, model and prompt version."""
    return f"{digest}:{model}:{prompt_version}"


def wants_summary(event: PaperNormalized) -> bool:
    """New papers, and revisions whose title or abstract changed, get a fresh summary."""
    if event.kind == "new":
        return True
    return event.kind == "revised" and bool(SUMMARIZED_FIELDS & set(event.version.changed_fields))


@dataclass(frozen=True, slots=True)
class Decision:
    action: Literal["reuse", "call", "pending"]
    reason: str | None = None


def decide(
    *, fresh: bool, cached: Summary | None, previous: Summary | None, model_configured: bool, budget_left: bool
) -> Decision:
    """What to do for one paper.

    `cached`: the summary of exactly this content, model and prompt version; `previous`: the paper's latest
    summary of any content, which kinds other than new and title/abstract revisions keep (`fresh` is False).
    """
    if cached is not None:
        return Decision("reuse")
    if not fresh and previous is not None:
        return Decision("reuse")
    if not model_configured:
        return Decision("pending", NO_MODEL_CONFIGURED)
    if not budget_left:
        return Decision("pending", "daily token budget spent")
    return Decision("call")


def summary_from_answer(
    answer: SummaryAnswer, *, model: str, prompt_version: str, now: datetime, paper_version: str | None
) -> Summary:
    return Summary(
        paper_version=paper_version,
        status="ok",
        model=model,
        prompt_version=prompt_version,
        title_zh=answer.title_zh,
        tldr_zh=answer.tldr_zh,
        motivation_zh=answer.motivation_zh,
        method_zh=answer.method_zh,
        result_zh=answer.result_zh,
        conclusion_zh=answer.conclusion_zh,
        tldr_en=answer.tldr_en,
        keywords=answer.keywords,
        institutions=[Institution(name=i.name, name_zh=i.name_zh) for i in answer.institutions],
        ai_related=answer.ai_related,
        ai_reason=answer.ai_reason,
        generated_at=now,
    )


# The order the summary sweep takes waiting papers in (schemas.summary.SUMMARY_PRIORITIES), so a day's budget (tokens,
# or a local model's time) is spent from the top; within a rank the newest first.
PRIORITIES = SUMMARY_PRIORITIES
READERS, COMMUNITY, NEWEST = range(len(PRIORITIES))


def summary_priority(paper: Paper) -> int:
    """A waiting paper's rank from the paper alone; readers' interest is found later, by the sweep."""
    return COMMUNITY if paper.community is not None else NEWEST


def pending_summary(reason: str) -> Summary:
    return Summary(status="pending", error=reason)


def failed_summary(
    problem: str, *, model: str, prompt_version: str, now: datetime, paper_version: str | None
) -> Summary:
    return Summary(
        status="failed",
        error=problem,
        model=model,
        prompt_version=prompt_version,
        generated_at=now,
        paper_version=paper_version,
    )


def reused_summary(summary: Summary, paper: Paper, *, same_text: bool) -> Summary:
    """A stored summary given to a paper again. Written from this very title and abstract (a cache hit), it describes
    the paper's current version, whichever version or paper it was first written for; kept across a change of the
    text (a metadata update), it names the version it was written from."""
    if same_text and summary.status != "pending":
        return summary.model_copy(update={"paper_version": paper.current_version})
    return summary


def refined_paper(paper: Paper, summary: Summary) -> Paper:
    """The model's verdict can add a paper the categories missed (an LLM paper filed under cs.SE), never remove
    one: authors who file under cs.LG know better than a model's one-line judgement."""
    if summary.status == "ok" and summary.ai_related and not paper.ai_related:
        return paper.model_copy(update={"ai_related": True})
    return paper


def enriched_event(event: PaperNormalized, summary: Summary, embedding: PaperEmbedding | None = None) -> PaperEnriched:
    return PaperEnriched(
        kind=event.kind,
        paper=refined_paper(event.paper, summary),
        version=event.version,
        summary=summary,
        harvested_at=event.harvested_at,
        embedding=embedding,
    )


def new_paper_event(event: PaperNormalized, summary: Summary) -> PaperNew | None:
    """papers.new.v1 carries each paper once, when it is first seen; other kinds publish nothing there."""
    if event.kind != "new":
        return None
    paper = refined_paper(event.paper, summary)
    # the public topic stays what consumers built before summaries named their version read (the paper's
    # `current_version` on the same event says it)
    public = summary.model_copy(update={"paper_version": None})
    return PaperNew(paper=paper, summary=public, first_seen=paper.first_seen)
