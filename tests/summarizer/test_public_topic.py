"""The summarizer as a real process over real Kafka and MongoDB servers and the local OpenAI-compatible server:
papers flow on while the endpoint is down, the sweep summarizes them later, and a consumer outside the project's
code reads papers.new.v1, every message valid against the committed JSON Schema."""

import json
import shutil
import subprocess
import uuid
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import httpx
import jsonschema
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from schemas import topics
from schemas.events import PaperNew
from tests.support.fake_openai import FakeOpenAI, corpus_event, corpus_lines, running_fake_openai
from tests.support.paths import ROOT
from tests.support.servers import Servers
from tests.support.services import running_service
from tests.support.waiting import wait_until, wait_until_async

pytestmark = pytest.mark.integration

SCHEMA = json.loads((ROOT / "schemas/json/papers.new.v1.json").read_text(encoding="utf-8"))
EXAMPLE = ROOT / "docs/examples/papers.new.v1.json"
LINES = corpus_lines()


def validate_public(message: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(message)


@pytest.fixture(scope="module")
def fake() -> Iterator[tuple[FakeOpenAI, str]]:
    with running_fake_openai() as served:
        yield served


@pytest.fixture(scope="module")
def summarizer(
    servers: Servers, fake: tuple[FakeOpenAI, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[int]:
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_summarizer_{uuid.uuid4().hex[:8]}",
        "TOPIC_PARTITIONS": "3",
        "OPENAI_BASE_URL": fake[1],
        "OPENAI_MODEL": "fake-deepseek",
        "OPENAI_API_KEY": "test-key",
        "OPENAI_ATTEMPTS": "2",
        "OPENAI_RETRY_INITIAL_S": "0.05",
        "OPENAI_TIMEOUT_S": "5",
        "SWEEP_INTERVAL_S": "0.5",
    }
    with running_service("summarizer", env, tmp_path_factory.mktemp("summarizer-logs")) as port:
        yield port


class Reader:
    """A plain aiokafka consumer (no project code) of the summarizer's output topics, from the beginning; what it
    has seen is kept under the topics' documented names."""

    def __init__(self, servers: Servers) -> None:
        self.prefix = servers.name_prefix
        self.consumer = AIOKafkaConsumer(
            servers.topic(topics.PAPERS_NEW),
            servers.topic(topics.PAPERS_ENRICHED),
            bootstrap_servers=servers.kafka_bootstrap_servers,
            auto_offset_reset="earliest",
        )
        self.seen: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
        self.raw_public: list[bytes] = []

    async def poll(self) -> None:
        batch = await self.consumer.getmany(timeout_ms=300)
        for records in batch.values():
            for record in records:
                topic = record.topic.removeprefix(self.prefix)
                if topic == topics.PAPERS_NEW:
                    self.raw_public.append(record.value or b"")
                self.seen[topic][(record.key or b"").decode()].append(json.loads(record.value or b"{}"))

    def statuses(self, topic: str, key: str) -> list[str]:
        return [m["summary"]["status"] for m in self.seen[topic][key]]


async def test_papers_flow_while_the_endpoint_is_down_and_public_messages_validate(
    servers: Servers, fake: tuple[FakeOpenAI, str], summarizer: int
) -> None:
    state = fake[0]
    state.reset()
    state.down = True
    reader = Reader(servers)
    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers)
    await reader.consumer.start()
    await producer.start()
    try:
        early, late = [corpus_event(line) for line in LINES[:2]], [corpus_event(line) for line in LINES[2:]]
        for event in early:
            await producer.send_and_wait(
                servers.topic(topics.PAPERS_NORMALIZED), event.model_dump_json().encode(), key=event.paper.id.encode()
            )

        async def early_ones_out_pending() -> bool:
            await reader.poll()
            return all(reader.statuses(topics.PAPERS_NEW, e.paper.id) == ["pending"] for e in early)

        await wait_until_async(
            early_ones_out_pending, 60, "papers.new.v1 with pending summaries while the model is down"
        )
        assert all(reader.statuses(topics.PAPERS_ENRICHED, e.paper.id)[0] == "pending" for e in early)

        state.down = False  # the endpoint is back: the sweep summarizes the waiting papers and emits them again
        for event in late:
            await producer.send_and_wait(
                servers.topic(topics.PAPERS_NORMALIZED), event.model_dump_json().encode(), key=event.paper.id.encode()
            )
        revision = corpus_event(LINES[2], "revised", comments="v2: camera-ready")  # keeps its summary: no call
        await producer.send_and_wait(
            servers.topic(topics.PAPERS_NORMALIZED), revision.model_dump_json().encode(), key=revision.paper.id.encode()
        )

        async def everything_summarized() -> bool:
            await reader.poll()
            enriched_done = all(
                reader.statuses(topics.PAPERS_ENRICHED, e.paper.id)[-1:] == ["ok"] for e in [*early, *late]
            )
            # the vector sweep emits papers again too, each with its own kind: the revision comes once, or twice when
            # its vector was still pending (the sweep's copy is "revised" too), and its last word is the summary's
            revised = [m for m in reader.seen[topics.PAPERS_ENRICHED][revision.paper.id] if m["kind"] == "revised"]
            # papers.new.v1 is another topic: a late paper's message there may come after its enriched one
            announced = all(reader.seen[topics.PAPERS_NEW][e.paper.id] for e in [*early, *late])
            return enriched_done and announced and bool(revised) and revised[-1]["summary"]["status"] == "ok"

        await wait_until_async(everything_summarized, 90, "every paper enriched with an ok summary and announced")
    finally:
        await producer.stop()
        await reader.consumer.stop()

    # each paper once on the public topic (the revision is not new), every message valid against the schema
    for event in [*early, *late]:
        assert len(reader.seen[topics.PAPERS_NEW][event.paper.id]) == 1
    for message in reader.raw_public:
        validate_public(json.loads(message))
    cadfit = reader.seen[topics.PAPERS_NEW]["arxiv:2605.01171"][0]
    assert cadfit["summary"]["institutions"] == [
        {"name": "Massachusetts Institute of Technology", "name_zh": "麻省理工学院"}
    ]
    # the sweep's emissions carry the real Chinese summary; the model's verdict refined ai_related
    swept = reader.seen[topics.PAPERS_ENRICHED][early[0].paper.id][-1]
    assert swept["summary"]["tldr_zh"] == LINES[0]["AI"]["tldr"] and swept["paper"]["ai_related"] is False
    assert reader.seen[topics.PAPERS_ENRICHED][revision.paper.id][-1]["summary"]["tldr_zh"] == LINES[2]["AI"]["tldr"]
    ok_calls = [r for r in state.requests if r.status == 200]
    assert sorted(r.title or "" for r in ok_calls) == sorted(e.paper.title for e in [*early, *late])  # one call each

    async with httpx.AsyncClient() as http:
        metrics = (await http.get(f"http://127.0.0.1:{summarizer}/metrics", timeout=5)).text
    assert 'papertrail_summarizer_calls_total{outcome="ok"} 6.0' in metrics
    assert 'papertrail_summarizer_calls_total{outcome="server_error"}' in metrics
    assert "papertrail_summarizer_cache_hits_total 1.0" in metrics
    assert 'papertrail_summarizer_tokens_total{direction="out"}' in metrics


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed (apt-get install kcat)")
def test_kcat_reads_the_public_topic(servers: Servers, summarizer: int) -> None:
    """Another team's view: kcat writes a normalized paper and reads papers.new.v1 with the README's command."""
    event = corpus_event(LINES[5])
    kafka = servers.kafka_bootstrap_servers
    subprocess.run(
        ["kcat", "-b", kafka, "-P", "-t", servers.topic(topics.PAPERS_NORMALIZED), "-K", "\t"],
        input=f"{event.paper.id}\t{event.model_dump_json()}\n".encode(),
        timeout=60,
        check=True,
    )

    def kcat_sees_it() -> list[dict[str, Any]]:
        command = [
            "kcat",
            "-b",
            kafka,
            "-C",
            "-t",
            servers.topic(topics.PAPERS_NEW),
            "-o",
            "beginning",
            "-e",
            "-q",
            "-f",
            "%k\t%s\n",
        ]
        result = subprocess.run(command, capture_output=True, timeout=60, check=True)
        lines = [line.split(b"\t", 1) for line in result.stdout.splitlines() if b"\t" in line]
        return [json.loads(value) for key, value in lines if key == event.paper.id.encode()]

    messages = wait_until(kcat_sees_it, timeout=60, what="kcat to print the paper from papers.new.v1")
    for message in messages:
        validate_public(message)
    assert messages[0]["summary"]["tldr_zh"] == LINES[5]["AI"]["tldr"]


def test_the_committed_example_message_is_valid() -> None:
    example = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    validate_public(example)
    assert PaperNew.model_validate(example).summary.status == "ok"
