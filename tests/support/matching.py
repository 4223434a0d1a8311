"""The matcher's tests' shared parts: the run's reader, the sample papers, follows, held papers, and the matches
read back from follows.matched.v1."""

import uuid
from datetime import UTC, datetime

from aiokafka import AIOKafkaConsumer
from meilisearch_python_sdk import AsyncClient
from meilisearch_python_sdk.models.settings import MeilisearchSettings
from pymongo import MongoClient

from papertrail.domain.search_document import FILTERABLE, SEARCHABLE, SORTABLE, paper_document
from schemas.events import Follow, FollowMatched
from schemas.paper import Paper
from tests.support.corpus import sample_papers
from tests.support.events import enriched
from tests.support.servers import Servers
from tests.support.waiting import wait_until_async

RUN = uuid.uuid4().hex[:8]
USER = f"user-{RUN}"
PAPERS = sample_papers()


def follow(follow_id: str, query: str) -> Follow:
    return Follow(id=follow_id, user_id=USER, kind="keyword", name=query, query=query, created_at=datetime.now(UTC))


async def index_held_paper(servers: Servers, index_name: str, paper: Paper) -> None:
    """A paper the query service already holds: the backfill finds it through Meilisearch."""
    client = AsyncClient(servers.meili_url, servers.meili_master_key)
    try:
        settings = MeilisearchSettings(
            searchable_attributes=SEARCHABLE, filterable_attributes=FILTERABLE, sortable_attributes=SORTABLE
        )
        await client.create_index(index_name, primary_key="id", settings=settings, timeout_in_ms=60_000)
        task = await client.index(index_name).add_documents([paper_document(enriched(paper), {})], primary_key="id")
        await client.wait_for_task(task.task_uid, timeout_in_ms=60_000)
    finally:
        await client.aclose()


class MatchedReader:
    """follows.matched.v1 from the beginning, keeping this run's user's matches."""

    def __init__(self, servers: Servers) -> None:
        self.consumer = AIOKafkaConsumer(
            servers.topic("follows.matched.v1"),
            bootstrap_servers=servers.kafka_bootstrap_servers,
            auto_offset_reset="earliest",
            group_id=f"test-matched-{uuid.uuid4().hex[:6]}",
        )
        self.seen: list[FollowMatched] = []

    async def poll(self) -> list[FollowMatched]:
        batch = await self.consumer.getmany(timeout_ms=500)
        for records in batch.values():
            for record in records:
                match = FollowMatched.model_validate_json(record.value or b"{}")
                if match.user_id == USER:
                    self.seen.append(match)
        return self.seen

    async def until(self, predicate: object, what: str) -> list[FollowMatched]:
        async def check() -> bool:
            return any(predicate(m) for m in await self.poll())  # type: ignore[operator]

        await wait_until_async(check, 90, what)
        return self.seen


async def hold(servers: Servers, env: dict[str, str], mongo: MongoClient, paper: Paper) -> None:
    """A paper the normalizer stored and the query service indexed: what a backfill finds."""
    body = paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)
    mongo[env["MONGODB_DATABASE"]].papers.replace_one({"_id": paper.id}, {"_id": paper.id, **body}, upsert=True)
    client = AsyncClient(servers.meili_url, servers.meili_master_key)
    try:
        task = await client.index(env["INDEX_NAME"]).add_documents([paper_document(enriched(paper), {})])
        await client.wait_for_task(task.task_uid, timeout_in_ms=60_000)
    finally:
        await client.aclose()
