"""GET /api/topics (the catalogue) and GET /api/topics/{id}/papers (papers hitting it, with the reasons)."""

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query

from papertrail.follows.catalogue import load_catalogue
from papertrail.search_document import PaperFilter
from services.query.deps import PaperIndexDep
from services.query.search import PaperQuery

router = APIRouter(prefix="/api/topics", tags=["topics"])
TopicId = Annotated[str, Path(pattern=r"^[a-z0-9_\-]{1,64}$")]


def _topic(topic: Any) -> dict[str, Any]:
    return {
        "id": topic.id,
        "name": topic.name,
        "name_zh": topic.name_zh,
        "subtopics": [{"id": s.id, "name": s.name, "name_zh": s.name_zh} for s in topic.subtopics],
    }


@router.get("")
async def list_topics() -> list[dict[str, Any]]:
    """The built-in topic catalogue with Chinese names and subtopics."""
    return [_topic(t) for t in load_catalogue()]


@router.get("/{topic_id}/papers")
async def list_topic_papers(
    topic_id: TopicId,
    index: PaperIndexDep,
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    size: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """Papers hitting a topic, newest first, each with which subtopic and term hit in which field."""
    topic = next((t for t in load_catalogue() if t.id == topic_id), None)
    if topic is None:
        raise HTTPException(404, f"no topic {topic_id!r}")
    results = await index.search(
        PaperQuery(filter=PaperFilter(topic_id=topic_id), sort="ingested", page=page, size=size)
    )
    hits = [{**hit, "reasons": hit.get("topic_reasons", {}).get(topic_id, [])} for hit in results.hits]
    return {"topic": _topic(topic), "total": results.total, "page": page, "size": size, "hits": hits}
