"""The whole corpus through a running normalizer process over real Kafka and MongoDB: 7,184 listings of
4,717 arXiv ids make exactly 4,717 papers; a replay adds no paper, version or event. Two instances in one
consumer group give the same papers and versions as one, over the corpus's first week.

The first week (1,329 listings of 944 papers: 385 listings repeat a paper of an earlier day, three of them
with changed categories, i.e. revisions) goes first through the one instance, which records what it made of
it before the rest of the corpus follows; the pair of instances then gets only that week, so the suite pays
for the whole corpus once."""

import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from pymongo import MongoClient

from schemas import topics
from schemas.events import RawRecord
from tests.conftest import Servers, wait_until_async
from tests.integration.services import running_service
from tests.normalizer.kafka_tools import caught_up, end_offsets, publish_raw, skip_to_end, stable_members
from tests.normalizer.sources import corpus_records

pytestmark = pytest.mark.integration
GROUP = "papertrail-normalizer"
FIRST_WEEK = 7  # corpus days the pair of instances gets


@pytest.fixture(scope="module")
def corpus() -> list[RawRecord]:
    return corpus_records()


@pytest.fixture(scope="module")
def first_week(corpus: list[RawRecord]) -> list[RawRecord]:
    days = sorted({r.datestamp for r in corpus if r.datestamp})[:FIRST_WEEK]
    return [r for r in corpus if r.datestamp in days]


@pytest.fixture(scope="module")
def mongo(servers: Servers) -> Iterator[MongoClient]:
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    yield client
    client.close()


def _env(servers: Servers, database: str) -> dict[str, str]:
    return servers.environment() | {"MONGODB_DATABASE": database, "TOPIC_PARTITIONS": "3", "LOG_LEVEL": "WARNING"}


async def _load(servers: Servers, records: list[RawRecord]) -> tuple[int, float]:
    """Publish the records against the running normalizer(s); wait until handled: (events emitted, seconds)."""
    bootstrap = servers.kafka_bootstrap_servers
    before = sum((await end_offsets(bootstrap, servers.topic(topics.PAPERS_NORMALIZED))).values())
    started = time.monotonic()
    await publish_raw(bootstrap, servers.topic(topics.HARVEST_RAW), records)

    async def done() -> bool:
        return await caught_up(bootstrap, servers.topic(topics.HARVEST_RAW), servers.group(GROUP))

    await wait_until_async(done, within=240, what=f"{len(records)} raw records handled")
    elapsed = time.monotonic() - started
    after = sum((await end_offsets(bootstrap, servers.topic(topics.PAPERS_NORMALIZED))).values())
    return after - before, elapsed


async def _has_members(servers: Servers, n: int) -> bool:
    return await stable_members(servers.kafka_bootstrap_servers, servers.group(GROUP)) == n


def _history(db) -> dict[str, list[tuple[int, str, str]]]:  # type: ignore[no-untyped-def]
    """paper → its version records as (seq, kind, content hash of the record that made it)."""
    history: dict[str, list[tuple[int, str, str]]] = {}
    fields = {"paper_id": 1, "seq": 1, "kind": 1, "content_hash": 1}
    for v in db.paper_versions.find({}, fields).sort([("paper_id", 1), ("seq", 1)]):
        history.setdefault(v["paper_id"], []).append((v["seq"], v["kind"], v["content_hash"]))
    return history


def _state(db, events: int) -> dict:  # type: ignore[no-untyped-def]
    return {
        "papers": db.papers.count_documents({}),
        "versions": db.paper_versions.count_documents({}),
        "events": events,
        "history": _history(db),
    }


