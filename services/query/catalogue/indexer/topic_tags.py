"""The catalogue topics a paper hits, with the reasons its topic pages show. No I/O.

The matcher's own rules decide, run where the paper is indexed: a paper becomes searchable and appears on its
topic pages in one Meilisearch write, instead of a second event per topic hit and a second write of the document.
"""

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.rules import FollowIndex, PaperText, topics_by_id
from schemas.events import Follow, Paper

TopicReasons = dict[str, list[dict[str, Any]]]  # topic id → the reasons, as the topic page shows them


class TopicTagger:
    """The catalogue compiled once, as one topic follow per topic; `digest` changes whenever the catalogue does."""

    def __init__(self, catalogue: list[Topic]) -> None:
        self.rules = FollowIndex(topics=topics_by_id(catalogue))
        for topic in catalogue:
            self.rules.upsert(
                Follow(
                    id=topic.id,
                    user_id="catalogue",
                    kind="topic",
                    name=topic.name,
                    topic_id=topic.id,
                    created_at=datetime(1970, 1, 1, tzinfo=UTC),
                )
            )
        canonical = "\n".join(topic.model_dump_json() for topic in sorted(catalogue, key=lambda t: t.id))
        self.digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def of(self, paper: Paper) -> TopicReasons:
        return self.tags(paper.id, paper.title, paper.abstract, paper.categories)

    def tags(self, paper_id: str, title: str, abstract: str, categories: Iterable[str]) -> TopicReasons:
        text = PaperText.build(paper_id, title, abstract, categories, ())  # topic rules read no authors
        hits = self.rules.match(text)
        return {follow.id: [reason.model_dump(mode="json") for reason in reasons] for follow, reasons in hits}
