"""Tools for the failure drills: services as processes that can be killed and started again, a corpus day as raw
records, consumer groups moved past other tests' messages, and the checks that nothing was lost or doubled."""

import asyncio
import os
import signal
import subprocess
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from pymongo import MongoClient

from schemas import topics
from schemas.events import RawRecord
from tests.support.kafka import caught_up, publish_raw, skip_to_end
from tests.support.pipelines import PIPELINE_ORDER
from tests.support.servers import free_port
from tests.support.services import create_user
from tests.support.sources import CORPUS, corpus_records
from tests.support.spawning import ZYGOTE, ServiceProcess
from tests.support.waiting import wait_until

HTTP = httpx.Client(timeout=5)  # one client: making one per poll costs a TLS context each time on a busy machine

# Every (topic, group) the pipeline's services commit; a drill moves them to the end before it starts.
GROUPS = [
    (topics.HARVEST_RAW, "papertrail-normalizer"),
    (topics.PAPERS_NORMALIZED, "papertrail-summarizer"),
    (topics.PAPERS_ENRICHED, "papertrail-matcher"),
    (topics.FOLLOWS_MATCHED, "papertrail-matcher-webhooks"),
    (topics.PAPERS_ENRICHED, "papertrail-query"),
    (topics.HARVEST_STATUS, "papertrail-query-status"),
]


def corpus_day(day: str) -> list[RawRecord]:
    """One day of the real corpus (tests/fixtures/corpus) as the corpus_json raw records a loader publishes."""
    return corpus_records(CORPUS) if day == "all" else [r for r in corpus_records(CORPUS) if r.datestamp == day]


def pipeline_env(servers_env: dict[str, str], **extra: str) -> dict[str, str]:
    """A fresh database and index; the harvester has no source (the drills publish raw records as a loader)."""
    run = uuid.uuid4().hex[:8]
    return (
        servers_env
        | {
            "MONGODB_DATABASE": f"papertrail_drill_{run}",
            "INDEX_NAME": f"papers_drill_{run}",
            "TOPIC_PARTITIONS": "3",
            "SOURCES": "[]",
            "LOG_LEVEL": "WARNING",
            "STARTUP_TIMEOUT_S": "30",
        }
        | extra
    )


