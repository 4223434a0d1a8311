"""A new topic catalogue reaches papers indexed before it: the query service, started over an index tagged by
another catalogue, retags every paper and retires the system follows older releases kept for the topic pages.
Real query service, Kafka, MongoDB and Meilisearch."""

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pymongo import AsyncMongoClient

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.search_document import paper_document
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.indexer.topic_tags import TopicTagger
from tests.support.corpus import sample_papers
from tests.support.events import enriched
from tests.support.pipelines import deleted_follow_announced
from tests.support.servers import Servers
from tests.support.services import running_service
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.integration


async def test_an_index_tagged_by_another_catalogue_is_retagged_at_start(servers: Servers, tmp_path: Path) -> None:
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {"MONGODB_DATABASE": f"papertrail_retag_{run}", "INDEX_NAME": f"papers_retag_{run}"}
    tagger = TopicTagger(load_catalogue())
    papers = list(sample_papers().values())
    expected = {p.id: tagger.of(p) for p in papers}
    untagged = next(p.id for p in papers if not expected[p.id])
    assert any(expected.values()), "the sample should hit catalogue topics"

    # An older catalogue's tags: no topic on any paper, and a topic on one paper this catalogue does not give it.
    documents = [paper_document(enriched(p), {}) for p in papers]
    stale = {"retired-topic": [{"subtopic": "gone", "term": "molecular", "field": "title"}]}
    documents = [
        {**d, "topic_ids": sorted(stale), "topic_reasons": stale} if d["paper_id"] == untagged else d for d in documents
    ]
    search = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    mongo: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    db = mongo[env["MONGODB_DATABASE"]]
    legacy_id = f"topic:legacy-{run}"
    try:
        index = PaperIndex(search, env["INDEX_NAME"], task_timeout_s=120)
        await index.ensure()
        await index.upsert(documents)
        await db.follows.insert_one(
            {"_id": legacy_id, "user_id": "papertrail", "kind": "topic", "name": "LLM reasoning",
             "topic_id": "llm-reasoning", "created_at": datetime.now(UTC), "feed_key": ""}
        )  # fmt: skip

        with running_service("query", env, tmp_path):

            async def retagged() -> bool:
                held = await index.by_ids(list(expected))
                return all(
                    held[i].get("topic_reasons") == reasons and held[i].get("topic_ids") == sorted(reasons)
                    for i, reasons in expected.items()
                )

            await wait_until_async(retagged, 60, "every paper tagged by the current catalogue")

            async def digest_saved() -> bool:
                # written after the last retagged paper is indexed, so it may land just after the check above
                state = await db.index_state.find_one({"_id": env["INDEX_NAME"]})
                return state is not None and state.get("topic_catalogue") == tagger.digest  # other jobs write it too

            await wait_until_async(digest_saved, 30, "the current catalogue's digest saved for the index")
            assert await db.follows.count_documents({"user_id": "papertrail"}) == 0
            assert await deleted_follow_announced(servers, legacy_id)  # so matchers drop it too
    finally:
        await search.delete_index_if_exists(env["INDEX_NAME"])
        await search.aclose()
        await mongo.drop_database(env["MONGODB_DATABASE"])
        await mongo.close()
