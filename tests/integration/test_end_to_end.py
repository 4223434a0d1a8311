"""One real arXiv OAI-PMH page through every hop over real servers: harvester → normalizer → summarizer →
matcher and query, ending searchable through the query API."""

import shutil
import subprocess
import uuid

import httpx
import pytest
from pymongo import MongoClient

from services.harvester.sources.oai import parse_oai_page
from services.normalizer.parsers.arxiv_oai import parse_arxiv
from tests.support.pipelines import ARXIV_CS_PAGE, Pipeline, unparseable_arxiv_record
from tests.support.servers import Servers
from tests.support.waiting import wait_until, wait_until_async

pytestmark = pytest.mark.integration


def test_real_arxiv_paper_flows_end_to_end(pipeline: Pipeline, servers: Servers) -> None:
    page = parse_oai_page(ARXIV_CS_PAGE.read_bytes())
    expected = parse_arxiv(page.records[0].content)  # "Reproducing Kernel Banach Spaces with the l1 Norm"
    query_port = pipeline.ports["query"]

    def search_hit() -> dict | None:
        response = httpx.get(f"http://127.0.0.1:{query_port}/api/papers", params={"q": "Banach"}, timeout=5)
        response.raise_for_status()
        hits = [h for h in response.json()["hits"] if h["paper_id"] == f"arxiv:{expected.record_id}"]
        return hits[0] if hits else None

    hit = wait_until(search_hit, timeout=120, what="the paper to be searchable")
    assert hit["title"] == expected.title
    assert hit["authors"] == [a.name for a in expected.authors]
    assert hit["categories"][0] == expected.categories[0]

    mongo: MongoClient = MongoClient(servers.mongodb_url)
    with mongo:
        db = mongo[pipeline.env["MONGODB_DATABASE"]]
        paper = db.papers.find_one({"_id": f"arxiv:{expected.record_id}"})
        assert paper is not None and paper["title"] == expected.title
        assert paper["ids"]["dois"] == expected.ids.dois
        versions = wait_until(  # recorded beside the event's publication, not before it
            lambda: list(db.paper_versions.find({"paper_id": f"arxiv:{expected.record_id}"})),
            timeout=30,
            what="the paper's version record",
        )
        assert [(v["seq"], v["kind"]) for v in versions] == [(1, "first_observed")]
        # every record of the page becomes one paper, and the run is recorded as finished
        distinct_ids = {r.record_id for r in page.records}
        wait_until(
            lambda: db.papers.count_documents({}) == len(distinct_ids), timeout=60, what=f"{len(distinct_ids)} papers"
        )
        run = wait_until(
            lambda: db.harvest_runs.find_one({"source": "arxiv", "state": "finished"}),
            timeout=30,
            what="a finished harvest run",
        )
        assert run["records"] == len(page.records)

    def indexed_total() -> int:
        return int(
            httpx.get(f"http://127.0.0.1:{query_port}/api/papers", params={"size": 1}, timeout=5).json()["total"]
        )

    wait_until(lambda: indexed_total() == len(distinct_ids), timeout=60, what="every paper indexed")


def test_every_service_is_ready_and_exposes_metrics(pipeline: Pipeline) -> None:
    for name, port in pipeline.ports.items():
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200, name
        ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
        assert ready.status_code == 200 and ready.json()["ready"] is True, name
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
        assert metrics.status_code == 200 and "papertrail_" in metrics.text, name
        if shutil.which("promtool"):
            lint = subprocess.run(
                ["promtool", "check", "metrics"], input=metrics.text, capture_output=True, text=True, check=False
            )
            assert lint.returncode == 0, f"{name}: {lint.stdout}{lint.stderr}"


def test_bad_query_parameter_is_a_4xx_naming_it(pipeline: Pipeline) -> None:
    port = pipeline.ports["query"]
    response = httpx.get(f"http://127.0.0.1:{port}/api/papers", params={"category": 'cs.CL" OR 1=1'}, timeout=5)
    assert response.status_code == 422
    assert "category" in response.text


