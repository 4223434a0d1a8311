"""Drill: 1,000 malformed raw records (truncated XML, wrong encoding, 10 MB fields, invalid JSON, wrong schema)
interleaved with a real corpus day. Every bad one ends on harvest.raw.v1.dlq with a reason, every good one
becomes a paper, and the normalizer never restarts."""

import hashlib
import json
import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer
from prometheus_client.parser import text_string_to_metric_families
from pymongo import MongoClient

from papertrail.runtime.dlq import read_dead_letters
from papertrail.runtime.settings import InfraSettings
from schemas import topics
from schemas.events import RawRecord
from services.harvester.sources.oai import parse_oai_page
from tests.support.drills import HTTP, Service, corpus_day, expected_paper_ids, pipeline_env
from tests.support.kafka import caught_up, skip_to_end
from tests.support.pipelines import ARXIV_CS_PAGE
from tests.support.servers import Servers
from tests.support.waiting import wait_until_async

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
DAY = "2026-05-12"  # 272 listings
BAD = 1000
HUGE = 3  # of the 1,000: records with a 10 MB field
GROUP = "papertrail-normalizer"


def _raw(record_id: str, fmt: str, content: str, source: str = "arxiv") -> RawRecord:
    return RawRecord.model_validate(
        {
            "source": source,
            "record_id": record_id,
            "format": fmt,
            "content": content,
            "sha256": hashlib.sha256(content.encode()).hexdigest(),
            "run_id": "drill",
            "harvested_at": "2026-11-30T00:00:00Z",
        }
    )


def malformed(run: str, good: list[RawRecord]) -> dict[bytes, bytes]:
    """key → message value of BAD records, each broken in one of the ways a source or a bug breaks them."""
    xml = parse_oai_page(ARXIV_CS_PAGE.read_bytes()).records[0].content
    line = json.loads(good[0].content)  # a corpus line with its Chinese summary as characters, not \u escapes
    chinese = _raw("x", "corpus_json", json.dumps(line, ensure_ascii=False), source="corpus")
    assert not chinese.content.isascii()
    bad: dict[bytes, bytes] = {}
    for i in range(BAD):
        key = f"drill-{run}:{i}".encode()
        rid = f"{run}-{i}"
        if i < HUGE:  # a 10 MB abstract in a corpus line the loader cut short
            content = json.dumps({"id": rid, "title": "huge"})[:-1] + ', "abstract": "' + "x" * (10 << 20)
            value = _raw(rid, "corpus_json", content, source="corpus").model_dump_json().encode()
        elif i % 4 == 0:  # truncated XML
            value = _raw(rid, "arXiv", xml[: len(xml) * (i % 7 + 1) // 9]).model_dump_json().encode()
        elif i % 4 == 1:  # wrong encoding: a good record's JSON in UTF-16 or GB18030 instead of UTF-8
            text = chinese.model_copy(update={"record_id": rid}).model_dump_json()
            value = text.encode("utf-16" if i % 8 == 1 else "gb18030")
        elif i % 4 == 2:  # invalid JSON
            value = _raw(rid, "corpus_json", "{}").model_dump_json().encode()[: 20 + i % 50]
        else:  # valid JSON, wrong schema: unknown format, missing fields, wrong types, or content of another format
            value = json.dumps(
                [
                    {"source": "arxiv", "record_id": rid, "format": "pdf", "content": "x"},
                    {"record_id": rid},
                    {"source": 7, "record_id": [rid], "format": "arXiv", "content": None},
                    json.loads(_raw(rid, "corpus_json", xml).model_dump_json()),
                ][i % 16 // 4]
            ).encode()
        bad[key] = value
    return bad


@pytest.fixture
async def normalizer(servers: Servers, tmp_path: Path) -> AsyncIterator[Service]:
    await skip_to_end(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), servers.group(GROUP))
    service = Service("normalizer", pipeline_env(servers.environment()), tmp_path)
    try:
        service.start()
        yield service
    finally:
        service.stop()


async def test_malformed_records_are_parked_and_good_ones_pass(normalizer: Service, servers: Servers) -> None:
    run = uuid.uuid4().hex[:8]
    good = corpus_day(DAY)
    bad = malformed(run, good)
    messages = [(f"{r.source}:{r.record_id}".encode(), r.model_dump_json().encode()) for r in good]
    messages += list(bad.items())
    random.Random(8).shuffle(messages)
    pid = normalizer.pid

    # gzip lets a 10 MB record through the broker's 1 MB limit, as a harvester batch with compression would
    producer = AIOKafkaProducer(
        bootstrap_servers=servers.kafka_bootstrap_servers, compression_type="gzip", max_request_size=32 << 20
    )
    await producer.start()
    try:
        futures = [await producer.send(servers.topic(topics.HARVEST_RAW), value, key=key) for key, value in messages]
        for future in futures:
            await future
    finally:
        await producer.stop()

    bootstrap = servers.kafka_bootstrap_servers
    await wait_until_async(
        lambda: caught_up(bootstrap, servers.topic(topics.HARVEST_RAW), servers.group(GROUP)),
        300,
        "the normalizer to catch up",
    )

    settings = InfraSettings(kafka_bootstrap_servers=bootstrap, kafka_name_prefix=servers.name_prefix)
    letters, _ = await read_dead_letters(settings, topics.HARVEST_RAW)
    ours = {letter.key: letter for letter in letters if letter.key and letter.key.startswith(f"drill-{run}:".encode())}
    assert set(ours) == set(bad), f"{len(set(bad) - set(ours))} bad records not dead-lettered"
    assert all(letter.headers.get("x-dlq-reason") for letter in ours.values())
    assert all(letter.headers.get("x-dlq-service") == "normalizer" for letter in ours.values())
    small = [key for key in bad if len(bad[key]) < (1 << 20)]
    assert all(ours[key].value == bad[key] for key in small)  # the original bytes, for replay after a fix

    client: MongoClient = MongoClient(servers.mongodb_url)
    with client:
        db = client[normalizer.env["MONGODB_DATABASE"]]
        assert {d["_id"] for d in db.papers.find({}, {"_id": 1})} == expected_paper_ids(good)
        assert db.paper_versions.count_documents({}) == len(good)

    assert normalizer.alive() and normalizer.pid == pid  # the same process throughout: no crash, no restart
    metrics = HTTP.get(normalizer.url("/metrics")).text
    parked = sum(
        sample.value
        for family in text_string_to_metric_families(metrics)
        if family.name == "papertrail_dead_letters"
        for sample in family.samples
        if sample.name.endswith("_total") and sample.labels.get("topic") == servers.topic(topics.HARVEST_RAW)
    )
    assert parked >= BAD
