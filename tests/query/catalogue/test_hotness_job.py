"""Citations per month kept current: two counted papers written as of one day, then the query worker's job run ten
months later. The younger paper led `sort=hot` when both were written (a paper under a month old counts as a month
old); as both age, the older paper's larger count leads, and only the job's rewrite lets the index see that. Real
Meilisearch."""

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from papertrail.domain.search_document import MONTH, citations_per_month, paper_document
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from schemas.paper import Citations
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.indexer.hotness import keep_hotness_current, refresh_hotness
from services.query.catalogue.reads.search import PaperQuery
from tests.support.corpus import sample_papers
from tests.support.events import enriched
from tests.support.servers import Servers
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.integration
WRITTEN = datetime(2026, 5, 10, tzinfo=UTC)
LATER = WRITTEN + 10 * MONTH


async def test_the_job_brings_citations_per_month_to_its_day_and_reorders_hot(servers: Servers) -> None:
    older, younger, *_ = sample_papers().values()
    counted = {
        older.id: older.model_copy(
            update={
                "published_at": WRITTEN - 2 * MONTH,
                "citations": Citations(count=100, source="semantic_scholar", as_of=WRITTEN),
            }
        ),
        younger.id: younger.model_copy(
            update={
                "published_at": WRITTEN - timedelta(days=5),
                "citations": Citations(count=60, source="semantic_scholar", as_of=WRITTEN),
            }
        ),
    }
    documents = []
    for paper in counted.values():
        document = paper_document(enriched(paper), {})
        document["citations_per_month"] = citations_per_month(paper, WRITTEN)  # as the indexer writes it that day
        documents.append(document)
    uncounted = paper_document(enriched(list(sample_papers().values())[2]), {})
    search = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    index = PaperIndex(search, f"papers_hot_{uuid.uuid4().hex[:8]}", task_timeout_s=120)
    hot = PaperQuery(sort="hot", size=10)
    try:
        await index.ensure()
        await index.upsert([*documents, uncounted])
        assert [h["paper_id"] for h in (await index.search(hot)).hits][:2] == [younger.id, older.id]

        assert await refresh_hotness(index, LATER) == 2
        held = await index.by_ids(list(counted))
        for paper_id, paper in counted.items():
            assert held[paper_id]["citations_per_month"] == pytest.approx(citations_per_month(paper, LATER), rel=1e-3)
        assert [h["paper_id"] for h in (await index.search(hot)).hits][:2] == [older.id, younger.id]
        assert "citations_per_month" not in (await index.by_ids([uncounted["paper_id"]]))[uncounted["paper_id"]]
        assert await refresh_hotness(index, LATER) == 0  # run again the same day: nothing to write

        # the worker's loop runs a refresh at once, by its clock
        job = keep_hotness_current(index, every_s=3600, clock=lambda: LATER + 12 * MONTH)
        task = asyncio.create_task(job)
        try:

            async def refreshed() -> bool:
                rates = await index.by_ids([older.id])
                return bool(
                    rates[older.id]["citations_per_month"]
                    == pytest.approx(citations_per_month(counted[older.id], LATER + 12 * MONTH), rel=1e-3)
                )

            await wait_until_async(refreshed, 60, "the job's first refresh")
        finally:
            task.cancel()
    finally:
        await search.delete_index_if_exists(index.name)
        await search.aclose()
