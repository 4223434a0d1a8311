"""The AI summary of a paper, as the summarizer stores and emits it."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.added_fields import left_out

SummaryStatus = Literal["ok", "pending", "failed"]

# The `error` of a summary pending because the summarizer has no endpoint at all (the paper page then says how to
# get summaries).
NO_MODEL_CONFIGURED = "no model configured"

# The ranks of papers waiting for a summary (`summary_pending.priority`), in the sweep's order: papers readers asked for
# (matched by a follow, saved, picked for a ranked feed), then the community's picks (Hugging Face daily papers), then
# the rest. The summarizer ranks; the status page counts the backlog by rank.
SUMMARY_PRIORITIES = ("readers", "community", "newest")


class Institution(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="institution name as given", examples=["Tsinghua University"])
    name_zh: str = Field(description="its Chinese name", examples=["清华大学"])


class Summary(BaseModel):
    """A structured bilingual summary, or the reason there is none yet."""

    model_config = ConfigDict(extra="forbid")

    status: SummaryStatus = Field(description="ok; pending (no model, budget spent, endpoint down); failed")
    model: str | None = Field(None, description="model that wrote it", examples=["deepseek-chat"])
    prompt_version: str | None = Field(None, description="version of the prompt used", examples=["2026-11-30.1"])
    title_zh: str | None = Field(None, description="Chinese title")
    tldr_zh: str | None = Field(None, description="Chinese TL;DR")
    motivation_zh: str | None = Field(None, description="motivation, in Chinese")
    method_zh: str | None = Field(None, description="method, in Chinese")
    result_zh: str | None = Field(None, description="results, in Chinese")
    conclusion_zh: str | None = Field(None, description="conclusion, in Chinese")
    tldr_en: str | None = Field(None, description="English TL;DR")
    keywords: list[str] = Field(default_factory=list, max_length=8, description="up to 8 keywords")
    institutions: list[Institution] = Field(default_factory=list, description="institutions with Chinese names")
    ai_related: bool | None = Field(None, description="the model's AI-related verdict")
    ai_reason: str | None = Field(None, description="one line saying why")
    error: str | None = Field(
        None, description="why the summary failed or is pending (a community summary: why ours is not written yet)"
    )
    generated_at: datetime | None = Field(None, description="when it was written (UTC)")
    publisher: str | None = Field(
        None,
        exclude_if=left_out,
        description="who published it when it is not PaperTrail's own (a community summary shown until ours is "
        "written; `model` is the model the publisher names); absent in PaperTrail's own",
        examples=["daily-arXiv-ai-enhanced"],
    )
    published_on: str | None = Field(
        None,
        exclude_if=left_out,
        description="the day the publisher published it (a community summary); absent in PaperTrail's own",
        examples=["2026-05-08"],
    )
    paper_version: str | None = Field(
        None,
        exclude_if=left_out,
        description="the paper's version whose title and abstract it was written from (the source's label); absent "
        "in summaries written before it was recorded, in those without a version label, and on papers.new.v1",
        examples=["v2"],
    )
    title_model: str | None = Field(
        None,
        exclude_if=left_out,
        description="the local model that translated `title_zh` while the paper waits for a summary (no summary "
        "endpoint: TITLES_BASE_URL); absent when the summary's own model wrote the title",
        examples=["qwen2.5-coder-1.5b-instruct"],
    )
