"""A match's reason as one line of plain English, as digests and Atom feeds show it. No I/O."""

from typing import Any

# an author follow's match through less than the name as written (papertrail/domain/follows/authors.py, rule 4)
NAME_MATCH = {"initial": "initial only", "initials": "initials only", "family": "family name only"}
EVIDENCE = {"comment": "comment", "journal_ref": "journal reference", "doi": "DOI", "proceedings": "proceedings"}


def venue_evidence(reason: dict[str, Any], names: dict[str, str] = EVIDENCE) -> str:
    """`comment of v3`, `proceedings`: where a venue follow's acceptance was read, in `names`' words."""
    evidence = names.get(reason.get("evidence") or "", reason.get("evidence") or "")
    version = reason.get("source_version")
    return f"{evidence} of {version}" if version and reason.get("evidence") in ("comment", "journal_ref") else evidence


def reason_text(reason: dict[str, Any]) -> str:
    """`retrieval(abstract)`, `math reasoning: reasoning(abstract)`, `author Jane Doe`, `author Y. Li (initial only)`
    (an author follow matched through less than the name as written), or for a similar follow
    `similar to "SafeConv: …" (0.74)` (the closest seed paper) or `similar to your description (0.71)`, or for a
    venue follow `accepted at ICML 2026 (comment of v3)`, or for an institution follow `an author at Tsinghua
    University`."""
    field = reason.get("field")
    if field == "institution":
        return f"an author at {reason['term']}"
    if field == "venue":
        evidence = venue_evidence(reason)
        return f"accepted at {reason['term']} ({evidence})" if evidence else f"accepted at {reason['term']}"
    if field == "similar":
        score = f"{reason.get('score') or 0:.2f}"
        return (
            f'similar to "{reason["term"]}" ({score})'
            if reason.get("seed_id")
            else f"similar to your description ({score})"
        )
    if field == "authors":
        how = NAME_MATCH.get(reason.get("name_match") or "")
        return f"author {reason['term']} ({how})" if how else f"author {reason['term']}"
    text = f"{reason['term']}({field})"
    return f"{reason['subtopic']}: {text}" if reason.get("subtopic") else text
