"""Two source quirks through the real services over real Kafka, MongoDB and Meilisearch:

- ACL front matter: a store that an earlier release filled with a volume's front matter (stored, summarized later,
  indexed, matched by a follow) loses it when the normalizer starts, in every service; the same volume harvested
  again yields its papers and no front matter: no paper, no index document, no papers.new.v1 message, no count.
  Its papers are cited as the volume prints them (booktitle, pages, month).
- Hugging Face picks: `papertrail harvest hf` fetches the arXiv record of the pick from the replay server, and
  the normalizer merges it in: the paper gets the record's categories and versions; a pick's `javascript:` code
  link is dropped by the normalizer and never reaches the paper page.
"""

import asyncio
import json
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import bibtexparser
import httpx
import pytest
from lxml import etree, html
from pymongo import MongoClient

from schemas import topics
from schemas.events import RawRecord
from services.normalizer.store import PaperStore
from tests.support.kafka import end_offsets, keys_on, publish_raw
from tests.support.paths import FIXTURES
from tests.support.replay import replay_server
from tests.support.servers import Servers
from tests.support.services import create_user, papertrail_cli, running_service, running_services
from tests.support.sources import HF_FILES, acl_records, raw_record
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

VOLUME = "2024.acl-tutorials"  # the smallest recorded volume: 6 papers and its front matter
FRONT = f"acl:{VOLUME}.0"
HF_DAY = "2013-04-03"  # the pick naming the recorded arXivRaw record (tests/fixtures/harvester/README.md)
HOSTILE_PICK = "2509.12201"  # an item of the recorded list of 2025-09-16 with a code and a project link
PICK = "arxiv:" + json.loads((FIXTURES / f"harvester/hf_pick/daily_papers_{HF_DAY}.json").read_text())[0]["paper"]["id"]


class System:
    """The consumers running, the normalizer restartable on its own."""

    def __init__(self, env: dict[str, str], logs: Path, stack: ExitStack) -> None:
        self.env, self.logs, self.stack = env, logs, stack
        self.ports = stack.enter_context(running_services(["query", "matcher", "summarizer"], env, logs))

    def query(self, path: str, **params: Any) -> Any:
        response = httpx.get(f"http://127.0.0.1:{self.ports['query']}{path}", params=params, timeout=10)
        response.raise_for_status()
        return response.json()

    def indexed(self) -> set[str]:
        return {hit["paper_id"] for hit in self.query("/api/papers", size=100)["hits"]}


@pytest.fixture(scope="module")
def system(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    run = uuid.uuid4().hex[:8]
    with ExitStack() as stack:
        replay = stack.enter_context(replay_server()).url
        env = servers.environment() | {
            "MONGODB_DATABASE": f"papertrail_fm_{run}",
            "INDEX_NAME": f"papers_fm_{run}",
            "TOPIC_PARTITIONS": "3",
            "SWEEP_INTERVAL_S": "1",
            "ARXIV_OAI_URL": f"{replay}/oai",
            "ARXIV_MIN_REQUEST_INTERVAL_S": "0",
            "HF_API_URL": replay,
            "HF_MIN_REQUEST_INTERVAL_S": "0",
        }
        yield System(env, tmp_path_factory.mktemp("front_matter"), stack)


@pytest.fixture(scope="module")
def mongo(servers: Servers) -> Iterator[MongoClient]:
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    yield client
    client.close()


def _volume() -> list[RawRecord]:
    return [r for r in acl_records() if r.record_id.startswith(f"{VOLUME}.")]


async def _store_as_an_earlier_release(system: System, servers: Servers) -> None:
    """What earlier releases did with the volume's front matter: a paper stored, and its event published."""
    from pymongo import AsyncMongoClient

    from tests.support.normalizing import apply

    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    try:
        store = PaperStore(client[system.env["MONGODB_DATABASE"]])
        await store.ensure_indexes()
        front = [r for r in _volume() if r.record_id.endswith(".0")]
        applied = await apply(store, *front)
    finally:
        await client.close()
    assert [e.paper.id for e in applied.events] == [FRONT]
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers, acks="all")
    await producer.start()
    try:
        for event in applied.events:
            await producer.send_and_wait(
                servers.topic(topics.PAPERS_NORMALIZED), event.model_dump_json().encode(), FRONT.encode()
            )
    finally:
        await producer.stop()


