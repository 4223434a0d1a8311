"""Papers indexed before author pages told full names apart get their full-name keys: the query worker's
`author_names` job writes them once, records the scheme, and finds nothing to do when run again. Real MongoDB and
Meilisearch."""

import uuid
from typing import Any

import pytest
from pymongo import AsyncMongoClient

from papertrail.domain.names import NAME_KEY_SCHEME, display_name_key
from papertrail.domain.search_document import PaperFilter, paper_document
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.indexer.retag import name_authors, name_authors_on_scheme_change
from services.query.catalogue.reads.search import PaperQuery
from services.query.catalogue.repositories import CatalogueRecords
from tests.support.corpus import sample_papers
from tests.support.events import enriched
from tests.support.servers import Servers

pytestmark = pytest.mark.integration


async def test_documents_indexed_before_full_name_keys_get_them_once(servers: Servers) -> None:
    run = uuid.uuid4().hex[:8]
    papers = list(sample_papers().values())
    # as an older release indexed them: no author_names
    documents = [{k: v for k, v in paper_document(enriched(p), {}).items() if k != "author_names"} for p in papers]
    search = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    mongo: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    db = mongo[f"papertrail_names_{run}"]
    index = PaperIndex(search, f"papers_names_{run}", task_timeout_s=120)
    try:
        await index.ensure()
        await index.upsert(documents)
        catalogue = CatalogueRecords.of(db)
        author = papers[0].authors[0]
        key = display_name_key(author.name)
        wanted = PaperQuery(filter=PaperFilter(author_name=key), size=100)
        assert (await index.search(wanted)).total == 0  # the old documents have no full-name keys

        await name_authors_on_scheme_change(index, catalogue)

        expected = {p.id for p in papers if key in {display_name_key(a.name) for a in p.authors}}
        assert {hit["paper_id"] for hit in (await index.search(wanted)).hits} == expected
        held = await index.by_ids([p.id for p in papers])
        assert all(held[p.id]["author_names"] == paper_document(enriched(p), {})["author_names"] for p in papers)
        assert await catalogue.index_state.author_names_scheme(index.name) == NAME_KEY_SCHEME
        assert await name_authors(index) == 0  # run again: nothing changes
    finally:
        await search.delete_index_if_exists(index.name)
        await search.aclose()
        await mongo.drop_database(db.name)
        await mongo.close()
