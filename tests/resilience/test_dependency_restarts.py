"""Drill: the Kafka-protocol broker, the MongoDB-protocol server and Meilisearch are each restarted while a real
corpus day flows. The services reconnect by themselves (same processes throughout) and nothing is lost or doubled.

The drill runs its own local stack, since it stops servers other tests use. The broker is stopped with SIGTERM:
noida-db writes its log to disk only then (a kill -9 of the broker itself loses its topics).
"""

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from papertrail_tools import stack
from tests.support.drills import (
    Pipeline,
    corpus_day,
    expected_paper_ids,
    follow_most_papers,
    indexed_ids,
    loss_and_doubling,
    pipeline_env,
    publish,
    settled,
)
from tests.support.servers import stack_on_free_ports
from tests.support.waiting import wait_until, wait_until_async

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
DAY = "2026-05-10"  # 274 listings
RESTARTS = ("kafka", "mongodb", "meilisearch")


@pytest.fixture
def own_stack(tmp_path: Path) -> Iterator[stack.StackSettings]:
    settings = stack_on_free_ports(tmp_path / "stack", MEILI_MASTER_KEY="papertrail-test-master-key")
    stack.up(settings, log=lambda line: None)
    try:
        yield settings
    finally:
        stack.down(settings, log=lambda line: None)


@pytest.fixture
async def pipeline(own_stack: stack.StackSettings, tmp_path: Path) -> AsyncIterator[Pipeline]:
    running = Pipeline(pipeline_env(own_stack.environment()), tmp_path)
    try:
        running.start()
        await follow_most_papers(running)
        yield running
    finally:
        running.stop()


def restart_server(settings: stack.StackSettings, name: str) -> None:
    """SIGTERM one server, wait until it is gone, start it again on the same port and data dir."""
    pid_file = settings.dir.resolve() / f"{name}.pid"
    pid = stack.read_pid(pid_file)
    assert pid is not None, f"{name} is not running"
    os.kill(pid, signal.SIGTERM)

    def gone() -> bool:
        try:
            return os.waitpid(pid, os.WNOHANG)[0] == pid  # our child: reap it, or its PID stays "alive"
        except ChildProcessError:
            return stack.read_pid(pid_file) is None

    wait_until(gone, timeout=60, what=f"{name} to stop")
    time.sleep(1)  # the services notice the server is gone before it is back
    stack.up(settings, log=lambda line: None)


async def test_services_ride_out_restarts_of_every_server(pipeline: Pipeline, own_stack: stack.StackSettings) -> None:
    records = corpus_day(DAY)
    chunks = [records[i :: len(RESTARTS) + 1] for i in range(len(RESTARTS) + 1)]
    pids = {name: service.pid for name, service in pipeline.services.items()}
    for chunk, server in zip(chunks, RESTARTS, strict=False):
        await publish(pipeline.bootstrap, chunk)  # in flight while the server goes away
        await asyncio.to_thread(restart_server, own_stack, server)  # stack.up probes Kafka with its own loop
    await publish(pipeline.bootstrap, chunks[-1])

    expected = expected_paper_ids(records)
    query = pipeline.services["query"]
    wait_until(lambda: len(set(indexed_ids(query))) >= len(expected), timeout=240, what=f"{len(expected)} indexed")
    await wait_until_async(lambda: settled(pipeline.bootstrap), 120, "every consumer group to catch up")

    report = loss_and_doubling(
        own_stack.environment()["MONGODB_URL"], pipeline.env["MONGODB_DATABASE"], expected, indexed_ids(query)
    )
    assert report["missing_papers"] == [] and report["unexpected_papers"] == []
    assert report["missing_from_index"] == [] and report["indexed_twice"] == []
    assert report["versions_doubled"] == [] and report["versions"] == len(expected)
    assert report["matches_doubled"] == [] and report["matches"] > 0  # the user's follow matched something
    # recovered by themselves: the same processes, all ready again
    assert {name: service.pid for name, service in pipeline.services.items()} == pids
    assert all(service.alive() and service.ready() for service in pipeline.services.values())
