"""Drill: while a real corpus day is loading, each service in turn is killed with SIGKILL and started again. At the
end every paper is searchable exactly once, no version is doubled and no match is doubled."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

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
    skip_all_groups,
)
from tests.support.servers import Servers
from tests.support.waiting import wait_until, wait_until_async

# Each service is a static member of its consumer groups (INSTANCE_ID, papertrail/runtime/kafka.py): the restarted
# process takes the killed one's place and partitions at once. A dynamic member killed with -9 would hold its partitions
# until the broker expires it, which the local broker (noida-db 0.2.3) never does.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
DAY = "2026-05-05"  # 298 listings
KILL_ORDER = ("normalizer", "summarizer", "query", "matcher", "harvester")


@pytest.fixture
async def pipeline(servers: Servers, tmp_path: Path) -> AsyncIterator[Pipeline]:
    await skip_all_groups(servers.kafka_bootstrap_servers, servers.name_prefix)
    running = Pipeline(pipeline_env(servers.environment()), tmp_path)
    try:
        running.start()
        await follow_most_papers(running)
        yield running
    finally:
        running.stop()


async def test_every_service_killed_mid_load_loses_and_doubles_nothing(pipeline: Pipeline, servers: Servers) -> None:
    records = corpus_day(DAY)
    chunks = [records[i :: len(KILL_ORDER)] for i in range(len(KILL_ORDER))]
    killed: dict[str, tuple[int, int]] = {}
    for chunk, victim in zip(chunks, KILL_ORDER, strict=True):
        await publish(
            pipeline.bootstrap, chunk, pipeline.prefix
        )  # the pipeline is busy with this chunk when the kill lands
        service = pipeline.services[victim]
        old_pid = service.pid
        service.kill9()
        service.spawn()  # not waited for: the next kill may land while this one is still starting
        killed[victim] = (old_pid, service.pid)
    pipeline.wait_ready()

    assert all(old != new for old, new in killed.values())
    expected = expected_paper_ids(records)
    query = pipeline.services["query"]
    wait_until(lambda: len(set(indexed_ids(query))) >= len(expected), timeout=150, what=f"{len(expected)} indexed")
    await wait_until_async(lambda: settled(pipeline.bootstrap, pipeline.prefix), 90, "every consumer group to catch up")

    report = loss_and_doubling(servers.mongodb_url, pipeline.env["MONGODB_DATABASE"], expected, indexed_ids(query))
    assert report["missing_papers"] == [] and report["unexpected_papers"] == []
    assert report["missing_from_index"] == [] and report["indexed_twice"] == []
    assert report["versions_doubled"] == [] and report["versions"] == len(expected)  # one listing per paper that day
    assert report["matches_doubled"] == []
    assert report["matches"] > 0  # the user's follow matched something, so doubling could have shown
    assert all(s.alive() for s in pipeline.services.values())
