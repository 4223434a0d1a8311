"""纠错 of institutions through the real services (normalizer, summarizer, query over Kafka, MongoDB, Meilisearch): a
reader reports that an author of a genuine ACL 2024 paper ("Baidu Ernie-bot") is at Baidu, an operator applies the
report (`papertrail corrections apply`), the paper page, the API and the institution filter show it, and the next
harvest of the paper (its record again, now with the DOI the Anthology gives it, matched to ROR again) leaves the
correction as it was."""

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from lxml import html

from schemas import topics
from tests.support.kafka import publish_raw
from tests.support.servers import Servers
from tests.support.services import papertrail_cli, running_services
from tests.support.sources import acl_records, with_anthology_doi
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
RECORD = next(r for r in acl_records() if r.record_id == "2024.acl-long.469")
PAPER = "acl:2024.acl-long.469"
# the eighth author as the Anthology lists him: "Baidu Ernie-bot"; ROR's record 03vs3wt56, Baidu (China), 百度, its
# names and country taken from the shipped ROR catalogue
APPLY = ["--author", "8", "--ror", "03vs3wt56", "--affiliation", "Baidu Ernie-bot"]


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


def corrected_authors_institutions(url: str) -> list[dict[str, Any]]:
    return list(paper(url)["authors_detail"][7].get("institutions") or [])


def test_an_applied_correction_is_shown_and_survives_the_next_harvest(
    site: tuple[dict[str, str], str], servers: Servers
) -> None:
    env, url = site
    # whatever matching made of it before, it was no correction
    assert all(i.get("evidence") != "correction" for i in corrected_authors_institutions(url))
    said = {"field": "institutions", "message": "Zhongli Li 在百度 (Baidu)"}
    filed = httpx.post(f"{url}/api/papers/{PAPER}/corrections", json=said, timeout=10)
    assert filed.status_code == 201, filed.text
    report = filed.json()["id"]
    refused = papertrail_cli(env, "corrections", "apply", report, "--author", "12", "--affiliation", "x", check=False)
    assert refused.returncode == 1 and "has 11 authors: no author 12" in refused.stdout
    unknown = papertrail_cli(env, "corrections", "apply", report, "--author", "8", "--ror", "0aaaaaa00", check=False)
    assert unknown.returncode == 1 and "the ROR catalogue holds no 0aaaaaa00" in unknown.stdout
    done = papertrail_cli(env, "corrections", "apply", report, *APPLY)
    assert f"report {report} applied to {PAPER}" in done.stdout and "Baidu (China) (03vs3wt56)" in done.stdout

    def corrected() -> list[dict[str, Any]] | None:
        found = corrected_authors_institutions(url)
        return found if any(i.get("evidence") == "correction" for i in found) else None

    shown = wait_until(corrected, timeout=90, what="the correction indexed")
    assert [(i["ror"], i["name_zh"], i["evidence"]) for i in shown] == [("03vs3wt56", "百度", "correction")]
    page = html.fromstring(httpx.get(f"{url}/papers/{PAPER}", timeout=10).text)
    assert "Baidu（百度）" in " ".join(page.find_class("insts")[0].text_content().split())
    found = httpx.get(f"{url}/api/papers", params={"institution": "03vs3wt56"}, timeout=10).json()
    assert [h["paper_id"] for h in found["hits"]] == [PAPER]
    listed = papertrail_cli(env, "corrections", "list", "--status", "applied").stdout
    assert report in listed and "applied: author 8 (Zhongli Li): Baidu (China) (03vs3wt56)" in listed
    again = papertrail_cli(env, "corrections", "apply", report, *APPLY, check=False)
    assert again.returncode == 2 and "is applied" in again.stdout  # once only

    next_harvest = with_anthology_doi(RECORD)
    asyncio.run(publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), [next_harvest]))
    wait_until(lambda: paper(url)["ids"].get("dois"), timeout=90, what="the next harvest merged")
    assert [(i["ror"], i["evidence"]) for i in corrected_authors_institutions(url)] == [("03vs3wt56", "correction")]
    history = paper(url)["history"]
    assert [(h["seq"], h["kind"]) for h in history] == [
        (1, "first_observed"), (2, "metadata_correction"), (3, "metadata_correction")]  # fmt: skip
