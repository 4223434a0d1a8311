"""`papertrail smoke` as an operator runs it, against the five services harvesting a real arXiv page over real
servers: its checks pass on what the pipeline made, and a dead letter the normalizer parks makes it fail naming it."""

import asyncio
import os
import re
import subprocess
import sys

import pytest
from aiokafka import AIOKafkaProducer

from schemas.topics import HARVEST_RAW
from tests.support.paths import ROOT
from tests.support.pipelines import Pipeline, unparseable_arxiv_record
from tests.support.servers import Servers

# five services starting at once take minutes on a loaded 2-core machine: a longer wait for their /readyz
pytestmark = [pytest.mark.integration, pytest.mark.pipeline(ready_timeout=300)]

# what a reader sees: every one must pass on the pipeline ("dead letters" and "search tasks" are counted instead:
# while Meilisearch refuses new papers whose vector is pending, issue 22 §1, the query service parks them)
READER_CHECKS = (
    "ready", "normalized", "searchable", "home page", "paper page", "search", "search page", "topic page", "topic feed"
)  # fmt: skip


def smoke(pipeline: Pipeline, *args: str) -> subprocess.CompletedProcess[str]:
    """`papertrail smoke` pointed at the pipeline's services (their ports, database and index)."""
    services = [f"--service={name}=http://127.0.0.1:{port}" for name, port in pipeline.ports.items()]
    return subprocess.run(
        [sys.executable, "-m", "papertrail", "smoke", *services, "--ready-timeout", "60", *args],
        cwd=ROOT,
        env={**os.environ, **pipeline.env},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


async def _publish_unparseable_record(servers: Servers) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers)
    await producer.start()
    try:
        record = unparseable_arxiv_record()
        await producer.send_and_wait(
            servers.topic(HARVEST_RAW), record.model_dump_json().encode(), key=b"arxiv:9999.99999"
        )
    finally:
        await producer.stop()


def _dead_letters_reported(result: subprocess.CompletedProcess[str]) -> int:
    if "ok   dead letters: no dead letter parked" in result.stdout:
        return 0
    found = re.search(r"^FAIL dead letters: (\d+) dead letter\(s\) parked:", result.stdout, re.MULTILINE)
    assert found, result.stdout + result.stderr
    return int(found[1])


def test_smoke_passes_on_the_pipeline_then_names_the_dead_letter_it_parks(pipeline: Pipeline, servers: Servers) -> None:
    first = smoke(pipeline, "--searchable-timeout", "300")
    for check in READER_CHECKS:
        assert f"ok   {check}:" in first.stdout, first.stdout + first.stderr
    assert first.stdout.splitlines()[-1].startswith("smoke: ")
    parked_before = _dead_letters_reported(first)

    asyncio.run(_publish_unparseable_record(servers))
    # the smoke waits until the normalizer has read that record (and so parked it) before it reads the dead letters
    second = smoke(pipeline, "--searchable-timeout", "120")
    assert second.returncode == 1
    assert _dead_letters_reported(second) == parked_before + 1
    # harvest.raw.v1.dlq is read first (the topics in order): its letter is the first one named
    failure = second.stdout.split("FAIL dead letters:")[1]
    assert failure.split("\n")[1].startswith(servers.topic("harvest.raw.v1.dlq["))
    assert f"from {servers.topic(HARVEST_RAW)}" in failure and "key=arxiv:9999.99999" in failure
    assert "no <arXiv> metadata" in failure
    assert "dead letters" in second.stdout.splitlines()[-1]  # smoke: k of n checks failed: …, dead letters, …
    for check in READER_CHECKS:
        assert f"ok   {check}:" in second.stdout


def test_papers_expected_but_not_searchable_fail_saying_how_many(pipeline: Pipeline) -> None:
    result = smoke(pipeline, "--expect-papers", "100000", "--searchable-timeout", "3")
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if line.startswith("FAIL searchable:"))
    assert " of 100000 papers searchable after " in line and "(as --expect-papers says)" in line
