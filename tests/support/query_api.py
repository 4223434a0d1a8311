"""The query API over the pipeline that harvested the recorded arXiv page, as its tests read it."""

from typing import Any

import httpx

from services.harvester.sources.oai import parse_oai_page
from services.normalizer.parsers.arxiv_oai import parse_arxiv
from tests.support.pipelines import ARXIV_CS_PAGE, Pipeline

RECORDS = [parse_arxiv(r.content) for r in parse_oai_page(ARXIV_CS_PAGE.read_bytes()).records]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def api_get(pipeline: Pipeline, path: str, token: str | None = None, **params: Any) -> Any:
    response = httpx.get(pipeline.url("query", path), params=params, headers=bearer(token) if token else {}, timeout=10)
    response.raise_for_status()
    return response.json()


def expected_topic_hits() -> dict[str, set[str]]:
    """Which catalogue topics each fixture paper hits, by the matcher's own pure rules."""
    from datetime import UTC, datetime

    from papertrail.domain.follows.catalogue import load_catalogue
    from papertrail.domain.follows.rules import PaperText, compile_follow, match_one, topics_by_id
    from schemas.events import Follow
    from services.normalizer.identity import merge

    catalogue = load_catalogue()
    topics = topics_by_id(catalogue)
    now = datetime.now(UTC)
    papers = [merge(None, r, content_hash="x", now=now, ai_categories=frozenset(), next_seq=1) for r in RECORDS]
    hits: dict[str, set[str]] = {}
    for topic in catalogue:
        follow = Follow(
            id=f"topic:{topic.id}",
            user_id="papertrail",
            kind="topic",
            name=topic.name,
            topic_id=topic.id,
            created_at=now,
        )
        compiled = compile_follow(follow, topics)
        hits[topic.id] = {c.paper.id for c in papers if c and match_one(compiled, PaperText.of(c.paper))}
    return hits
