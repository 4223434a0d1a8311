"""GET /api/topics (the catalogue) and GET /api/topics/{id}/papers (papers hitting it, with the reasons)."""

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query

from services.query.catalogue.reads.search import TOPIC_ID_PATTERN
from services.query.catalogue.reads.topics import NoSuchTopic, topic_papers, topics
from services.query.http.deps import PaperIndexDep
from services.query.http.problems import problem_responses

router = APIRouter(prefix="/api/topics", tags=["topics"])
TopicId = Annotated[str, Path(pattern=TOPIC_ID_PATTERN)]


@router.get("")
async def list_topics() -> list[dict[str, Any]]:
    """The built-in topic catalogue with Chinese names and subtopics."""
    return topics()


@router.get("/{topic_id}/papers", responses=problem_responses((404, "no catalogue topic has this id"), 422))
async def list_topic_papers(
    topic_id: TopicId,
    index: PaperIndexDep,
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    size: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """Papers hitting a topic, newest first, each with which subtopic and term hit in which field."""
    try:
        return await topic_papers(index, topic_id, page, size)
    except NoSuchTopic as error:
        raise HTTPException(404, str(error)) from error
