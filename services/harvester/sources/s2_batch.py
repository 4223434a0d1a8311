"""Semantic Scholar's paper batch answer (`POST /graph/v1/paper/batch`): a JSON array holding, in the order of the
ids asked, each paper found with the fields asked for, or null for an id it does not know. Pure functions."""

import json
from dataclasses import dataclass
from typing import Any

# what a count needs: the count, and the ids and date the paper is known by there (kept with the record)
FIELDS = "externalIds,citationCount,publicationDate"


class MalformedBatch(ValueError):
    """The answer is not the batch asked for: the batch is asked again on the next run."""


@dataclass(frozen=True, slots=True)
class BatchAnswer:
    asked: str
    paper: dict[str, Any] | None  # None: the source does not know the id

    @property
    def outcome(self) -> str:
        """`counted` (a paper with a count), `not_found`, or `no_count` (a paper answered without one)."""
        if self.paper is None:
            return "not_found"
        count = self.paper.get("citationCount")
        return "counted" if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else "no_count"


def batch_answers(body: bytes, asked: list[str]) -> list[BatchAnswer]:
    """Each asked id with the paper answered for it; MalformedBatch naming what is wrong with the body."""
    try:
        answer = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedBatch(f"not JSON ({exc})") from exc
    if not isinstance(answer, list):
        raise MalformedBatch(f"a JSON {type(answer).__name__} where an array of papers was expected")
    if len(answer) != len(asked):
        raise MalformedBatch(f"{len(answer)} papers answered for {len(asked)} ids asked")
    if not all(paper is None or isinstance(paper, dict) for paper in answer):
        raise MalformedBatch("an element that is neither a paper object nor null")
    return [BatchAnswer(ids, paper) for ids, paper in zip(asked, answer, strict=True)]
