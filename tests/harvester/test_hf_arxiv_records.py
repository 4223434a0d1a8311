"""The arXiv record of each Hugging Face pick, fetched by OAI-PMH GetRecord from the replay server at arXiv's pace
and published as arXiv's own record; which picks still want theirs lives in the source's checkpoint."""

import asyncio
import json
from typing import Any

import httpx
import pytest

from services.harvester.runner import run_source
from services.harvester.scheduler import build_sources
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage
from services.harvester.sources.arxiv import ArxivOaiSource
from services.harvester.store import HarvestStore
from tests.support.fakes import Published
from tests.support.harvests import RECORDED, get_record_requests, note_grants, pace_gaps
from tests.support.paths import FIXTURES, SOURCES
from tests.support.replay import Replay

pytestmark = pytest.mark.integration

# a real pick naming the id of the recorded arXivRaw GetRecord response (origin: tests/fixtures/harvester/README.md)
DAY = "2013-04-03"
PICK_ID = json.loads((FIXTURES / f"harvester/hf_pick/daily_papers_{DAY}.json").read_text(encoding="utf-8"))[0]["paper"][
    "id"
]
REAL_DAY = "2024-05-29"  # a recorded list whose picks arXiv's replay does not know (idDoesNotExist)


async def _pages(settings: HarvesterSettings, checkpoint: dict[str, Any], day: str) -> list[SourcePage]:
    async with httpx.AsyncClient(timeout=10) as client:
        source, _ = build_sources(["hf"], settings, client)["hf"]
        return [page async for page in source.pages(checkpoint, from_date=day, until_date=day)]


async def test_the_arxiv_record_of_a_pick_is_fetched_and_published_as_arxivs(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        source, _ = build_sources(["hf"], settings, client)["hf"]
        status = await run_source(
            source, store, published.publish_raw, published.publish_status, from_date=DAY, until_date=DAY
        )
    assert status.state == "finished", status.error
    assert [(r.source, r.record_id, r.format) for r in published.raw] == [
        ("hf", PICK_ID, "hf_daily_json"),
        ("arxiv", PICK_ID, "arXivRaw"),
    ]
    arxiv = published.raw[1]
    assert arxiv.content == RECORDED.content and arxiv.sha256 == RECORDED.sha256  # the record as arXiv serves it
    assert arxiv.datestamp == RECORDED.datestamp and arxiv.run_id == status.run_id
    assert (status.pages, status.records) == (2, 2)
    assert [r["query"] for r in get_record_requests(replay)] == [
        {"verb": "GetRecord", "metadataPrefix": "arXivRaw", "identifier": f"oai:arXiv.org:{PICK_ID}"}
    ]


async def test_a_pick_fetched_before_is_not_fetched_again(settings: HarvesterSettings, replay: Replay) -> None:
    first = await _pages(settings, {}, DAY)
    assert first[-1].checkpoint["arxiv"] == {"wanted": {}, "fetched": {PICK_ID: DAY}}
    replay.reset()
    again = await _pages(settings, first[-1].checkpoint, DAY)
    assert [r.record_id for page in again for r in page.records] == [PICK_ID]  # the pick, not its arXiv record
    assert get_record_requests(replay) == []


async def test_a_pick_arxiv_does_not_know_is_noted_and_not_asked_again(
    settings: HarvesterSettings, replay: Replay
) -> None:
    listed = json.loads((SOURCES / f"hf_daily_papers/daily_papers_{REAL_DAY}.json").read_text(encoding="utf-8"))
    picks = [item["paper"]["id"] for item in listed]
    pages = await _pages(settings, {}, REAL_DAY)
    assert [r.source for page in pages for r in page.records] == [None] * len(picks)  # the picks only
    notes = [note for page in pages for note in page.notes]
    assert notes == [f"{pick}: arXiv has no record of this pick" for pick in picks]
    assert pages[-1].checkpoint["arxiv"] == {"wanted": {}, "fetched": dict.fromkeys(picks, REAL_DAY)}
    assert len(get_record_requests(replay)) == len(picks)


async def test_when_arxiv_fails_the_run_fails_and_the_next_one_fetches_the_pick(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    settings.http_retries = 1
    replay.fault(path="/oai", query={"verb": "GetRecord"}, status=503, retry_after="0", times=2)
    async with httpx.AsyncClient(timeout=10) as client:
        source, _ = build_sources(["hf"], settings, client)["hf"]
        pages: list[SourcePage] = []
        status = await run_source(
            source, store, published.publish_raw, published.publish_status,
            from_date=DAY, until_date=DAY, on_page=pages.append,
        )  # fmt: skip
    assert status.state == "failed" and "503" in (status.error or "")
    assert [r.source for r in published.raw] == ["hf"]  # the pick went out; its arXiv record is still wanted
    assert pages[-1].checkpoint["arxiv"] == {"wanted": {PICK_ID: DAY}, "fetched": {}}
    later = await _pages(settings, pages[-1].checkpoint, DAY)
    assert [(r.source, r.record_id) for page in later for r in page.records] == [(None, PICK_ID), ("arxiv", PICK_ID)]


async def test_getrecord_and_listrecords_share_arxivs_pace(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    settings.arxiv_min_request_interval_s = 1.0
    async with httpx.AsyncClient(timeout=10) as client:
        sources = build_sources(["arxiv", "hf"], settings, client)
        arxiv_source = sources["arxiv"][0]
        assert isinstance(arxiv_source, ArxivOaiSource)
        granted = note_grants(arxiv_source.fetcher)
        runs = [
            run_source(sources["arxiv"][0], store, published.publish_raw, published.publish_status),
            run_source(
                sources["hf"][0], store, published.publish_raw, published.publish_status, from_date=DAY, until_date=DAY
            ),
        ]
        statuses = await asyncio.gather(*runs)
    assert [s.state for s in statuses] == ["finished", "finished"], [s.error for s in statuses]
    arxiv = [r for r in replay.requests() if r["path"] == "/oai"]
    assert {r["query"]["verb"] for r in arxiv} == {"ListRecords", "GetRecord"} and len(arxiv) == 4
    assert len(granted.moments) == 4  # the hf source's GetRecords went through the arXiv source's limiter
    gaps = pace_gaps(granted.moments)
    assert min(gaps) >= 0.999, gaps  # one request a second across both sources (arXiv asks one per 3 s)
