"""The announcement watcher's line on the status pages, through real Kafka, MongoDB and the query service: the
watcher's closing status (harvest.status.v1) carries each category's batch, the stale one and the gap, and the
sources page and the overview show them."""

import asyncio
import datetime as dt
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import lxml.html
import pytest
from aiokafka import AIOKafkaProducer
from pymongo import AsyncMongoClient

from schemas import topics
from schemas.events import HarvestStatus, RawRecord
from services.harvester.announced import AnnouncedPapers, LedgeredPublishing
from services.harvester.http import PoliteFetcher
from services.harvester.runner import run_source
from services.harvester.settings import HarvesterSettings
from services.harvester.sources.arxiv_feed import ArxivAnnouncementSource
from services.harvester.store import HarvestStore
from tests.support.replay import replay_server
from tests.support.servers import Servers
from tests.support.services import running_service
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

ANNOUNCED = dt.datetime(2026, 3, 3, 1, 0, tzinfo=dt.UTC)  # Monday 2026-03-02, 20:00 EST
CAUGHT = ANNOUNCED + dt.timedelta(seconds=10)
LAST_NIGHT = {"updated": "2024-02-23T16:08:30.941605+00:00", "ids": ["2203.01250v3"]}  # yesterday.xml


class StatusOut:
    """Raw records dropped (no pipeline reads them here); statuses on the real harvest.status.v1."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None:
        pass

    async def publish_status(self, status: HarvestStatus) -> None:
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all")
        await producer.start()
        try:
            await producer.send_and_wait(self.topic, status.model_dump_json().encode(), key=status.source.encode())
        finally:
            await producer.stop()


async def _watch(replay: str, out: StatusOut, mongodb_url: str, database: str) -> HarvestStatus:
    """cs: last night's batch at 20:00:10, the new one a round later; math.OC's feed stays on last night's until
    the window closes."""
    now = [CAUGHT]

    async def sleep(seconds: float) -> None:
        now[0] += dt.timedelta(seconds=seconds)

    settings = HarvesterSettings(
        arxiv_feed_url=f"{replay}/atom",
        arxiv_feed_categories=["cs", "math.OC"],
        arxiv_feed_poll_s=60,
        arxiv_feed_watch_s=300,
    )
    client: AsyncMongoClient = AsyncMongoClient(mongodb_url, tz_aware=True)
    try:
        db = client[database]
        store = HarvestStore(db)
        await store.save_checkpoint("arxiv_feed", {"categories": {"cs": LAST_NIGHT, "math.OC": LAST_NIGHT}})
        # every announced id counts as overdue at once: OAI-PMH never brings them here
        publishing = LedgeredPublishing(
            out, AnnouncedPapers(db), dt.timedelta(0), clock=lambda: dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
        )
        async with httpx.AsyncClient(timeout=10) as http:
            fetcher = PoliteFetcher(http, min_interval_s=0, retries=1, retry_after_max_s=60)
            source = ArxivAnnouncementSource(settings, fetcher, clock=lambda: now[0], sleep=sleep)
            return await run_source(source, store, publishing.publish_raw, publishing.publish_status)
    finally:
        await client.close()


@pytest.fixture(scope="module")
def env(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], str, Path]]:
    run = uuid.uuid4().hex[:8]
    with ExitStack() as stack:
        replay = stack.enter_context(replay_server()).url
        env = servers.environment() | {
            "MONGODB_DATABASE": f"papertrail_announce_status_{run}",
            "INDEX_NAME": f"papers_announce_status_{run}",
            "DISPLAY_TIMEZONE": "UTC",
        }
        yield env, replay, tmp_path_factory.mktemp("announce_status")


def test_the_sources_page_and_the_overview_show_the_watchers_last_announcement(
    env: tuple[dict[str, str], str, Path], servers: Servers
) -> None:
    environment, replay, logs = env
    out = StatusOut(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_STATUS))
    with running_service("query", environment, logs) as port:
        status = asyncio.run(_watch(replay, out, servers.mongodb_url, environment["MONGODB_DATABASE"]))
        assert status.state == "finished" and status.announcement is not None
        assert status.announcement.gap_papers == 3

        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:

            def reported() -> dict | None:
                sources = client.get("/api/sources").json()
                return next((s["announcement"] for s in sources if s["source"] == "arxiv_feed"), None)

            wait_until(reported, timeout=60, what="the watcher's report on /api/sources")
            report = reported()
            assert report is not None and report["day"] == "2026-03-02"
            assert [(c["category"], c["outcome"], c["entries"]) for c in report["categories"]] == [
                ("cs", "announced", 3),
                ("math.OC", "stale", 1),
            ]
            assert report["categories"][0]["seen_at"].startswith("2026-03-03T01:01:10")  # its second round
            assert report["categories"][1]["seen_at"] is None and report["gap_papers"] == 3

            section = lxml.html.fromstring(client.get("/sources", params={"lang": "en"}).text).get_element_by_id(
                "announcement-arxiv_feed"
            )
            facts = dict(
                zip(
                    [dt_.text_content() for dt_ in section.findall("dt")],
                    [dd.text_content() for dd in section.findall("dd")],
                    strict=True,
                )
            )
            assert facts["cs"] == "cs: 3 ids, caught 2026-03-03 01:01"
            assert facts["Stale categories"] == "math.OC" and facts["Announced, OAI-PMH record not come"] == "3 papers"

            home = lxml.html.fromstring(client.get("/", params={"lang": "en"}).text).get_element_by_id("announce-line")
            line = " ".join(home.text_content().split())
            assert line == "Latest announcement 2026-03-02: 3 ids, caught 2026-03-03 01:01 · stale: math.OC · 3 missing"
