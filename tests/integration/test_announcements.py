"""An announcement through the real services over real Kafka and MongoDB: the watcher's run over the replay
server's feed publishes tonight's entries, the normalizer makes them papers at once, and the arXivRaw records
OAI-PMH brings later settle into the same papers: each paper on papers.new.v1 once, as a consumer reads it."""

import asyncio
import datetime as dt
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from pymongo import AsyncMongoClient, MongoClient

from schemas import topics
from schemas.events import HarvestStatus, RawRecord
from services.harvester.http import PoliteFetcher
from services.harvester.runner import run_source
from services.harvester.settings import HarvesterSettings
from services.harvester.sources.arxiv_feed import ArxivAnnouncementSource
from services.harvester.store import HarvestStore
from tests.support.kafka import caught_up, keys_on, publish_raw
from tests.support.replay import replay_server
from tests.support.servers import Servers
from tests.support.services import running_services
from tests.support.sources import oai_records
from tests.support.waiting import wait_until, wait_until_async

pytestmark = pytest.mark.integration

ANNOUNCED = dt.datetime(2026, 3, 3, 1, 0, tzinfo=dt.UTC)  # Monday 2026-03-02, 20:00 EST
TONIGHT = {"arxiv:0704.0471", "arxiv:0704.1109", "arxiv:0704.1114"}  # cs_tonight.xml
LATER = {"arxiv:0704.0716", "arxiv:0704.0874", "arxiv:0704.1586"}  # only in the OAI-PMH page


class KafkaOut:
    """The harvester's output, on the real broker: raw records as the harvester keys them."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None:
        await publish_raw(self.bootstrap, self.topic, [record for record, _ in records])

    async def publish_status(self, status: HarvestStatus) -> None:
        pass


async def _watch_tonight(replay: str, out: KafkaOut, mongodb_url: str, database: str) -> HarvestStatus:
    now = [ANNOUNCED + dt.timedelta(seconds=10)]

    async def sleep(seconds: float) -> None:
        now[0] += dt.timedelta(seconds=seconds)

    settings = HarvesterSettings(
        arxiv_feed_url=f"{replay}/atom", arxiv_feed_categories=["cs"], arxiv_feed_poll_s=60, arxiv_feed_watch_s=600
    )
    client: AsyncMongoClient = AsyncMongoClient(mongodb_url, tz_aware=True)
    try:
        store = HarvestStore(client[database])
        # last night's batch was seen: the feed's first answer (yesterday.xml) is no news
        await store.save_checkpoint("arxiv_feed", {"categories": {"cs": {"updated": None, "ids": ["2203.01250v3"]}}})
        async with httpx.AsyncClient(timeout=10) as http:
            fetcher = PoliteFetcher(http, min_interval_s=0, retries=1, retry_after_max_s=60)
            source = ArxivAnnouncementSource(settings, fetcher, clock=lambda: now[0], sleep=sleep)
            return await run_source(source, store, out.publish_raw, out.publish_status)
    finally:
        await client.close()


@pytest.fixture(scope="module")
def env(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], str, Path]]:
    run = uuid.uuid4().hex[:8]
    with ExitStack() as stack:
        replay = stack.enter_context(replay_server()).url
        env = servers.environment() | {
            "MONGODB_DATABASE": f"papertrail_announce_{run}",
            "INDEX_NAME": f"papers_announce_{run}",
            "TOPIC_PARTITIONS": "3",
        }
        yield env, replay, tmp_path_factory.mktemp("announce")


def test_announced_papers_arrive_at_once_and_oai_settles_into_them(
    env: tuple[dict[str, str], str, Path], servers: Servers
) -> None:
    environment, replay, logs = env
    bootstrap = servers.kafka_bootstrap_servers
    mongo: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    db = mongo[environment["MONGODB_DATABASE"]]
    out = KafkaOut(bootstrap, servers.topic(topics.HARVEST_RAW))
    with mongo, running_services(["normalizer", "summarizer"], environment, logs):
        status = asyncio.run(_watch_tonight(replay, out, servers.mongodb_url, environment["MONGODB_DATABASE"]))
        assert status.state == "finished" and status.records == 3

        def announced() -> bool:
            return {d["_id"] for d in db.papers.find({}, {"_id": 1})} == TONIGHT

        wait_until(announced, timeout=60, what="tonight's three papers stored from the feed")
        paper = db.papers.find_one({"_id": "arxiv:0704.1109"})
        assert paper is not None and [(v["label"], v.get("date")) for v in paper["versions"]] == [("v2", None)]

        # OAI-PMH serves the day's records later: the same three (and three others)
        asyncio.run(
            publish_raw(bootstrap, out.topic, oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw"))
        )

        def dated() -> bool:
            paper = db.papers.find_one({"_id": "arxiv:0704.1109"})
            return db.papers.count_documents({}) == 6 and paper is not None and paper["version_updated_at"] is not None

        wait_until(dated, timeout=60, what="the arXivRaw records settled")
        assert {d["_id"] for d in db.papers.find({}, {"_id": 1})} == TONIGHT | LATER

        normalized, new = servers.topic(topics.PAPERS_NORMALIZED), servers.topic(topics.PAPERS_NEW)

        async def settled() -> bool:  # every normalized event (3 new, 3 corrections, 3 new) handled
            return len(await keys_on(bootstrap, normalized)) == 9 and await caught_up(
                bootstrap, normalized, servers.group("papertrail-summarizer")
            )

        asyncio.run(wait_until_async(settled, 90, "the summarizer caught up with the normalized events"))

        def kinds() -> Counter[str]:  # recorded beside the events' publication (services/normalizer/normalize.py)
            return Counter(v["kind"] for v in db.paper_versions.find({"paper_id": {"$in": sorted(TONIGHT)}}))

        wait_until(lambda: sum(kinds().values()) >= 6, timeout=30, what="the six version records")
        assert kinds() == {"first_observed": 3, "metadata_correction": 3}
        # a consumer of the public topic hears of each paper once: the feed's announcement, not OAI's record
        assert Counter(asyncio.run(keys_on(bootstrap, new))) == Counter(TONIGHT | LATER)