@pytest.fixture(scope="module")
async def one_instance(  # type: ignore[no-untyped-def]
    servers: Servers, corpus: list[RawRecord], first_week: list[RawRecord], mongo: MongoClient, tmp_path_factory
) -> dict:
    database = f"normalizer_corpus_{uuid.uuid4().hex[:8]}"
    logs: Path = tmp_path_factory.mktemp("normalizer-one")
    rest = [r for r in corpus if r not in first_week]
    db = mongo[database]
    await skip_to_end(
        servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), servers.group(GROUP)
    )  # before the group has members
    with running_service("normalizer", _env(servers, database), logs):
        week_events, week_seconds = await _load(servers, first_week)
        week = _state(db, week_events)
        rest_events, rest_seconds = await _load(servers, rest)
        first = _state(db, week_events + rest_events)
        replay_events, replay_seconds = await _load(servers, corpus)
        replay = {
            "papers": db.papers.count_documents({}),
            "versions": db.paper_versions.count_documents({}),
            "events": replay_events,
        }
    seconds = week_seconds + rest_seconds
    print(f"\ncorpus through one normalizer: {len(corpus)} records in {seconds:.1f}s; replay {replay_seconds:.1f}s")
    return {"db": database, "week": week, "first": first, "replay": replay}


def test_corpus_makes_one_paper_per_arxiv_id(one_instance: dict, corpus: list[RawRecord]) -> None:
    first = one_instance["first"]
    assert first["papers"] == len({r.record_id for r in corpus}) == 4717
    assert first["events"] == first["versions"] >= 4717
    for paper_id, history in first["history"].items():
        assert [seq for seq, _, _ in history] == list(range(1, len(history) + 1)), paper_id
        assert history[0][1] == "first_observed"
    assert len(first["history"]) == 4717


def test_replaying_the_corpus_adds_no_paper_no_version_no_event(one_instance: dict) -> None:
    first, replay = one_instance["first"], one_instance["replay"]
    assert (replay["papers"], replay["versions"], replay["events"]) == (first["papers"], first["versions"], 0)


async def test_two_instances_in_one_group_give_the_same_result_as_one(
    servers: Servers, first_week: list[RawRecord], mongo: MongoClient, one_instance: dict, tmp_path_factory
) -> None:  # type: ignore[no-untyped-def]
    database = f"normalizer_pair_{uuid.uuid4().hex[:8]}"
    env = _env(servers, database)
    logs: Path = tmp_path_factory.mktemp("normalizer-two")
    await skip_to_end(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), servers.group(GROUP))
    (logs / "a").mkdir()
    (logs / "b").mkdir()
    a, b = env | {"INSTANCE_ID": "normalizer-a"}, env | {"INSTANCE_ID": "normalizer-b"}  # two hosts, two names
    with running_service("normalizer", a, logs / "a"), running_service("normalizer", b, logs / "b"):
        # Both members hold partitions before anything is published. noida-db (the local Kafka) wedges the
        # group when a member's commit is refused mid-rebalance: the member rejoins under a new id and the
        # broker keeps electing the gone one as leader, so no assignment is ever made.
        await wait_until_async(
            lambda: _has_members(servers, 2), within=60, what="two normalizers sharing the partitions"
        )
        events, seconds = await _load(servers, first_week)
    print(f"\nfirst week ({len(first_week)} records) through two normalizers: {seconds:.1f}s")
    db = mongo[database]
    history = _history(db)
    expected = one_instance["week"]
    assert len(expected["history"]) == expected["papers"] == len({r.record_id for r in first_week}) == 944
    assert expected["versions"] > expected["papers"]  # the week holds revisions, not only first observations
    assert db.papers.count_documents({}) == expected["papers"]
    assert set(history) == set(expected["history"])
    assert Counter(len(h) for h in history.values()) == Counter(len(h) for h in expected["history"].values())
    assert history == expected["history"]  # same records, same order per paper: the same version records
    assert events >= db.paper_versions.count_documents({})  # at least once (a rebalance may repeat one)


def test_every_corpus_paper_is_first_published_on_the_day_it_was_first_listed(
    one_instance: dict, corpus: list[RawRecord], mongo: MongoClient
) -> None:
    first_listed: dict[str, str] = {}
    for record in corpus:  # the days in order: a paper's first listing is its first record
        first_listed.setdefault(record.record_id, str(record.datestamp))
    papers = mongo[one_instance["db"]].papers.find({}, {"ids.arxiv": 1, "published_at": 1, "published_from": 1})
    dated = {p["ids"]["arxiv"]: (p.get("published_at"), p.get("published_from")) for p in papers}
    assert len(dated) == len(first_listed)
    assert {basis for _, basis in dated.values()} == {"listing"}
    assert all(at is not None and str(at)[:10] == first_listed[i] for i, (at, _) in dated.items())
