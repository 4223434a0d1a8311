"""Citation counts from Semantic Scholar: the citation queue takes in the papers stored and the ones followed, the
source asks the API's batch endpoint over HTTP (the replay server answering a genuine paper object,
tests/fixtures/harvester/semantic_scholar), publishes each count the normalizer reads, and settles each paper with
its next turn; a 429 or an unreadable answer fails the run with its reason, slows the source down and leaves every
paper due."""

import datetime as dt
import json

import httpx
import pytest
from pymongo.asynchronous.database import AsyncDatabase

from services.harvester.citation_queue import CitationQueue
from services.harvester.runner import run_source
from services.harvester.scheduler import build_sources
from services.harvester.settings import HarvesterSettings
from services.harvester.sources.semantic_scholar import SemanticScholarSource
from services.harvester.store import HarvestStore
from services.normalizer.parsers.registry import parse_raw
from tests.support.fakes import Published
from tests.support.replay import Replay

pytestmark = pytest.mark.integration
NOW = dt.datetime(2026, 12, 7, 12, tzinfo=dt.UTC)
TURING_DOI = "10.1093/mind/lix.236.433"  # the recorded paper object's DOI, lower-cased as papers keep DOIs


@pytest.fixture
async def queue(scratch_db: AsyncDatabase) -> CitationQueue:
    queue = CitationQueue(scratch_db, chunk=2)
    await queue.ensure_indexes()
    return queue


def _paper(paper_id: str, ids: dict[str, object], published: dt.datetime, updated: dt.datetime) -> dict[str, object]:
    return {"_id": paper_id, "ids": ids, "published_at": published, "updated_at": updated}


def _source(replay: Replay, http: httpx.AsyncClient, queue: CitationQueue) -> SemanticScholarSource:
    settings = HarvesterSettings(
        sources=["semantic_scholar"], s2_api_url=f"{replay.url}/graph/v1", s2_min_request_interval_s=0, http_retries=0
    )
    source, _ = build_sources(["semantic_scholar"], settings, http, citations=queue)["semantic_scholar"]
    assert isinstance(source, SemanticScholarSource)
    source.clock = lambda: NOW
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    source.sleep = sleep
    return source


async def test_papers_are_taken_in_once_and_followed_ones_come_first(
    scratch_db: AsyncDatabase, queue: CitationQueue
) -> None:
    day = dt.timedelta(days=1)
    await scratch_db["papers"].insert_many(
        [
            _paper("arxiv:2612.00001", {"arxiv": "2612.00001", "dois": []}, NOW - day, NOW - day),
            _paper(
                "acl:2024.acl-long.1",
                {"acl": "2024.acl-long.1", "dois": ["10.18653/x"]},
                NOW - 400 * day,
                NOW - 2 * day,
            ),
            _paper(
                "dblp:conf/x/y", {"dblp": "conf/x/y", "dois": []}, NOW - 400 * day, NOW - 2 * day
            ),  # nothing to ask by
        ]
    )
    await scratch_db["matches"].insert_one({"paper_id": "acl:2024.acl-long.1", "matched_at": NOW - day})
    marks = await queue.take_in(None, None, NOW)
    assert marks == (NOW - day, NOW - day)
    due = await queue.due(NOW, 10)
    assert {(d.paper_id, d.asked) for d in due} == {
        ("arxiv:2612.00001", "ARXIV:2612.00001"),
        ("acl:2024.acl-long.1", "ACL:2024.acl-long.1"),
    }
    # counted now: the new paper and the followed old one are due again tomorrow; an old one not followed in a month
    await queue.settle({"arxiv:2612.00001": "counted", "acl:2024.acl-long.1": "counted"}, NOW)
    assert await queue.due(NOW + day, 10) != []
    assert await queue.due(NOW + day - dt.timedelta(seconds=1), 10) == []
    # taking in again from the marks changes nobody's turn
    assert await queue.take_in(*marks, NOW + day) == marks
    assert len(await queue.due(NOW + day, 10)) == 2


async def test_a_batch_is_asked_and_each_count_published(
    scratch_db: AsyncDatabase, queue: CitationQueue, replay: Replay, http: httpx.AsyncClient, store: HarvestStore
) -> None:
    await scratch_db["papers"].insert_one(
        _paper("doi:turing", {"dois": [TURING_DOI]}, dt.datetime(1950, 10, 1, tzinfo=dt.UTC), NOW)
    )
    published = Published()
    source = _source(replay, http, queue)
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "finished" and status.records == 1
    (request,) = replay.requests()
    assert request["path"] == "/graph/v1/paper/batch"
    assert json.loads(request["body"]) == {"ids": [f"DOI:{TURING_DOI}"]}
    (raw,) = published.raw
    assert (raw.source, raw.record_id, raw.format) == ("semantic_scholar", f"DOI:{TURING_DOI}", "s2_paper_json")
    citations = parse_raw(raw).citations
    assert citations is not None and (citations.count, citations.source) == (10059, "semantic_scholar")
    assert await queue.due(NOW, 10) == []  # settled: an old paper is asked again in a month

    again = await run_source(source, store, published.publish_raw, published.publish_status)
    assert again.state == "finished" and again.records == 0 and len(replay.requests()) == 1


@pytest.fixture
async def turing_due(scratch_db: AsyncDatabase) -> None:
    """The recorded paper, stored today: due at once, then daily."""
    await scratch_db["papers"].insert_one(_paper("doi:turing", {"dois": [TURING_DOI]}, NOW, NOW))


@pytest.mark.usefixtures("turing_due")
async def test_a_429_fails_the_run_slows_the_source_and_keeps_every_paper_due(
    queue: CitationQueue, replay: Replay, http: httpx.AsyncClient, store: HarvestStore, published: Published
) -> None:
    source = _source(replay, http, queue)
    replay.fault(path="/graph/v1/paper/batch", status=429, retry_after="0")
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "failed" and status.error is not None
    assert "HTTP 429" in status.error and "1 papers stay due" in status.error
    assert published.raw == [] and source.pace.pause_s > 0
    assert [d.paper_id for d in await queue.due(NOW, 10)] == ["doi:turing"]

    # the next run waits before its batch, then is answered, and the pause eases
    paused = source.pace.pause_s
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "finished" and status.records == 1 and source.pace.pause_s < paused


@pytest.mark.usefixtures("turing_due")
async def test_an_unreadable_answer_fails_the_run_naming_it_and_loses_nothing(
    queue: CitationQueue, replay: Replay, http: httpx.AsyncClient, store: HarvestStore, published: Published
) -> None:
    source = _source(replay, http, queue)
    replay.fault(path="/graph/v1/paper/batch", truncate=40)
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "failed" and status.error is not None
    assert "unreadably: not JSON" in status.error
    assert published.raw == [] and [d.paper_id for d in await queue.due(NOW, 10)] == ["doi:turing"]
