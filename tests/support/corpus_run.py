"""Corpus listings through running normalizer processes over real Kafka and MongoDB, and what they stored: shared by
the corpus pipeline test (a few corpus days) and its benchmark (bench/corpus_pipeline.py, the whole month).

`through_one`: one normalizer gets the listings in parts, what it stored is read after each part, then everything is
replayed. `through_two`: two instances in one consumer group get the listings. Both publish as the harvester does and
wait until the group has committed the last record."""

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pymongo import MongoClient

from schemas import topics
from schemas.events import RawRecord
from tests.support.kafka import caught_up, end_offsets, publish_raw, skip_to_end, stable_members
from tests.support.servers import Servers
from tests.support.services import running_service
from tests.support.waiting import wait_until_async

GROUP = "papertrail-normalizer"
History = dict[str, list[tuple[int, str, str]]]  # paper → its version records as (seq, kind, content hash)


@dataclass(frozen=True)
class Stored:
    """What the normalizer(s) stored and emitted."""

    papers: int
    versions: int
    events: int  # papers.normalized.v1 messages emitted
    history: History


@dataclass(frozen=True)
class Loaded:
    events: int
    seconds: float  # from the first record published until the group committed the last


@dataclass(frozen=True)
class OneRun:
    parts: list[Stored]  # after each part, the events counted from the start
    part_seconds: list[float]
    replay: Stored  # after the replay of every part; its events are the replay's alone
    replay_seconds: float


def environment(servers: Servers, database: str) -> dict[str, str]:
    return servers.environment() | {"MONGODB_DATABASE": database, "TOPIC_PARTITIONS": "3", "LOG_LEVEL": "WARNING"}


async def load(servers: Servers, records: Sequence[RawRecord], within: float = 240) -> Loaded:
    """Publish the records against the running normalizer(s); wait until handled."""
    bootstrap = servers.kafka_bootstrap_servers
    before = sum((await end_offsets(bootstrap, servers.topic(topics.PAPERS_NORMALIZED))).values())
    started = time.monotonic()
    await publish_raw(bootstrap, servers.topic(topics.HARVEST_RAW), list(records))

    async def done() -> bool:
        return await caught_up(bootstrap, servers.topic(topics.HARVEST_RAW), servers.group(GROUP))

    await wait_until_async(done, within=within, what=f"{len(records)} raw records handled")
    elapsed = time.monotonic() - started
    after = sum((await end_offsets(bootstrap, servers.topic(topics.PAPERS_NORMALIZED))).values())
    return Loaded(after - before, elapsed)


def history(db: Any) -> History:
    history: History = {}
    fields = {"paper_id": 1, "seq": 1, "kind": 1, "content_hash": 1}
    for v in db.paper_versions.find({}, fields).sort([("paper_id", 1), ("seq", 1)]):
        history.setdefault(v["paper_id"], []).append((v["seq"], v["kind"], v["content_hash"]))
    return history


def stored(db: Any, events: int) -> Stored:
    return Stored(db.papers.count_documents({}), db.paper_versions.count_documents({}), events, history(db))


async def through_one(
    servers: Servers, mongo: MongoClient, database: str, logs: Path, parts: Sequence[Sequence[RawRecord]],
    within: float = 240,
) -> OneRun:  # fmt: skip
    """One normalizer gets each part in turn, then all of them again (a replay)."""
    db = mongo[database]
    # before the group has members: records other modules' runs left on the topic are not ours
    await skip_to_end(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), servers.group(GROUP))
    after: list[Stored] = []
    seconds: list[float] = []
    events = 0
    with running_service("normalizer", environment(servers, database), logs):
        for part in parts:
            loaded = await load(servers, part, within)
            events += loaded.events
            after.append(stored(db, events))
            seconds.append(loaded.seconds)
        replay = await load(servers, [r for part in parts for r in part], within)
    return OneRun(after, seconds, stored(db, replay.events), replay.seconds)


async def through_two(
    servers: Servers, mongo: MongoClient, database: str, logs: Path, records: Sequence[RawRecord], within: float = 240
) -> tuple[Stored, float]:
    """Two normalizers in one consumer group (two hosts, two names) get the records; what they stored, and seconds."""
    env = environment(servers, database)
    await skip_to_end(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), servers.group(GROUP))
    (logs / "a").mkdir(exist_ok=True)
    (logs / "b").mkdir(exist_ok=True)
    a, b = env | {"INSTANCE_ID": "normalizer-a"}, env | {"INSTANCE_ID": "normalizer-b"}

    def members(n: int) -> Callable[[], Awaitable[bool]]:
        async def holding() -> bool:
            return await stable_members(servers.kafka_bootstrap_servers, servers.group(GROUP)) == n

        return holding

    # One member joins at a time, and both hold partitions before anything is published. noida-db (the local Kafka)
    # answered two first joins at once with an empty assignment for one of them, which aiokafka cannot read (its
    # consumer's start failed and the service exited: 3 runs in 6); and it wedges the group when a member's commit
    # is refused mid-rebalance: the member rejoins under a new id and the broker keeps electing the gone one as
    # leader, so no assignment is ever made.
    with running_service("normalizer", a, logs / "a"):
        await wait_until_async(members(1), within=60, what="the first normalizer holding the partitions")
        with running_service("normalizer", b, logs / "b"):
            await wait_until_async(members(2), within=60, what="two normalizers sharing the partitions")
            loaded = await load(servers, records, within)
    return stored(mongo[database], loaded.events), loaded.seconds
