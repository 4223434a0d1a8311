"""纠错 of institutions through the real services (normalizer, summarizer, query over Kafka, MongoDB, Meilisearch): a
reader reports that an author of a genuine ACL 2024 paper is at Tsinghua University, an operator applies the report
(`papertrail corrections apply`), the paper page, the API and the institution filter show it, and the next harvest
of the paper (its record again, now with the DOI the Anthology gives it) leaves the correction as it was."""

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from lxml import html

from schemas import topics
from tests.conftest import Servers, wait_until
from tests.integration.services import papertrail_cli, running_services
from tests.normalizer.kafka_tools import publish_raw
from tests.normalizer.sources import acl_records, with_anthology_doi

pytestmark = pytest.mark.integration
RECORD = next(r for r in acl_records() if r.record_id == "2024.acl-long.469")
PAPER = "acl:2024.acl-long.469"
# the fifth author as the Anthology lists her: "Tsinghua University, Tsinghua University"; ROR's record 03cve4549
APPLY = ["--author", "5", "--ror", "03cve4549", "--name", "Tsinghua University", "--name-zh", "清华大学",
         "--country", "CN", "--affiliation", "Tsinghua University, Tsinghua University"]  # fmt: skip


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], str]]:
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {"MONGODB_DATABASE": f"papertrail_corr_{run}", "INDEX_NAME": f"papers_corr_{run}",
                                   "TOPIC_PARTITIONS": "1"}  # fmt: skip
    with running_services(["normalizer", "summarizer", "query"], env, tmp_path_factory.mktemp("corr")) as ports:
        url = f"http://127.0.0.1:{ports['query']}"
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), [RECORD]))
        wait_until(lambda: paper(url)["searchable"], timeout=90, what="the paper indexed")
        yield env, url


def paper(url: str) -> dict[str, Any]:
    response = httpx.get(f"{url}/api/papers/{PAPER}", timeout=10)
    return dict(response.json()) if response.status_code == 200 else {"searchable": False}


def fifth_authors_institutions(url: str) -> list[dict[str, Any]]:
    return list(paper(url)["authors_detail"][4].get("institutions") or [])


def test_an_applied_correction_is_shown_and_survives_the_next_harvest(
    site: tuple[dict[str, str], str], servers: Servers
) -> None:
    env, url = site
    assert fifth_authors_institutions(url) == []  # nothing matched it before
    said = {"field": "institutions", "message": "Yangning Li 在清华大学 (Tsinghua University)"}
    filed = httpx.post(f"{url}/api/papers/{PAPER}/corrections", json=said, timeout=10)
    assert filed.status_code == 201, filed.text
    report = filed.json()["id"]
    refused = papertrail_cli(env, "corrections", "apply", report, "--author", "12", "--affiliation", "x", check=False)
    assert refused.returncode == 1 and "has 11 authors: no author 12" in refused.stdout
    done = papertrail_cli(env, "corrections", "apply", report, *APPLY)
    assert f"report {report} applied to {PAPER}" in done.stdout and "Tsinghua University (03cve4549)" in done.stdout

    shown = wait_until(lambda: fifth_authors_institutions(url) or None, timeout=90, what="the correction indexed")
    assert [(i["ror"], i["name_zh"], i["evidence"]) for i in shown] == [("03cve4549", "清华大学", "correction")]
    page = html.fromstring(httpx.get(f"{url}/papers/{PAPER}", timeout=10).text)
    assert " ".join(page.find_class("insts")[0].text_content().split()).startswith(
        "机构 Tsinghua University（清华大学）"
    )
    found = httpx.get(f"{url}/api/papers", params={"institution": "03cve4549"}, timeout=10).json()
    assert [h["paper_id"] for h in found["hits"]] == [PAPER]
    listed = papertrail_cli(env, "corrections", "list", "--status", "applied").stdout
    assert report in listed and "applied: author 5 (Yangning Li): Tsinghua University (03cve4549)" in listed
    again = papertrail_cli(env, "corrections", "apply", report, *APPLY, check=False)
    assert again.returncode == 2 and "is applied" in again.stdout  # once only

    next_harvest = with_anthology_doi(RECORD)
    asyncio.run(publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), [next_harvest]))
    wait_until(lambda: paper(url)["ids"].get("dois"), timeout=90, what="the next harvest merged")
    assert [(i["ror"], i["evidence"]) for i in fifth_authors_institutions(url)] == [("03cve4549", "correction")]
    history = paper(url)["history"]
    assert [(h["seq"], h["kind"]) for h in history] == [
        (1, "first_observed"), (2, "metadata_correction"), (3, "metadata_correction")]  # fmt: skip
