"""A match's reason as one line of plain English, as digests and Atom feeds show it. No I/O."""

from typing import Any


def reason_text(reason: dict[str, Any]) -> str:
    """`retrieval(abstract)`, `math reasoning: reasoning(abstract)`, `author Jane Doe`, or for a similar follow
    `similar to "SafeConv: …" (0.74)` (the closest seed paper) or `similar to your description (0.71)`."""
    field = reason.get("field")
    if field == "similar":
        score = f"{reason.get('score') or 0:.2f}"
        return (
            f'similar to "{reason["term"]}" ({score})'
            if reason.get("seed_id")
            else f"similar to your description ({score})"
        )
    if field == "authors":
        return f"author {reason['term']}"
    text = f"{reason['term']}({field})"
    return f"{reason['subtopic']}: {text}" if reason.get("subtopic") else text
