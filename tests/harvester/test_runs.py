"""Harvest runs over HTTP against the replay server, with checkpoints and run records in a real MongoDB."""

import re

import httpx
import pytest

from services.harvester.http import PoliteFetcher
from services.harvester.runner import run_source
from services.harvester.settings import HarvesterSettings
from services.harvester.sources.acl import AclAnthologySource
from services.harvester.sources.arxiv import ArxivOaiSource
from services.harvester.sources.hf import HfDailyPapersSource
from services.harvester.store import HarvestStore
from tests.support.fakes import Published
from tests.support.harvests import CHAIN_IDS
from tests.support.paths import SOURCES
from tests.support.replay import Replay

pytestmark = pytest.mark.integration


def _fetcher(client: httpx.AsyncClient, settings: HarvesterSettings) -> PoliteFetcher:
    return PoliteFetcher(client, min_interval_s=0, retries=settings.http_retries, retry_after_max_s=60)


async def _arxiv_run(settings: HarvesterSettings, store: HarvestStore, published: Published, **kwargs: object):
    async with httpx.AsyncClient(timeout=10) as client:
        source = ArxivOaiSource(settings, _fetcher(client, settings))
        return await run_source(source, store, published.publish_raw, published.publish_status, **kwargs)  # type: ignore[arg-type]


def _oai_requests(replay: Replay) -> list[dict]:
    return [r for r in replay.requests() if r["path"] == "/oai"]


