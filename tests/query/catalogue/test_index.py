"""The papers index over a real Meilisearch: exact totals past Meilisearch's default cap of 1,000 hits."""

import uuid
from collections.abc import AsyncIterator

import pytest

from papertrail.domain.search_document import PaperFilter, document_id
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.search import PaperListing, PaperQuery
from tests.support.servers import Servers

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

    from papertrail.domain.search_document import FILTERABLE, VENUE_FACETS

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
        # a start on an existing index updates it and leaves no failed task (no creation of what exists)
        failed = await client.get_tasks(index_ids=[name], statuses="failed")
        assert [(t.task_type, (t.error or {}).get("code")) for t in failed.results] == []
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


@pytest.fixture
async def sorted_index(servers: Servers) -> AsyncIterator[PaperIndex]:
    """Papers matching a four-word query more or less well, their times in the opposite order of how well, and
    each time field in its own order: a sort that does not apply returns the relevance order."""
    settings = InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key)
    client = make_search_client(settings)
    name = f"papers_sorts_{uuid.uuid4().hex[:8]}"
    titles = [
        "large language model reasoning",  # the best match, the oldest by every time
        "reasoning in a large language model",
        "large language model reasoning with tools and retrieval augmented planning",
        "a language model that is large, and its reasoning",
        "large graph neural networks",  # only one of the words
    ]
    try:
        paper_index = PaperIndex(client, name, task_timeout_s=120)
        await paper_index.ensure()
        await paper_index.upsert([
            {"id": document_id(f"sort:{n}"), "paper_id": f"sort:{n}", "title": title,
             "updated_ts": 1_700_000_000 + 10 * n, "ingested_ts": 1_700_000_000 + 10 * ((n + 2) % 5),
             "published_ts": 1_700_000_000 + 10 * ((n + 4) % 5)}
            for n, title in enumerate(titles)
        ])  # fmt: skip
        yield paper_index
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def test_a_query_of_several_words_is_ordered_by_the_chosen_time_or_by_relevance(
    sorted_index: PaperIndex,
) -> None:
    q = "large language model reasoning"
    listing = PaperListing(q=q)
    assert listing.sorted_by == "relevance" and PaperListing().sorted_by == "updated"  # the defaults
    relevance = await sorted_index.search(listing.query())
    assert relevance.hits[0]["paper_id"] == "sort:0"  # the exact title first
    for sort, field in (("updated", "updated_ts"), ("ingested", "ingested_ts"), ("published", "published_ts")):
        found = await sorted_index.search(PaperListing(q=q, sort=sort).query())
        times = [hit[field] for hit in found.hits]
        assert times == sorted(times, reverse=True), (sort, [hit["paper_id"] for hit in found.hits])
        assert "sort:4" not in [hit["paper_id"] for hit in found.hits]  # a time orders papers with every word
        assert found.total == 4


async def test_a_facet_is_counted_without_its_own_filter_and_with_the_others(index: PaperIndex) -> None:
    cs_ir = sum(1 for n in range(PAPERS) if n % 3)
    only_cl = await index.search(PaperQuery(filter=PaperFilter(categories=["cs.CL"]), size=1))
    assert only_cl.total == PAPERS - cs_ir
    assert only_cl.facets["categories"] == {"cs.IR": cs_ir, "cs.CL": PAPERS - cs_ir}  # what choosing cs.IR finds
    assert only_cl.facets["sources"] == {"arxiv": PAPERS - cs_ir}  # other facets within the filter
    both = await index.search(PaperQuery(filter=PaperFilter(categories=["cs.CL"], sources=["arxiv"]), size=1))
    assert both.facets["categories"] == only_cl.facets["categories"] and both.facets["sources"] == {
        "arxiv": PAPERS - cs_ir
    }