async def _end_offsets(bootstrap: str, topic: str) -> int:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        partitions = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or []]
        ends = await consumer.end_offsets(partitions)
        return sum(ends.values())
    finally:
        await consumer.stop()


async def _committed(bootstrap: str, group: str, topic: str) -> int:
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
        return sum(meta.offset for tp, meta in offsets.items() if tp.topic == topic and meta.offset > 0)
    finally:
        await admin.close()


async def test_bad_records_are_dead_lettered_and_the_partition_moves_on(pipeline: Pipeline, servers: Servers) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    bootstrap = servers.kafka_bootstrap_servers
    bad_bytes = b'{"source": "arxiv", "record_id": truncated'
    unparseable = unparseable_arxiv_record()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(servers.topic("harvest.raw.v1"), bad_bytes, key=b"test:bad-json")
        await producer.send_and_wait(
            servers.topic("harvest.raw.v1"), unparseable.model_dump_json().encode(), key=b"arxiv:9999.99999"
        )
    finally:
        await producer.stop()

    consumer = AIOKafkaConsumer(
        servers.topic("harvest.raw.v1.dlq"),
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        group_id=f"test-dlq-{uuid.uuid4().hex[:6]}",
    )
    await consumer.start()
    letters: dict[bytes, tuple[bytes, dict[str, bytes]]] = {}
    try:

        async def both_arrived() -> bool:
            batch = await consumer.getmany(timeout_ms=500)
            for records in batch.values():
                for record in records:
                    letters[record.key or b""] = (record.value or b"", dict(record.headers))
            return {b"test:bad-json", b"arxiv:9999.99999"} <= set(letters)

        await wait_until_async(both_arrived, 60, "two dead letters")
    finally:
        await consumer.stop()
    value, headers = letters[b"test:bad-json"]
    assert value == bad_bytes  # the original bytes, untouched
    assert headers["x-dlq-topic"] == servers.topic("harvest.raw.v1").encode() and headers["x-dlq-reason"]
    assert b"no <arXiv> metadata" in letters[b"arxiv:9999.99999"][1]["x-dlq-reason"]


async def test_the_same_raw_record_twice_changes_nothing(pipeline: Pipeline, servers: Servers) -> None:
    from aiokafka import AIOKafkaProducer

    from schemas.events import RawRecord

    bootstrap = servers.kafka_bootstrap_servers
    record = parse_oai_page(ARXIV_CS_PAGE.read_bytes()).records[0]
    paper_id = f"arxiv:{record.record_id}"
    mongo: MongoClient = MongoClient(servers.mongodb_url)
    db = mongo[pipeline.env["MONGODB_DATABASE"]]
    wait_until(lambda: db.papers.find_one({"_id": paper_id}), timeout=120, what="the paper")
    await wait_until_async(lambda: _settled(servers), 60, "the normalizer to catch up")
    versions_before = db.paper_versions.count_documents({})
    events_before = await _end_offsets(bootstrap, servers.topic("papers.normalized.v1"))

    again = RawRecord(
        source="arxiv",
        record_id=record.record_id,
        format="arXiv",
        content=record.content,
        sha256=record.sha256,
        run_id="replayed",
        harvested_at="2026-11-30T00:00:00Z",
    )
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(
            servers.topic("harvest.raw.v1"), again.model_dump_json().encode(), key=f"arxiv:{record.record_id}".encode()
        )
    finally:
        await producer.stop()
    await wait_until_async(lambda: _settled(servers), 60, "the normalizer to handle the repeat")
    assert db.paper_versions.count_documents({}) == versions_before
    assert await _end_offsets(bootstrap, servers.topic("papers.normalized.v1")) == events_before
    mongo.close()


async def _settled(servers: Servers) -> bool:
    """The normalizer has committed everything published to harvest.raw.v1."""
    bootstrap, raw = servers.kafka_bootstrap_servers, servers.topic("harvest.raw.v1")
    committed = await _committed(bootstrap, servers.group("papertrail-normalizer"), raw)
    return committed == await _end_offsets(bootstrap, raw)
