"""What a new version changed, end to end: real arXivRaw records of one paper (v1 alone, then v1-v4, then a title
correction) through the normalizer over Kafka into MongoDB, read back by the query service's API and paper page."""

import asyncio
import re
import uuid
from collections.abc import Iterator
from functools import partial
from typing import Any

import httpx
import pytest
from lxml import html
from pymongo import MongoClient

from schemas import topics
from tests.support.kafka import publish_raw, skip_to_end
from tests.support.servers import Servers
from tests.support.services import running_services
from tests.support.sources import oai_records, raw_record
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
PAPER = "arxiv:0704.0716"
OLD_TITLE, NEW_TITLE = "Limit distributions and scaling functions", "Limit Distributions and Scaling Functions"


@pytest.fixture(scope="module")
def query_base(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    record = next(
        r for r in oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw") if r.record_id == "0704.0716"
    )
    v1_only = re.sub(r'<version version="v[234]">.*?</version>', "", record.content, flags=re.S)
    contents = [v1_only, record.content, record.content.replace(OLD_TITLE, NEW_TITLE)]
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {"MONGODB_DATABASE": f"papertrail_changes_{run}", "INDEX_NAME": f"papers_ch_{run}"}
    bootstrap = servers.kafka_bootstrap_servers
    asyncio.run(skip_to_end(bootstrap, servers.topic(topics.HARVEST_RAW), servers.group("papertrail-normalizer")))
    mongo: MongoClient[dict[str, Any]] = MongoClient(servers.mongodb_url, tz_aware=True)
    with mongo, running_services(["normalizer", "query"], env, tmp_path_factory.mktemp("changes")) as ports:
        db = mongo[env["MONGODB_DATABASE"]]

        def versions(count: int) -> bool:
            return db.paper_versions.count_documents({"paper_id": PAPER}) == count

        for seq, content in enumerate(contents, start=1):
            raw = raw_record("arxiv", record.record_id, "arXivRaw", content)
            asyncio.run(publish_raw(bootstrap, servers.topic(topics.HARVEST_RAW), [raw]))
            wait_until(partial(versions, seq), what=f"version record #{seq}")
        yield f"http://127.0.0.1:{ports['query']}"
        mongo.drop_database(env["MONGODB_DATABASE"])


def test_the_api_and_the_page_show_what_the_title_correction_changed(query_base: str) -> None:
    detail = httpx.get(f"{query_base}/api/papers/{PAPER}", timeout=10).json()
    newest = detail["changes"][0]
    assert newest["seq"] == 3 and newest["version"] == "v4" and newest["date"]
    title = next(f for f in newest["fields"] if f["field"] == "title")
    assert OLD_TITLE in title["before"] and NEW_TITLE in title["after"]
    deleted = " ".join(r["text"] for r in title["diff"] if r["op"] == "delete")
    inserted = " ".join(r["text"] for r in title["diff"] if r["op"] == "insert")
    assert "distributions" in deleted and "Distributions" in inserted and "Limit" not in deleted
    page = html.fromstring(httpx.get(f"{query_base}/papers/{PAPER}", timeout=10).text)
    section = page.get_element_by_id("changes")
    assert "Distributions" in " ".join(i.text_content() for i in section.xpath(".//ins"))
