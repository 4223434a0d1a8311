"""Matching rules: which follows a paper satisfies and why. No I/O.

A keyword follow's query is a phrase; it hits when the folded phrase occurs, on word boundaries, in the
fields the follow names. An author follow hits on the normalized author key.
"""

import re
from dataclasses import dataclass, field

from schemas.events import Follow, MatchReason
from schemas.paper import Paper
from services.normalizer.names import author_key, split_name
from services.normalizer.text import fold


@dataclass(slots=True)
class FollowIndex:
    """Every active follow, kept in step with follows.changed.v1."""

    follows: dict[str, Follow] = field(default_factory=dict)

    def upsert(self, follow: Follow) -> None:
        self.follows[follow.id] = follow

    def remove(self, follow_id: str) -> None:
        self.follows.pop(follow_id, None)

    def match(self, paper: Paper) -> list[tuple[Follow, list[MatchReason]]]:
        texts = {"title": fold(paper.title), "abstract": fold(paper.abstract)}
        author_keys = {a.key for a in paper.authors}
        hits = []
        for follow in self.follows.values():
            if follow.categories and not set(follow.categories) & set(paper.categories):
                continue
            reasons = _reasons(follow, texts, author_keys)
            if reasons:
                hits.append((follow, reasons))
        return hits


def _reasons(follow: Follow, texts: dict[str, str], author_keys: set[str]) -> list[MatchReason]:
    if follow.kind == "author" and follow.author:
        key = author_key(*split_name(follow.author))
        return [MatchReason(term=key, field="authors")] if key in author_keys else []
    if follow.kind == "keyword" and follow.query:
        phrase = fold(follow.query)
        fields = ("title", "abstract") if follow.fields == "both" else (follow.fields,)
        pattern = re.compile(rf"\b{re.escape(phrase)}\b")
        return [
            MatchReason(term=follow.query, field=f, categories=follow.categories)  # type: ignore[arg-type]
            for f in fields
            if pattern.search(texts[f])
        ]
    return []
