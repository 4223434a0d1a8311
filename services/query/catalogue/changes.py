"""What each new version of a paper changed (title, authors, abstract, comments, categories), from its version records'
`before` values and the paper as it reads now; the abstract and title as a word-level diff. No I/O."""

import re
from difflib import SequenceMatcher
from typing import Any

COMPARED = ("title", "authors", "abstract", "comments", "categories")
WORDED = frozenset({"title", "abstract"})
_TOKENS = re.compile(r"\S+|\s+")


def word_diff(before: str, after: str) -> list[dict[str, str]]:
    """Runs of text, each `equal`, `delete` (only before) or `insert` (only after), word by word; the spaces are kept
    so the runs joined read as the text."""
    old, new = _TOKENS.findall(before), _TOKENS.findall(after)
    runs: list[dict[str, str]] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op in ("equal", "delete", "replace"):
            runs.append({"op": "equal" if op == "equal" else "delete", "text": "".join(old[i1:i2])})
        if op in ("insert", "replace"):
            runs.append({"op": "insert", "text": "".join(new[j1:j2])})
    return [run for run in runs if run["text"]]


def _now(paper: dict[str, Any], field: str) -> Any:
    if field == "authors":
        return [a["name"] for a in paper.get("authors") or []]
    if field == "comments":
        return paper.get("comments") or ""
    return paper.get(field) or ([] if field == "categories" else "")


def _field_change(field: str, before: Any, after: Any) -> dict[str, Any]:
    change: dict[str, Any] = {"field": field, "before": before, "after": after}
    if field in WORDED:
        change["diff"] = word_diff(before, after)
    elif isinstance(before, list):
        change["added"] = [x for x in after if x not in before]
        change["removed"] = [x for x in before if x not in after]
    return change


def version_changes(paper: dict[str, Any], history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Newest first: for each version record that changed a compared field, its version label and date (the
    source's, else when it was observed), the label it followed, and each field before and after it."""
    dates = {(v.get("source"), v.get("label")): v.get("date") for v in paper.get("versions") or []}
    current = {field: _now(paper, field) for field in COMPARED}
    ordered = sorted(history, key=lambda record: record["seq"])
    changes: list[dict[str, Any]] = []
    for index in range(len(ordered) - 1, -1, -1):
        record = ordered[index]
        before = record.get("before") or {}
        fields = []
        for field in COMPARED:
            if field in before:
                if before[field] != current[field]:
                    fields.append(_field_change(field, before[field], current[field]))
                current[field] = before[field]
        if not fields:
            continue
        label = record.get("source_version")
        earlier = [r.get("source_version") for r in ordered[:index] if r.get("source_version")]
        changes.append(
            {
                "seq": record["seq"],
                "version": label,
                "previous_version": earlier[-1] if earlier and earlier[-1] != label else None,
                "date": dates.get((record.get("source"), label)) or record.get("observed_at"),
                "observed_at": record.get("observed_at"),
                "fields": fields,
            }
        )
    return changes