def test_front_matter_held_is_withdrawn_at_start_and_never_made_again(
    system: System, servers: Servers, mongo: MongoClient
) -> None:
    db = mongo[system.env["MONGODB_DATABASE"]]
    token = create_user(system.env, "ana")
    follow = httpx.post(
        f"http://127.0.0.1:{system.ports['query']}/api/follows",
        headers={"Authorization": f"Bearer {token}"},
        json={"kind": "keyword", "name": "proceedings", "query": "proceedings", "fields": "title"},
        timeout=10,
    )
    assert follow.status_code == 201, follow.text

    asyncio.run(_store_as_an_earlier_release(system, servers))
    wait_until(lambda: FRONT in system.indexed(), timeout=90, what="the front matter indexed, as before")
    wait_until(lambda: db.matches.find_one({"paper_id": FRONT}), timeout=60, what="the follow matching it")
    assert db.summary_pending.find_one({"_id": FRONT}) is not None  # no model: it waits for a summary
    assert system.query("/api/overview")["total_papers"]["value"] == 1

    with running_service("normalizer", system.env, system.logs) as normalizer:  # the new release starts
        wait_until(lambda: FRONT not in system.indexed(), timeout=60, what="the front matter out of the index")
        assert db.papers.find_one({"_id": FRONT}) is None
        assert db.paper_versions.count_documents({"paper_id": FRONT}) == 0
        assert db.source_records.count_documents({"paper_id": FRONT}) == 0
        wait_until(lambda: db.matches.find_one({"paper_id": FRONT}) is None, timeout=60, what="its match gone")
        wait_until(lambda: db.summary_pending.find_one({"_id": FRONT}) is None, timeout=60, what="no longer pending")
        overview = system.query("/api/overview")
        assert overview["total_papers"]["value"] == overview["new_papers"]["value"] == 0
        assert overview["total_ai_related"]["value"] == 0
        bootstrap = servers.kafka_bootstrap_servers
        assert asyncio.run(keys_on(bootstrap, servers.topic(topics.PAPERS_WITHDRAWN))) == [FRONT]
        new_before = asyncio.run(keys_on(bootstrap, servers.topic(topics.PAPERS_NEW)))

        # the volume harvested again, as the harvester publishes it: front matter included
        records = _volume()
        asyncio.run(publish_raw(bootstrap, servers.topic(topics.HARVEST_RAW), records))
        papers = {f"acl:{r.record_id}" for r in records} - {FRONT}
        assert len(papers) == 6
        wait_until(lambda: system.indexed() == papers, timeout=90, what="the volume's 6 papers indexed")
        # a paper is cited as its volume prints it (the stored record, read by the query service): title, pages
        first = next(r for r in records if r.record_id == f"{VOLUME}.1")
        cite = httpx.get(f"http://127.0.0.1:{system.ports['query']}/api/papers/acl:{VOLUME}.1/cite", timeout=10)
        [entry] = bibtexparser.parse_string(cite.text).entries
        volume = etree.fromstring(first.content.encode())
        assert entry["booktitle"] == volume.findtext("meta/booktitle") and entry["month"] == "aug"
        assert entry["pages"] == volume.findtext("paper/pages").replace("-", "--")
        assert {d["_id"] for d in db.papers.find({}, {"_id": 1})} == papers
        new_after = asyncio.run(keys_on(bootstrap, servers.topic(topics.PAPERS_NEW)))
        # one message per paper, none for the front matter (keys come partition by partition: compare counts)
        assert Counter(new_after) - Counter(new_before) == Counter(papers)
        overview = system.query("/api/overview")
        assert overview["new_papers"]["value"] == overview["total_papers"]["value"] == 6
        assert system.query("/api/papers", q="Proceedings")["total"] == 0
        # filed under cs.CL, the 分类 filter finds the Anthology's papers
        assert {hit["paper_id"] for hit in system.query("/api/papers", category="cs.CL", size=100)["hits"]} == papers
        assert db.matches.find_one({"paper_id": FRONT}) is None
        assert db.source_records.find_one({"_id": f"acl:{VOLUME}.0"}) is None
        dead = asyncio.run(end_offsets(bootstrap, servers.topic(f"{topics.HARVEST_RAW}.dlq")))
        assert sum(dead.values()) == 0  # set aside, not dead-lettered
        metrics = httpx.get(f"http://127.0.0.1:{normalizer}/metrics", timeout=5).text
        assert 'papertrail_normalizer_records_set_aside_total{reason="front_matter"} 1.0' in metrics
    # a second start finds nothing more to withdraw
    with running_service("normalizer", system.env, system.logs):
        assert asyncio.run(keys_on(servers.kafka_bootstrap_servers, servers.topic(topics.PAPERS_WITHDRAWN))) == [FRONT]


