"""`papertrail harvest arxiv --ids`: the given papers fetched by GetRecord from the replay server, published on the
real harvest.raw.v1 as the arXiv source's records, and the ledger of announced papers no longer missing them."""

import asyncio
import datetime as dt
import os
import subprocess
import uuid

import pytest
from aiokafka import AIOKafkaConsumer
from pymongo import MongoClient

from schemas import topics
from schemas.events import RawRecord
from tests.support.harvests import RECORDED, get_record_requests
from tests.support.replay import Replay
from tests.support.servers import Servers
from tests.support.spawning import ZYGOTE

pytestmark = pytest.mark.integration

KNOWN = "1302.2146"  # the recorded GetRecord response (tests/fixtures/replay.json)
UNKNOWN = "2605.99999"  # answered idDoesNotExist
STILL_MISSING = "2605.00001"  # announced, not asked for


async def _records_on(bootstrap: str, topic: str) -> list[tuple[bytes, RawRecord]]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    try:
        batches = await consumer.getmany(timeout_ms=5000)
        return [(m.key, RawRecord.model_validate_json(m.value)) for ms in batches.values() for m in ms]
    finally:
        await consumer.stop()


def _harvest(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return ZYGOTE.run(["harvest", "arxiv", *args], os.environ | env)


def test_the_given_ids_are_fetched_published_and_no_longer_missing(servers: Servers, replay: Replay) -> None:
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_ids_{uuid.uuid4().hex[:8]}",
        "KAFKA_NAME_PREFIX": f"ids{uuid.uuid4().hex[:8]}.",
        "ARXIV_OAI_URL": f"{replay.url}/oai",
        "ARXIV_MIN_REQUEST_INTERVAL_S": "0",
    }
    long_ago = dt.datetime(2026, 3, 3, 1, 0, tzinfo=dt.UTC)
    mongo: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    with mongo:
        ledger = mongo[env["MONGODB_DATABASE"]].harvest_announced
        ledger.insert_many(
            [
                {"_id": i, "announced_at": long_ago, "day": "2026-03-02", "harvested_at": None}
                for i in (KNOWN, STILL_MISSING)
            ]
        )

        result = _harvest(env, "--ids", f"arXiv:{KNOWN}v2", UNKNOWN, KNOWN)

        assert result.returncode == 0, result.stderr
        assert f"arXiv has no paper {UNKNOWN}" in result.stderr and f"no longer missing: {KNOWN}" in result.stderr
        # each id asked once, without its version
        assert [r["query"]["identifier"] for r in get_record_requests(replay)] == [
            f"oai:arXiv.org:{KNOWN}",
            f"oai:arXiv.org:{UNKNOWN}",
        ]
        topic = env["KAFKA_NAME_PREFIX"] + topics.HARVEST_RAW
        published = asyncio.run(_records_on(servers.kafka_bootstrap_servers, topic))
        assert [(key, r.source, r.record_id, r.format) for key, r in published] == [
            (f"arxiv:{KNOWN}".encode(), "arxiv", KNOWN, "arXivRaw")
        ]
        assert published[0][1].content == RECORDED.content  # as arXiv serves it
        settled = {d["_id"]: d["harvested_at"] for d in ledger.find()}
        assert settled[KNOWN] is not None and settled[STILL_MISSING] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ids", "2401.1234x"], "'2401.1234x' is not an arXiv id"),
        (["--ids", "2401.12345", "--from", "2024-01-01"], "--ids goes with the source arxiv and without --from"),
    ],
)
def test_bad_ids_are_named_before_touching_any_server(args: list[str], message: str) -> None:
    result = _harvest({}, *args)
    assert result.returncode != 0 and message in result.stderr
