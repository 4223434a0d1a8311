"""Hugging Face daily papers (`/api/daily_papers?date=`) → one raw record per listed paper. No I/O."""

import json
from typing import Any

from services.harvester.sources import SourceRecord


class MalformedDailyList(Exception):
    """The body is not the JSON list the daily papers API answers with."""


def split_daily_list(body: bytes, date: str) -> tuple[list[SourceRecord], list[str]]:
    """Records of one day's list (id = the arXiv id, datestamp = the list's date) and notes on skipped items.

    The item layout changed over time (2025 items carry submittedBy, ai_summary, githubRepo, ...); only
    `paper.id` is needed here, everything else travels untouched for the normalizer.
    """
    try:
        items: Any = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedDailyList(f"not JSON: {exc}") from exc
    if not isinstance(items, list):
        raise MalformedDailyList(f"expected a JSON list, got {type(items).__name__}")
    records: list[SourceRecord] = []
    notes: list[str] = []
    for position, item in enumerate(items):
        paper = item.get("paper") if isinstance(item, dict) else None
        paper_id = paper.get("id") if isinstance(paper, dict) else None
        if not isinstance(paper_id, str) or not paper_id:
            notes.append(f"{date} item {position}: no paper.id, skipped")
            continue
        content = json.dumps(item, ensure_ascii=False)
        records.append(SourceRecord.of(paper_id, "hf_daily_json", content, date))
    return records, notes
