"""The first-page stage: every arXiv paper the harvester publishes queues its HTML page; the arxiv_html source reads
the queue newest first over HTTP (the replay server serving genuine page excerpts, tests/fixtures/first_page), capped,
publishing each author block and settling each paper with its outcome, counted; a run that cannot reach arXiv
leaves the rest queued."""

import datetime as dt
from collections.abc import AsyncIterator

import httpx
import pytest
from prometheus_client import REGISTRY
from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import RawRecord
from services.harvester.first_pages import FirstPageQueue, QueueingPublishing
from services.harvester.http import PoliteFetcher
from services.harvester.runner import run_source
from services.harvester.scheduler import build_sources
from services.harvester.settings import HarvesterSettings
from services.harvester.sources.arxiv_html import ArxivHtmlSource
from services.harvester.store import HarvestStore
from services.normalizer.parsers.registry import parse_raw
from tests.support.fakes import Published
from tests.support.paths import FIXTURES
from tests.support.replay import Replay
from tests.support.sources import raw_record

pytestmark = pytest.mark.integration
NOW = dt.datetime(2026, 12, 7, tzinfo=dt.UTC)


@pytest.fixture
async def queue(scratch_db: AsyncDatabase) -> FirstPageQueue:
    queue = FirstPageQueue(scratch_db)
    await queue.ensure_indexes()
    return queue


def _html_settings(replay: Replay, max_bytes: int = 8 * 1024 * 1024) -> HarvesterSettings:
    return HarvesterSettings(
        arxiv_html_url=f"{replay.url}/html",
        arxiv_pdf_url=f"{replay.url}/pdf",
        arxiv_html_max_bytes=max_bytes,
        arxiv_min_request_interval_s=0,
        http_retries=1,
    )


def _outcome(outcome: str) -> float:
    return REGISTRY.get_sample_value("papertrail_harvester_first_pages_total", {"outcome": outcome}) or 0.0


def _raw(source: str, record_id: str) -> tuple[RawRecord, str]:
    return raw_record(source, record_id, "arXivRaw", "<record/>"), f"{source}:{record_id}"


async def test_published_arxiv_papers_are_queued_once_newest_first(queue: FirstPageQueue) -> None:
    published = Published()
    out = QueueingPublishing(published, queue, clock=lambda: NOW)
    await out.publish_raw(
        [_raw("arxiv", "2312.17141"), _raw("daily_arxiv", "2609.03768"), _raw("arxiv", "1501.00001"), _raw("hf", "x")]
    )
    assert len(published.raw) == 4  # published first, as they came
    await out.publish_raw([_raw("arxiv", "2312.17141")])
    # an id older than arXiv's HTML renderings is not queued, nor a record that is no arXiv paper's
    assert await queue.pending(10) == ["2609.03768", "2312.17141"]
    assert await queue.pending(1) == ["2609.03768"]


async def test_the_back_catalogue_is_queued_from_the_papers_held(
    scratch_db: AsyncDatabase, queue: FirstPageQueue
) -> None:
    held = [{"_id": f"arxiv:{i}", "ids": {"arxiv": i}} for i in ("2312.17141", "2609.03768", "2304.02623")]
    await scratch_db["papers"].insert_many([*held, {"_id": "acl:2024.acl-long.1", "ids": {"acl": "2024.acl-long.1"}}])
    await queue.enqueue(["2609.03768"], NOW)
    await queue.settle("2609.03768", "read", NOW)
    assert await queue.enqueue_held(NOW, chunk=1) == 2  # 2304.02623: before arXiv's HTML
    # a page read before stays read; the rest wait, newest first
    assert await queue.pending(10) == ["2312.17141"]