def test_a_picks_arxiv_record_is_fetched_and_merged_end_to_end(system: System, mongo: MongoClient) -> None:
    db = mongo[system.env["MONGODB_DATABASE"]]
    with running_service("normalizer", system.env, system.logs):
        done = papertrail_cli(system.env, "harvest", "hf", "--from", HF_DAY, "--until", HF_DAY)
        assert "hf: 2 records" in done.stderr, done.stderr

        def merged() -> dict[str, Any] | None:
            paper = db.papers.find_one({"_id": PICK})
            return paper if paper and "arxiv" in paper["sources"] else None

        paper = wait_until(merged, timeout=60, what="the arXiv record merged into the pick")
        # the two records are keyed apart (hf:…, arxiv:…), so either may be merged first
        assert sorted(paper["sources"]) == ["arxiv", "hf"] and paper["community"]["date"] == HF_DAY
        assert paper["categories"] == ["hep-ph", "hep-ex"]
        assert [(v["source"], v["label"]) for v in paper["versions"]] == [("arxiv", "v1"), ("arxiv", "v2")]
        assert paper["current_version"] == "v2" and paper["ai_related"] is False  # the categories decided
        # the version records go into paper_versions after the paper's write (services/normalizer/store.py)
        wait_until(
            lambda: sorted(v["source"] for v in db.paper_versions.find({"paper_id": PICK})) == ["arxiv", "hf"],
            timeout=30,
            what="both records' versions in paper_versions",
        )
        hit = wait_until(
            lambda: next((h for h in system.query("/api/papers", q="Dilepton")["hits"] if h["paper_id"] == PICK), None),
            timeout=60,
            what="the merged paper searchable",
        )
        assert hit["categories"] == ["hep-ph", "hep-ex"]


def test_a_picks_javascript_link_never_reaches_the_paper_page(
    system: System, servers: Servers, mongo: MongoClient
) -> None:
    """Hugging Face's item for 2509.12201 (the recorded list of 2025-09-16) with its `githubRepo` a `javascript:`
    URL, as an upstream could send it: the normalizer stores the paper without it, counting the dropped link, and
    the paper page links its project page and no script."""
    db = mongo[system.env["MONGODB_DATABASE"]]
    item = next(i for i in json.loads(HF_FILES[1].read_text()) if i["paper"]["id"] == HOSTILE_PICK)
    item["paper"]["githubRepo"] = "javascript:alert(document.cookie)"
    record = raw_record("hf", HOSTILE_PICK, "hf_daily_json", json.dumps(item), datestamp="2025-09-16")
    paper_id = f"arxiv:{HOSTILE_PICK}"
    with running_service("normalizer", system.env, system.logs) as normalizer:
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), [record]))
        paper = wait_until(lambda: db.papers.find_one({"_id": paper_id}), timeout=60, what="the pick stored")
        assert "code" not in paper["links"]
        assert paper["links"]["project"] == item["paper"]["projectPage"]

        def page() -> str | None:
            response = httpx.get(f"http://127.0.0.1:{system.ports['query']}/papers/{paper_id}", timeout=10)
            return response.text if response.status_code == 200 else None

        hrefs = [str(h) for h in html.fromstring(wait_until(page, timeout=60, what="its page")).xpath("//a/@href")]
        assert item["paper"]["projectPage"] in hrefs
        assert not [h for h in hrefs if "script:" in h.lower()], hrefs
        assert "code" not in system.query(f"/api/papers/{paper_id}")["paper"]["links"]
        metrics = httpx.get(f"http://127.0.0.1:{normalizer}/metrics", timeout=5).text
        assert 'papertrail_normalizer_links_dropped_total{kind="code",source="hf"} 1.0' in metrics
