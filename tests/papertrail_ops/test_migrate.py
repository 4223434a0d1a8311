"""`papertrail migrate` as an operator runs it, against real Kafka and MongoDB: the pending migrations run once and
are recorded, the catalogue's old topic follow is deleted and its deletion announced on follows.changed.v1, a second
run finds nothing pending, `--list` shows them applied, and `--again N` runs one again without changing more."""

import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pymongo import AsyncMongoClient

from papertrail.runtime.kafka import ensure_topics
from papertrail.runtime.settings import InfraSettings
from schemas import topics
from tests.support.pipelines import deleted_follow_announced
from tests.support.servers import Servers

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def migrate(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "papertrail_ops", "migrate", *args]  # the image's command, without the tooling
    return subprocess.run(command, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


async def test_pending_migrations_run_once_and_announce_what_they_delete(servers: Servers) -> None:
    env = servers.environment() | {"MONGODB_DATABASE": f"papertrail_migrate_{uuid.uuid4().hex[:8]}"}
    await ensure_topics(
        InfraSettings(kafka_bootstrap_servers=servers.kafka_bootstrap_servers, kafka_name_prefix=servers.name_prefix),
        [topics.FOLLOWS_CHANGED],
    )
    mongo: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    db = mongo[env["MONGODB_DATABASE"]]
    legacy_id = f"topic:legacy-{uuid.uuid4().hex[:8]}"
    try:
        await db.follows.insert_one(
            {"_id": legacy_id, "user_id": "papertrail", "kind": "topic", "name": "LLM reasoning",
             "topic_id": "llm-reasoning", "created_at": datetime.now(UTC), "feed_key": ""}
        )  # fmt: skip
        # a vector as releases before PaperVector stored it: an array of doubles
        await db.paper_vectors.insert_one(
            {"_id": "arxiv:2605.00001", "model": "local/any/3/256", "content_hash": "0" * 64, "state": "embedded",
             "vector": [0.6, 0.8, 0.0], "updated_at": datetime.now(UTC)}
        )  # fmt: skip

        first = migrate(env)
        assert first.returncode == 0, first.stderr
        assert "migration 4 (query: retire the catalogue's topic follows): 1 catalogue follows retired" in first.stdout
        assert "migration 5 (summarizer: paper vectors as binary float32): 1 vectors converted" in first.stdout
        assert [line.split(" ")[1] for line in first.stdout.splitlines()] == [str(n) for n in range(1, 10)]
        stored = await db.paper_vectors.find_one({})
        assert stored is not None and isinstance(stored["vector"], bytes)  # BSON binary
        assert await db.follows.count_documents({}) == 0
        assert await deleted_follow_announced(servers, legacy_id)

        second = migrate(env)
        assert (second.returncode, second.stdout.strip()) == (0, "no migration pending")
        listed = migrate(env, "--list")
        assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 9 and "pending" not in listed.stdout
        again = migrate(env, "--again", "4")
        assert again.returncode == 0 and again.stdout.strip().endswith(": 0 catalogue follows retired"), again.stdout
        unknown = migrate(env, "--again", "99")
        assert unknown.returncode == 2 and "no migration 99" in unknown.stdout
    finally:
        await mongo.drop_database(env["MONGODB_DATABASE"])
        await mongo.close()
