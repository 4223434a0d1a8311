"""Bad raw records over real Kafka: parked on harvest.raw.v1.dlq with the reason and original bytes, counted,
the partition moving on; `papertrail dlq list` shows them and `papertrail dlq replay` re-drives them."""

import asyncio
import os
import subprocess
import uuid
from pathlib import Path

import httpx
import pytest
from pymongo import MongoClient

from papertrail.runtime.dlq import read_dead_letters
from papertrail.runtime.settings import InfraSettings
from schemas import topics
from tests.support.kafka import publish_raw, skip_to_end
from tests.support.servers import Servers
from tests.support.services import running_service
from tests.support.sources import corpus_records, raw_record
from tests.support.spawning import ZYGOTE
from tests.support.waiting import wait_until, wait_until_async

pytestmark = pytest.mark.integration


async def test_bad_records_are_parked_listed_and_replayed(servers: Servers, tmp_path: Path) -> None:
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {"MONGODB_DATABASE": f"normalizer_dlq_{run}", "TOPIC_PARTITIONS": "3"}
    settings = InfraSettings(
        kafka_bootstrap_servers=servers.kafka_bootstrap_servers, kafka_name_prefix=servers.name_prefix
    )
    good = corpus_records()[0]
    broken = raw_record("acl", f"broken-{run}", "acl_xml", "<volume collection='2024.acl' id='long'><meta>")
    await skip_to_end(
        servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), servers.group("papertrail-normalizer")
    )
    with running_service("normalizer", env, tmp_path) as port:
        await publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), [broken, good])

        async def parked() -> list:
            letters, _ = await read_dead_letters(settings, topics.HARVEST_RAW)
            return [letter for letter in letters if letter.key == f"acl:broken-{run}".encode()]

        letters = await wait_until_async(parked, within=60, what="the broken record on harvest.raw.v1.dlq")
        letter = letters[0]
        assert letter.value == broken.model_dump_json().encode()  # the original bytes
        assert (
            letter.headers["x-dlq-topic"] == servers.topic(topics.HARVEST_RAW)
            and letter.headers["x-dlq-service"] == "normalizer"
        )
        assert "not XML" in letter.headers["x-dlq-reason"]
        mongo: MongoClient = MongoClient(servers.mongodb_url)
        with mongo:  # the partition moved on: the good record was handled
            db = mongo[env["MONGODB_DATABASE"]]
            wait_until(lambda: db.papers.find_one({"_id": f"arxiv:{good.record_id}"}), timeout=60, what="good paper")
        async with httpx.AsyncClient() as client:
            metrics = (await client.get(f"http://127.0.0.1:{port}/metrics", timeout=5)).text
        assert (
            f'papertrail_dead_letters_total{{service="normalizer",topic="{servers.topic(topics.HARVEST_RAW)}"}}'
            in metrics
        )

        shown = await _dlq("list", env)
        assert shown.returncode == 0, shown.stderr
        assert f"key=acl:broken-{run}" in shown.stdout and "not XML" in shown.stdout
        replayed = await _dlq("replay", env)
        assert replayed.returncode == 0, replayed.stderr
        assert f"to {servers.topic(topics.HARVEST_RAW)}" in replayed.stdout
        # re-driven through the normalizer, still broken, so parked again; a second replay finds nothing new
        await wait_until_async(lambda: _count(parked, 2), within=60, what="the replayed record dead-lettered again")
    again = await _dlq("replay", env)
    assert "1 dead letter(s) replayed" in again.stdout  # only the new dead letter of the re-driven record


async def _count(parked, n: int) -> bool:  # type: ignore[no-untyped-def]
    return len(await parked()) >= n


async def _dlq(action: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`papertrail dlq <action> --topic harvest.raw.v1` as a real command."""
    return await asyncio.to_thread(ZYGOTE.run, ["dlq", action, "--topic", topics.HARVEST_RAW], {**os.environ, **env})
