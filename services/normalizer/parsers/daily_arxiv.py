"""Parser for one line of daily-arXiv-ai-enhanced's day file: the paper as arXiv listed it that day (the same line
as the May 2026 corpus') and the publisher's Chinese summary of it. Pure function.

The paper's fields are read as a corpus line's; the `AI` object (tldr, motivation, method, result, conclusion,
written by deepseek-chat) becomes the paper's `community_summary`, which the summarizer shows as its 导读 until it
writes its own. A line whose `AI` object is missing or holds no TL;DR is still the paper's listing.
"""

import json
from typing import Any

from schemas.events import RawRecord
from schemas.paper import CommunitySummary
from services.normalizer.parsers.arxiv_json import parse_corpus_line
from services.normalizer.records import ParsedRecord, UnparseableRecord

PUBLISHER = "daily-arXiv-ai-enhanced"
MODEL = "deepseek-chat"  # the publisher's README and workflow name it; a line does not
SECTIONS = ("tldr", "motivation", "method", "result", "conclusion")


def parse_daily_arxiv(raw: RawRecord) -> ParsedRecord:
    record = parse_corpus_line(raw)
    record.source = "daily_arxiv"
    if not raw.datestamp:
        raise UnparseableRecord(f"daily-arXiv {record.record_id}: no day (datestamp)")
    record.community_summary = community_summary(json.loads(raw.content).get("AI"), raw.datestamp)
    return record


def community_summary(ai: Any, date: str) -> CommunitySummary | None:
    """A line's `AI` sections as a community summary, or None when it carries no TL;DR."""
    if not isinstance(ai, dict):
        return None
    text = {name: value.strip() if isinstance(value := ai.get(name), str) else "" for name in SECTIONS}
    if not text["tldr"]:
        return None
    return CommunitySummary(
        publisher=PUBLISHER,
        model=MODEL,
        date=date,
        tldr_zh=text["tldr"],
        motivation_zh=text["motivation"],
        method_zh=text["method"],
        result_zh=text["result"],
        conclusion_zh=text["conclusion"],
    )