@dataclass
class Service:
    """`papertrail <name>` as a process of its own (forked from the worker's zygote, tests/support/spawning.py)
    that a drill may SIGKILL and start again (new port)."""

    name: str
    env: dict[str, str]
    logs: Path
    process: ServiceProcess | None = None
    port: int = 0
    starts: int = 0

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def spawn(self) -> None:
        """Start the process on a new port without waiting for it (drills start several at once)."""
        self.port = free_port()
        self.starts += 1
        log = self.logs / f"{self.name}.{self.starts}.log"
        self.process = ZYGOTE.spawn([self.name], {**os.environ, **self.env, "HTTP_PORT": str(self.port)}, log)

    def wait_ready(self, timeout: float = 180) -> None:
        wait_until(self.ready, timeout=timeout, interval=0.5, what=f"{self.name} /readyz")

    def start(self) -> None:
        self.spawn()
        self.wait_ready()

    def ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"{self.name} exited: {self.log_tail()}")
        return HTTP.get(self.url("/readyz")).status_code == 200

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill9(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_tail(self, chars: int = 3000) -> str:
        path = self.logs / f"{self.name}.{self.starts}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""


@dataclass
class Pipeline:
    env: dict[str, str]
    logs: Path
    services: dict[str, Service] = field(default_factory=dict)

    def start(self, names: tuple[str, ...] = PIPELINE_ORDER) -> None:
        """All at once: the groups were moved to the end, so a consumer that comes up late misses nothing."""
        for name in names:
            self.services[name] = Service(name, self.env, self.logs)
            self.services[name].spawn()
        self.wait_ready()

    def wait_ready(self) -> None:
        for service in self.services.values():
            service.wait_ready()

    def stop(self) -> None:
        for service in self.services.values():
            service.stop()

    @property
    def bootstrap(self) -> str:
        return self.env["KAFKA_BOOTSTRAP_SERVERS"]

    @property
    def prefix(self) -> str:
        """KAFKA_NAME_PREFIX of the services: their topics' and groups' names on the broker start with it."""
        return self.env.get("KAFKA_NAME_PREFIX", "")


async def follow_most_papers(pipeline: "Pipeline") -> None:
    """A user with a broad keyword follow, made through the API as a user would: its matches are stored, so a drill
    can see one doubled (the catalogue's topic hits are announced, not stored)."""
    token = create_user(pipeline.env, "drill")
    async with httpx.AsyncClient(timeout=30) as http:
        follow = await http.post(
            pipeline.services["query"].url("/api/follows"),
            headers={"Authorization": f"Bearer {token}"},
            json={"kind": "keyword", "name": "models", "query": "model OR learning", "fields": "both"},
        )
    assert follow.status_code == 201, follow.text


async def skip_all_groups(bootstrap: str, prefix: str = "") -> None:
    """Before the services join: their groups ignore what earlier tests left on the shared topics.

    `prefix` is the services' KAFKA_NAME_PREFIX: the names of their topics and groups on the broker."""
    for topic, group in GROUPS:
        await skip_to_end(bootstrap, prefix + topic, prefix + group)


async def publish(bootstrap: str, records: list[RawRecord], prefix: str = "") -> None:
    await publish_raw(bootstrap, prefix + topics.HARVEST_RAW, records)


async def settled(bootstrap: str, prefix: str = "") -> bool:
    """Every group has committed everything on its topics: nothing in flight anywhere in the pipeline."""
    for topic, group in GROUPS:
        if not await caught_up(bootstrap, prefix + topic, prefix + group):
            return False
    return True


def indexed_ids(query: Service, size: int = 100) -> list[str]:
    """Every paper id in the search index, through the query API (paged), duplicates kept."""
    ids: list[str] = []
    page = 1
    while True:
        response = HTTP.get(query.url("/api/papers"), params={"size": size, "page": page}, timeout=30)
        response.raise_for_status()
        hits = response.json()["hits"]
        ids += [hit["paper_id"] for hit in hits]
        if len(hits) < size:
            return ids
        page += 1


def expected_paper_ids(records: list[RawRecord]) -> set[str]:
    return {f"arxiv:{r.record_id}" for r in records}


def loss_and_doubling(mongodb_url: str, database: str, expected: set[str], indexed: list[str]) -> dict[str, Any]:
    """What a drill asserts on: papers stored and indexed exactly once, one version per change, one match per
    (follow, paper)."""
    client: MongoClient = MongoClient(mongodb_url)
    with client:
        db = client[database]
        papers = {doc["_id"] for doc in db.papers.find({}, {"_id": 1})}
        # the same source record content recorded twice would be a doubled version
        versions = Counter(
            (v["paper_id"], v["source"], v["source_record_id"], v["content_hash"])
            for v in db.paper_versions.find({}, {"paper_id": 1, "source": 1, "source_record_id": 1, "content_hash": 1})
        )
        seqs = Counter((v["paper_id"], v["seq"]) for v in db.paper_versions.find({}, {"paper_id": 1, "seq": 1}))
        matches = Counter((m["follow_id"], m["paper_id"]) for m in db.matches.find({}, {"follow_id": 1, "paper_id": 1}))
    counted = Counter(indexed)
    return {
        "missing_papers": sorted(expected - papers),
        "unexpected_papers": sorted(papers - expected),
        "missing_from_index": sorted(expected - set(counted)),
        "indexed_twice": sorted(p for p, n in counted.items() if n > 1),
        "versions_doubled": sorted(str(k) for k, n in versions.items() if n > 1),
        "seqs_doubled": sorted(str(k) for k, n in seqs.items() if n > 1),
        "matches_doubled": sorted(str(k) for k, n in matches.items() if n > 1),
        "versions": sum(versions.values()),
        "matches": sum(matches.values()),
    }


def run(coro: Any) -> Any:
    return asyncio.get_event_loop().run_until_complete(coro)
