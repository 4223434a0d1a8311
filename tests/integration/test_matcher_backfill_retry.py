"""A new follow whose backfill fails (the query service has not created the index yet, on a first start) is
backfilled once the index is there, without a restart: the matcher retries with growing waits."""

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pymongo import MongoClient

from schemas.events import FollowChanged
from tests.support.events import publish
from tests.support.matching import PAPERS, MatchedReader, follow, index_held_paper
from tests.support.servers import Servers
from tests.support.services import running_service
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
RUN = uuid.uuid4().hex[:8]


@pytest.fixture
def mongo(servers: Servers) -> Iterator[MongoClient]:
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    yield client
    client.close()


async def test_a_failed_backfill_is_retried_until_the_index_exists(
    servers: Servers, mongo: MongoClient, tmp_path: Path
) -> None:
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_retry_{RUN}",
        "INDEX_NAME": f"papers_retry_{RUN}",  # not created yet: the first backfill attempt fails
        "TOPIC_PARTITIONS": "3",
        "DIGEST_ENABLED": "false",
        "BACKFILL_RETRY_S": "[1, 2, 4, 8, 16]",
    }
    backfills = mongo[env["MONGODB_DATABASE"]]["follow_backfills"]
    rag = follow(f"retry-{RUN}", 'retrieval AND ("language model" OR LLM) NOT survey')
    reader = MatchedReader(servers)
    await reader.consumer.start()
    try:
        with running_service("matcher", env, tmp_path):
            created = FollowChanged(
                action="created", follow_id=rag.id, user_id=rag.user_id, follow=rag, changed_at=datetime.now(UTC)
            )
            await publish(servers, "follows.changed.v1", created, rag.user_id)
            failed = wait_until(
                lambda: backfills.find_one({"_id": rag.id, "state": "failed"}), timeout=60, what="a failed backfill"
            )
            assert "index" in failed["error"].lower() or "not found" in failed["error"].lower(), failed["error"]
            await index_held_paper(servers, env["INDEX_NAME"], PAPERS["arxiv:2605.01386"])
            await reader.until(lambda m: m.follow_id == rag.id and m.backfill, "the retried backfill's match")
            done = wait_until(
                lambda: backfills.find_one({"_id": rag.id, "state": "done"}), timeout=30, what="the backfill done"
            )
            assert done["matches"] == 1 and done["failures"] >= 1
    finally:
        await reader.consumer.stop()
    assert [m.paper_id for m in reader.seen if m.follow_id == rag.id] == ["arxiv:2605.01386"]  # once
