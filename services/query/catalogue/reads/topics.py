"""The topic catalogue as the API and the pages show it, and the papers hitting a topic with the reasons."""

from typing import Any

from papertrail.domain.follows.catalogue import Topic, load_catalogue
from papertrail.domain.search_document import PaperFilter
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.search import PaperQuery


class NoSuchTopic(LookupError):
    """The catalogue has no topic of this id."""


def topic_summary(topic: Topic) -> dict[str, Any]:
    return {
        "id": topic.id,
        "name": topic.name,
        "name_zh": topic.name_zh,
        "subtopics": [{"id": s.id, "name": s.name, "name_zh": s.name_zh} for s in topic.subtopics],
    }


def topics() -> list[dict[str, Any]]:
    """The built-in topic catalogue with Chinese names and subtopics."""
    return [topic_summary(t) for t in load_catalogue()]


async def topic_papers(index: PaperIndex, topic_id: str, page: int, size: int) -> dict[str, Any]:
    """Papers hitting a topic, newest first, each with which subtopic and term hit in which field."""
    topic = next((t for t in load_catalogue() if t.id == topic_id), None)
    if topic is None:
        raise NoSuchTopic(f"no topic {topic_id!r}")
    query = PaperQuery(filter=PaperFilter(topic_id=topic_id), sort="ingested", page=page, size=size)
    results = await index.search(query)
    hits = [{**hit, "reasons": hit.get("topic_reasons", {}).get(topic_id, [])} for hit in results.hits]
    return {"topic": topic_summary(topic), "total": results.total, "page": page, "size": size, "hits": hits}
