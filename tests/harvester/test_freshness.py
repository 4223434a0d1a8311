"""A restarted harvester remembers how fresh each source is: its freshness gauges come from the stored runs at
start, not from the next good run. Real harvester process and MongoDB."""

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pymongo import AsyncMongoClient

from schemas.events import HarvestStatus
from services.harvester.store import HarvestStore
from tests.support.servers import Servers, free_port
from tests.support.services import running_service
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def _gauges(port: int, source: str) -> dict[str, float]:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith("papertrail_harvest_") and sample.labels.get("source") == source
    }


def _run(state: str, started_at: datetime) -> HarvestStatus:
    return HarvestStatus(
        source="acl",
        run_id=uuid.uuid4().hex,
        state=state,  # type: ignore[arg-type]
        started_at=started_at,
        finished_at=started_at + timedelta(minutes=3),
        error="HTTPError: 502" if state == "failed" else None,
    )


async def test_freshness_gauges_come_from_the_stored_runs_at_start(servers: Servers, tmp_path: Path) -> None:
    database = f"papertrail_freshness_{uuid.uuid4().hex[:8]}"
    mongo: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    store = HarvestStore(mongo[database])
    now = datetime.now(UTC).replace(microsecond=0)
    good = _run("finished", now - timedelta(days=2))
    for run in (_run("finished", now - timedelta(days=3)), good):
        await store.record_run(run)
    for hours in (40, 30):  # two failures after the last good run
        await store.record_run(_run("failed", now - timedelta(hours=hours)))
    env = servers.environment() | {
        "MONGODB_DATABASE": database,
        "SOURCES": '["acl"]',
        "ACL_VOLUMES": '["2024.acl"]',
        "ACL_ANTHOLOGY_URL": f"http://127.0.0.1:{free_port()}",  # nothing listens: runs after the restart fail
        "HTTP_RETRIES": "0",
    }
    try:
        with running_service("harvester", env, tmp_path) as port:

            def restored() -> dict[str, float] | None:
                gauges = _gauges(port, "acl")
                return gauges if "papertrail_harvest_last_success_timestamp_seconds" in gauges else None

            gauges = wait_until(restored, timeout=30, what="the acl freshness gauges")
            assert good.finished_at is not None
            assert gauges["papertrail_harvest_last_success_timestamp_seconds"] == good.finished_at.timestamp()
            assert gauges["papertrail_harvest_interval_seconds"] == 24 * 3600
            # the two stored failures, plus the run the restart began if it has failed already
            assert gauges["papertrail_harvest_consecutive_failures"] in (2, 3)
    finally:
        await mongo.drop_database(database)
        await mongo.close()
