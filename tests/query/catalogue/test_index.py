"""The papers index over a real Meilisearch: exact totals past Meilisearch's default cap of 1,000 hits."""

import uuid
from collections.abc import AsyncIterator

import pytest

from papertrail.search import make_search_client
from papertrail.search_document import PaperFilter, document_id
from papertrail.settings import InfraSettings
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.search import PaperQuery
from tests.conftest import Servers

pytestmark = pytest.mark.integration
PAPERS = 1_500  # more than Meilisearch's default maxTotalHits (1,000), which would cap every total at 1,000


@pytest.fixture
async def index(servers: Servers) -> AsyncIterator[PaperIndex]:
    settings = InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key)
    client = make_search_client(settings)
    name = "papers_totals_test"
    try:
        paper_index = PaperIndex(client, name, task_timeout_s=120)
        await paper_index.ensure()
        documents = [
            {
                "id": document_id(f"test:{n}"),
                "paper_id": f"test:{n}",
                "title": f"paper {n} about retrieval",
                "categories": ["cs.IR"] if n % 3 else ["cs.CL"],
                "sources": ["arxiv"],
                "status": "preprint",
                "ai_related": True,
                "updated_ts": 1_700_000_000 + n,
                "ingested_ts": 1_700_000_000 + n,
                "published_ts": 1_700_000_000 + n,
                "summarized_ts": 1_700_100_000 + n if n % 5 == 0 else None,  # every fifth paper has a summary
            }
            for n in range(PAPERS)
        ]
        await paper_index.upsert(documents)
        yield paper_index
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def test_totals_and_counts_are_exact_past_a_thousand(index: PaperIndex) -> None:
    everything = await index.search(PaperQuery(q="retrieval", size=5))
    assert everything.total == PAPERS
    assert len(everything.hits) == 5
    cs_ir = sum(1 for n in range(PAPERS) if n % 3)
    assert (await index.search(PaperQuery(filter=PaperFilter(categories=["cs.IR"]), size=1))).total == cs_ir
    assert everything.facets["categories"] == {"cs.IR": cs_ir, "cs.CL": PAPERS - cs_ir}
    assert await index.count(PaperFilter()) == PAPERS


async def test_a_deep_page_past_a_thousand_hits_is_reachable(index: PaperIndex) -> None:
    page = await index.search(PaperQuery(sort="updated", page=15, size=100), attributes=["paper_id"])
    assert [hit["paper_id"] for hit in page.hits] == [f"test:{n}" for n in range(PAPERS - 1401, PAPERS - 1501, -1)]


async def test_new_summaries_are_listed_by_when_they_were_written(index: PaperIndex) -> None:
    since = 1_700_100_000 + 1_000
    expected = {f"test:{n}" for n in range(1_000, PAPERS) if n % 5 == 0}
    found = await index.search(
        PaperQuery(filter=PaperFilter(summarized_since_ts=since), size=100), attributes=["paper_id"]
    )
    assert found.total == len(expected) and {hit["paper_id"] for hit in found.hits} == expected
    assert await index.count(PaperFilter(summarized_since_ts=since)) == len(expected)


async def test_the_settings_of_a_release_before_the_venue_filters_are_brought_up_to_date(servers: Servers) -> None:
    """An index made with the filterable fields of before (no venue fields): ensure() at start adds them, so the
    venue filters and facets work on it without a rebuild."""
    from meilisearch_python_sdk.models.settings import MeilisearchSettings

    from papertrail.search_document import FILTERABLE, VENUE_FACETS

    settings = InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key)
    client = make_search_client(settings)
    name = f"papers_settings_{uuid.uuid4().hex[:8]}"
    before = [f for f in FILTERABLE if f not in (*VENUE_FACETS, "venue_tags")]
    try:
        await client.create_index(
            name, primary_key="id", settings=MeilisearchSettings(filterable_attributes=before), timeout_in_ms=60_000
        )
        assert "venue_tags" not in (await client.index(name).get_filterable_attributes() or [])
        await PaperIndex(client, name, task_timeout_s=60).ensure()
        held = await client.index(name).get_filterable_attributes() or []
        assert {"venue_tags", *VENUE_FACETS} <= {a if isinstance(a, str) else a.attribute_patterns[0] for a in held}
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()