async def test_the_source_reads_each_queued_page_once(
    replay: Replay, queue: FirstPageQueue, store: HarvestStore, http: httpx.AsyncClient, published: Published
) -> None:
    await queue.enqueue(["2312.17141", "2609.03768", "2601.00001"], NOW)
    source, _ = build_sources(["arxiv_html"], _html_settings(replay), http, queue)["arxiv_html"]
    before = {outcome: _outcome(outcome) for outcome in ("read", "no_pdf")}
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "finished"
    assert [r.record_id for r in published.raw] == ["2609.03768", "2312.17141"]
    assert {(r.source, r.format) for r in published.raw} == {("arxiv_html", "arxiv_html_authors")}
    paths = ["/html/2609.03768", "/html/2601.00001", "/pdf/2601.00001", "/html/2312.17141"]
    assert [r["path"] for r in replay.requests()] == paths  # no HTML, then no PDF either
    assert (_outcome("read"), _outcome("no_pdf")) == (before["read"] + 2, before["no_pdf"] + 1)
    # what it published is what the normalizer reads: the block's authors with their affiliations
    stein, staton = parse_raw(published.raw[1]).page_authors or []
    assert stein.affiliations[0].startswith("Radboud University Nijmegen")
    assert staton.emails == ("sam.staton@cs.ox.ac.uk",)

    again = await run_source(source, store, published.publish_raw, published.publish_status)
    assert again.state == "finished" and again.records == 0 and await queue.pending(10) == []


async def test_a_paper_without_html_has_its_pdfs_first_page_read(
    replay: Replay, queue: FirstPageQueue, http: httpx.AsyncClient
) -> None:
    # (the queue takes ids from 2312 on, whose HTML arXiv renders; this genuine PDF is of an older paper)
    source, _ = build_sources(["arxiv_html"], _html_settings(replay), http, queue)["arxiv_html"]
    assert isinstance(source, ArxivHtmlSource)
    outcome, (record,) = await source.read("2304.02623")
    assert outcome == "read_pdf" and (record.record_id, record.format) == ("2304.02623", "arxiv_pdf_first_page")
    assert [r["path"] for r in replay.requests()] == ["/html/2304.02623", "/pdf/2304.02623"]
    authors = parse_raw(raw_record("arxiv_html", record.record_id, record.format, record.content)).page_authors or []
    assert [a.name for a in authors][:2] == ["Zejiang Shen", "Tal August"]
    assert authors[0].affiliations == ("Massachusetts Institute of Technology",)


async def test_a_page_over_the_cap_is_not_read(
    replay: Replay, queue: FirstPageQueue, store: HarvestStore, http: httpx.AsyncClient, published: Published
) -> None:
    await queue.enqueue(["2507.00150"], NOW)
    settings = _html_settings(replay, max_bytes=1024)
    source, _ = build_sources(["arxiv_html"], settings, http, queue)["arxiv_html"]
    before = _outcome("too_large")
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "finished" and published.raw == [] and _outcome("too_large") == before + 1
    assert await queue.pending(10) == []


async def test_a_streamed_body_is_not_read_past_the_cap(queue: FirstPageQueue) -> None:
    sent: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(64):  # 64 × 64 kB, sent without a Content-Length
            sent.append(1)
            yield b" " * 65536

    client = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(200, content=chunks())))
    fetcher = PoliteFetcher(client, min_interval_s=0, retries=0, retry_after_max_s=1)
    source = ArxivHtmlSource(HarvesterSettings(arxiv_html_max_bytes=200_000), fetcher, queue)
    assert await source.read("2507.00150") == ("too_large", [])
    assert len(sent) < 64


async def test_a_page_that_is_no_arxiv_rendering_is_settled_with_its_reason(queue: FirstPageQueue) -> None:
    page = (FIXTURES / "first_page" / "feedgen-1.0.0-docs-index.html").read_bytes()
    client = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(200, content=page)))
    fetcher = PoliteFetcher(client, min_interval_s=0, retries=0, retry_after_max_s=1)
    source = ArxivHtmlSource(HarvesterSettings(), fetcher, queue)
    assert await source.read("2609.00001") == ("not_arxiv_html", [])


async def test_a_run_that_cannot_reach_arxiv_leaves_the_rest_queued(
    replay: Replay, queue: FirstPageQueue, store: HarvestStore, http: httpx.AsyncClient, published: Published
) -> None:
    await queue.enqueue(["2312.17141", "2609.03768"], NOW)
    replay.fault(path="/html/2609.03768", status=500, times=5)
    source, _ = build_sources(["arxiv_html"], _html_settings(replay), http, queue)["arxiv_html"]
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "failed" and published.raw == []
    assert await queue.pending(10) == ["2609.03768", "2312.17141"]


def test_the_source_needs_the_queue() -> None:
    with pytest.raises(ValueError, match="queue of first pages"):
        build_sources(["arxiv_html"], HarvesterSettings(), httpx.AsyncClient())
