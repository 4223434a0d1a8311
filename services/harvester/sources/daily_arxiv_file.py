"""daily-arXiv-ai-enhanced's day file (`data/<date>_AI_enhanced_Chinese.jsonl`) → one raw record per line. No I/O."""

import json

from services.harvester.sources import SourceRecord


class MalformedDayFile(Exception):
    """The body is not the UTF-8 JSON lines the day files are."""


def day_file_path(date: str) -> str:
    """Where the publisher keeps a day's Chinese summaries, under its `data` branch."""
    return f"data/{date}_AI_enhanced_Chinese.jsonl"


def split_day_file(body: bytes, date: str) -> tuple[list[SourceRecord], list[str]]:
    """Records of one day's file (id = the line's arXiv id, datestamp = the file's day) and notes on skipped lines.

    Each line is one paper as arXiv listed it that day with the publisher's `AI` summary; the line travels
    untouched for the normalizer, which reads both."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedDayFile(f"not UTF-8: {exc}") from exc
    records: list[SourceRecord] = []
    notes: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            notes.append(f"{date} line {number}: not JSON ({exc.msg}), skipped")
            continue
        paper_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(paper_id, str) or not paper_id:
            notes.append(f"{date} line {number}: no id, skipped")
            continue
        records.append(SourceRecord.of(paper_id, "daily_arxiv_json", line.strip(), date))
    if notes and not records:  # an error page, a moved file: nothing of it is a day file's line
        raise MalformedDayFile(f"no line is a paper: {notes[0]}")
    return records, notes
