"""新增 AI 导读 counts the 导读 readers see, whichever source wrote them, over a real Meilisearch: papers shown with
another system's summary (daily-arXiv-ai-enhanced's, as the summarizer shows it while ours is not written) count as
much as papers with ours, once, when they came; a pending one does not. Real papers: a day of the May 2026 corpus
(tests/fixtures/corpus), read by the normalizer's own parser of its `AI` sections."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from papertrail.domain.search_document import PaperFilter, paper_document
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from schemas.events import PaperEnriched
from schemas.paper import Paper
from schemas.summary import NO_MODEL_CONFIGURED, Summary
from services.normalizer.parsers.daily_arxiv import community_summary
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.search import PaperQuery
from services.summarizer.community import stand_in
from tests.support.corpus import paper_from_line, read_lines
from tests.support.events import enriched
from tests.support.servers import Servers

pytestmark = pytest.mark.integration
DAY = Path(__file__).parents[2] / "fixtures/corpus/arxiv-daily-2026-05/2026-05-05_AI_enhanced_Chinese.jsonl.gz"
NOW = datetime.now(UTC)
WINDOW = timedelta(days=1)


def day_lines() -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for line in read_lines([DAY]):
        seen.setdefault(line["id"], line)
    return list(seen.values())[:30]


def event(paper: Paper, summary: Summary, first_seen: datetime) -> PaperEnriched:
    arrived = enriched(paper)
    held = arrived.paper.model_copy(update={"first_seen": first_seen})
    return arrived.model_copy(update={"paper": held, "summary": summary})


def documents() -> tuple[list[dict[str, Any]], set[str]]:
    """The day's papers as the index holds them: the first ten with our summary, the next ten shown with the
    community's (a third of them first seen long before), the rest pending; and the papers new in the window."""
    docs, new = [], set()
    for n, line in enumerate(day_lines()):
        paper = paper_from_line(line)
        community = community_summary(line["AI"], "2026-05-05")
        assert community is not None
        paper = paper.model_copy(update={"community_summary": community})
        first_seen = NOW - timedelta(hours=2)
        if n < 10:
            summary = Summary(status="ok", model="deepseek-chat", tldr_zh=community.tldr_zh, generated_at=NOW)
            new.add(paper.id)
        elif n < 20:
            summary = stand_in(paper, NO_MODEL_CONFIGURED)
            if n % 3 == 0:  # seen in an earlier window: its 导读 is not new now
                first_seen = NOW - timedelta(days=30)
            else:
                new.add(paper.id)
        else:
            summary = Summary(status="pending", error=NO_MODEL_CONFIGURED)
        docs.append(paper_document(event(paper, summary, first_seen), {}))
    return docs, new


@pytest.fixture
async def index(servers: Servers) -> AsyncIterator[tuple[PaperIndex, set[str]]]:
    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    name = f"{servers.index}_new_summaries"
    try:
        paper_index = PaperIndex(client, name, task_timeout_s=120)
        await paper_index.ensure()
        docs, new = documents()
        await paper_index.upsert(docs)
        yield paper_index, new
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def test_new_ai_summaries_count_the_community_summaries_readers_see(
    index: tuple[PaperIndex, set[str]],
) -> None:
    paper_index, new = index
    since = int((NOW - WINDOW).timestamp())
    wanted = PaperFilter(summarized_since_ts=since)  # the overview's figure, and the list it links to
    assert await paper_index.count(wanted) == len(new)
    listed = await paper_index.search(PaperQuery(filter=wanted, size=100), attributes=["paper_id"])
    assert {hit["paper_id"] for hit in listed.hits} == new
