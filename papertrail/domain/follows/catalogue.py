"""The built-in topic catalogue (topics.toml beside this module): topics with Chinese names and keyword subtopics."""

import tomllib
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from papertrail.domain.follows.expressions import ExpressionError, parse_expression
from schemas.events import Subtopic

CATALOGUE_PATH = Path(__file__).with_name("topics.toml")


class Topic(BaseModel):
    """A followable topic: English and Chinese names and the subtopics that define it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="topic id", examples=["llm-reasoning"])
    name: str = Field(description="English name", examples=["LLM reasoning"])
    name_zh: str = Field(description="Chinese name", examples=["大模型推理"])
    subtopics: list[Subtopic] = Field(min_length=1, description="subtopics; a paper matching any matches the topic")


class CatalogueError(ValueError):
    """The catalogue file is unusable; the message names the topic and subtopic at fault."""


def check_subtopics(subtopics: list[Subtopic], where: str) -> None:
    """Every rule parses and every subtopic id is unique; CatalogueError naming the one at fault."""
    seen: set[str] = set()
    for sub in subtopics:
        if sub.id in seen:
            raise CatalogueError(f"{where}: subtopic id {sub.id!r} appears twice")
        seen.add(sub.id)
        try:
            parse_expression(sub.rule)
        except ExpressionError as error:
            raise CatalogueError(f"{where}, subtopic {sub.id!r}: rule {sub.rule!r}: {error}") from error


@cache
def _load(path: Path) -> tuple[Topic, ...]:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        topics = [Topic.model_validate(t) for t in raw.get("topics", [])]
    except (tomllib.TOMLDecodeError, ValidationError) as error:
        raise CatalogueError(f"{path}: {error}") from error
    ids = [t.id for t in topics]
    if len(ids) != len(set(ids)):
        raise CatalogueError(f"{path}: a topic id appears twice")
    for topic in topics:
        check_subtopics(topic.subtopics, f"{path}: topic {topic.id!r}")
    return tuple(topics)


def load_catalogue(path: Path = CATALOGUE_PATH) -> list[Topic]:
    """Every built-in topic, checked: rules parse, ids are unique."""
    return [t.model_copy(deep=True) for t in _load(path)]


def topic_name(topic_id: str, lang: str = "zh") -> str | None:
    """A built-in topic's name in a language ("zh": its Chinese name, else its English one); None for no topic."""
    topic = next((t for t in _load(CATALOGUE_PATH) if t.id == topic_id), None)
    if topic is None:
        return None
    return topic.name_zh if lang == "zh" else topic.name


def topic_title(topic_id: str) -> str:
    """A topic as a feed reader titles it, in no one reader's language: "大模型推理 · LLM reasoning"."""
    zh, en = topic_name(topic_id, "zh"), topic_name(topic_id, "en")
    return f"{zh} · {en}" if zh and en and zh != en else en or topic_id