async def test_resumption_chain_is_followed_to_its_end(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    status = await _arxiv_run(settings, store, published)
    assert status.state == "finished", status.error
    assert published.ids == CHAIN_IDS and len(CHAIN_IDS) == 6
    assert (status.pages, status.records) == (3, 6)
    queries = [r["query"] for r in _oai_requests(replay)]
    assert queries[0] == {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "set": "cs", "from": "2014-10-01"}
    # the token is sent alone with the verb
    assert queries[1:] == [
        {"verb": "ListRecords", "resumptionToken": "726959|1001"},
        {"verb": "ListRecords", "resumptionToken": "726959|2001"},
    ]
    checkpoint = await store.load_checkpoint("arxiv")
    # next window: the day the repository answered, minus one day of overlap
    assert checkpoint == {"sets": {"cs": {"from": "2015-01-05", "resumption_token": None}}}
    run = await store.runs.find_one({"_id": status.run_id})
    assert run is not None and run["state"] == "finished" and run["records"] == 6


async def test_503_with_retry_after_waits_the_time_it_says(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    replay.fault(path="/oai", status=503, retry_after="2", query={"resumptionToken": "726959|1001"})
    status = await _arxiv_run(settings, store, published)
    assert status.state == "finished", status.error
    assert published.ids == CHAIN_IDS
    refused, retried = [r for r in _oai_requests(replay) if r["query"].get("resumptionToken") == "726959|1001"]
    assert refused["status"] == 503 and retried["status"] == 200
    assert retried["at"] - refused["at"] >= 2.0  # measured on the server's clock


async def test_500s_are_retried_then_the_run_goes_on(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    replay.fault(path="/oai", status=500, times=2)
    status = await _arxiv_run(settings, store, published)
    assert status.state == "finished", status.error
    assert published.ids == CHAIN_IDS
    assert [r["status"] for r in _oai_requests(replay)][:3] == [500, 500, 200]


async def test_5xx_beyond_the_retries_fails_the_run_with_its_status_recorded(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    settings.http_retries = 1
    replay.fault(path="/oai", status=502, times=2)
    status = await _arxiv_run(settings, store, published)
    assert status.state == "failed" and "502" in (status.error or "")
    assert published.raw == []
    assert [s.state for s in published.statuses] == ["started", "failed"]
    run = await store.runs.find_one({"_id": status.run_id})
    assert run is not None and run["state"] == "failed" and "502" in run["error"]
    assert await store.load_checkpoint("arxiv") == {}


async def test_bad_resumption_token_restarts_the_window(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    replay.fault(path="/oai", bad_token=True)
    status = await _arxiv_run(settings, store, published)
    assert status.state == "finished", status.error
    queries = [r["query"] for r in _oai_requests(replay)]
    window = {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "set": "cs", "from": "2014-10-01"}
    assert queries[0] == window and queries[2] == window  # after the bad token, the window again
    assert set(published.ids) == set(CHAIN_IDS)  # nothing lost; page 1 is published twice (harmless)
    assert published.ids[-4:] == CHAIN_IDS[-4:]


@pytest.mark.parametrize(
    "fault",
    [
        {"body": "<html><body>Service temporarily unavailable</body></html>", "content_type": "text/html"},
        {"body": '{"error": "gateway"}', "content_type": "application/json"},
        {"truncate": 700},
    ],
    ids=["html", "json", "truncated"],
)
async def test_a_body_that_is_not_oai_xml_fails_the_run_and_keeps_the_checkpoint(
    fault: dict, settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    replay.fault(path="/oai", query={"resumptionToken": "726959|1001"}, **fault)
    status = await _arxiv_run(settings, store, published)
    assert status.state == "failed"
    assert "SourceRunFailed" in (status.error or "")
    assert published.ids == CHAIN_IDS[:2]  # page 1 only
    # the checkpoint is where page 1 left it: the next run asks for page 2 again
    assert await store.load_checkpoint("arxiv") == {
        "sets": {"cs": {"from": "2014-10-01", "resumption_token": "726959|1001"}}
    }
    run = await store.runs.find_one({"_id": status.run_id})
    assert run is not None and run["state"] == "failed" and run["error"] == status.error

    again = Published()
    status = await _arxiv_run(settings, store, again)
    assert status.state == "finished" and again.ids == CHAIN_IDS[2:]


async def test_no_records_match_is_a_successful_empty_run(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    settings.arxiv_sets = ["math"]
    status = await _arxiv_run(settings, store, published)
    assert status.state == "finished" and status.records == 0 and published.raw == []
    assert (await store.load_checkpoint("arxiv"))["sets"]["math"]["resumption_token"] is None


async def test_other_oai_errors_fail_the_run(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    bad_argument = (SOURCES / "arxiv_oai/errors/mikesaelim_ErrorResponseBadArgument.xml").read_text()
    replay.fault(path="/oai", body=bad_argument, content_type="text/xml")
    status = await _arxiv_run(settings, store, published)
    assert status.state == "failed" and "badArgument" in (status.error or "")


async def test_a_slow_answer_beyond_the_timeout_is_retried(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    replay.fault(path="/oai", delay_s=3)
    async with httpx.AsyncClient(timeout=1) as client:
        source = ArxivOaiSource(settings, _fetcher(client, settings))
        status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "finished", status.error
    assert published.ids == CHAIN_IDS
    first, second = _oai_requests(replay)[:2]
    assert first["query"] == second["query"]  # the timed-out request was asked again


async def test_acl_collection_file_once_then_skipped_while_unchanged(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    text = (SOURCES / "acl/2024.acl.xml").read_text(encoding="utf-8")
    expected = text.count("<paper ") + text.count("<frontmatter>")
    async with httpx.AsyncClient(timeout=10) as client:
        source = AclAnthologySource(settings, _fetcher(client, settings))
        status = await run_source(source, store, published.publish_raw, published.publish_status)
        assert status.state == "finished", status.error
        assert status.records == len(published.raw) == expected == 938
        assert len(set(published.ids)) == expected
        assert all(re.fullmatch(r"2024\.acl-(long|short|demos|srw|tutorials)\.\d+", i) for i in published.ids)

        again = await run_source(source, store, published.publish_raw, published.publish_status)
    assert again.state == "finished" and again.records == 0
    acl_requests = [r for r in replay.requests() if r["path"] == "/data/xml/2024.acl.xml"]
    assert [r["status"] for r in acl_requests] == [200, 304]  # the second run sent If-None-Match
    checkpoint = await store.load_checkpoint("acl")
    assert len(checkpoint["files"]["2024.acl"]["sha256"]) == 64


@pytest.mark.parametrize("date", ["2024-05-29", "2025-09-16"])
async def test_hf_daily_list_of_either_year(
    date: str, settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    import json

    items = json.loads((SOURCES / f"hf_daily_papers/daily_papers_{date}.json").read_text(encoding="utf-8"))
    async with httpx.AsyncClient(timeout=10) as client:
        source = HfDailyPapersSource(settings, _fetcher(client, settings))
        status = await run_source(
            source, store, published.publish_raw, published.publish_status, from_date=date, until_date=date
        )
    assert status.state == "finished", status.error
    assert published.ids == [item["paper"]["id"] for item in items]
    assert {r.datestamp for r in published.raw} == {date}
    assert [r["query"] for r in replay.requests()] == [{"date": date}]


async def test_hf_body_that_is_not_json_fails_the_run(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    replay.fault(path="/api/daily_papers", body="<html>Bad gateway</html>", content_type="text/html")
    async with httpx.AsyncClient(timeout=10) as client:
        source = HfDailyPapersSource(settings, _fetcher(client, settings))
        status = await run_source(
            source,
            store,
            published.publish_raw,
            published.publish_status,
            from_date="2024-05-29",
            until_date="2024-05-29",
        )
    assert status.state == "failed" and "not JSON" in (status.error or "")
    assert published.raw == []
