"""The recorded OpenReview API v2 answer (one accepted note of the NeurIPS 2025 RegML workshop) split into raw records,
and the OpenReview source's pages over HTTP (httpx's MockTransport serving the answer): paging by limit and offset,
checkpoints by sha256, a body that is not the notes API's refused with the venue and offset named."""

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed
from services.harvester.sources.openreview import OpenReviewSource
from services.harvester.sources.openreview_notes import MalformedNotesPage, split_notes
from tests.support.paths import SOURCES
from tests.support.recording import recording_fetcher

ANSWER = (SOURCES / "openreview/pdoom-live_ai_risk_note.json").read_bytes()
VENUE = "NeurIPS.cc/2025/Workshop/RegML"


def _derived(change: Callable[[dict[str, Any]], None]) -> bytes:
    """The recorded answer with one change made to its parsed JSON."""
    answer = json.loads(ANSWER)
    change(answer)
    return json.dumps(answer).encode()


def test_the_recorded_note_becomes_one_record_as_the_api_wrote_it() -> None:
    [record], skipped, held = split_notes(ANSWER, VENUE)
    assert skipped == [] and held == 1
    assert record.record_id == "4aMedv0ONH" and record.format == "openreview_note"
    assert record.datestamp == "2025-09-23"  # pdate 1758606093305
    assert json.loads(record.content) == json.loads(ANSWER)["notes"][0]
    assert list(json.loads(record.content)) == list(json.loads(ANSWER)["notes"][0])  # key order kept


def test_notes_of_another_venue_id_and_notes_without_an_id_are_left_out_with_the_reason() -> None:
    records, skipped, held = split_notes(ANSWER, "ICLR.cc/2025/Conference")
    assert records == [] and held == 1
    assert skipped == [
        "ICLR.cc/2025/Conference 4aMedv0ONH: venueid 'NeurIPS.cc/2025/Workshop/RegML', not an accepted paper of "
        "the venue"
    ]
    without_id = _derived(lambda answer: answer["notes"][0].pop("id"))
    assert split_notes(without_id, VENUE) == ([], [f"{VENUE} note 0: no id"], 1)


@pytest.mark.parametrize("body", [b"", b"<html>Too Many Requests</html>", b"[]", b'{"notes": {}}', b"\xff\xfe"])
def test_a_body_that_is_not_a_notes_answer_is_refused(body: bytes) -> None:
    with pytest.raises(MalformedNotesPage):
        split_notes(body, VENUE)


def _source(
    handler: Callable[[httpx.Request], httpx.Response], limit: int = 1000
) -> tuple[OpenReviewSource, list[httpx.URL]]:
    settings = HarvesterSettings(
        openreview_api_url="http://openreview.test", openreview_venues=[VENUE], openreview_page_limit=limit
    )
    fetcher, seen = recording_fetcher(handler)
    return OpenReviewSource(settings, fetcher), seen


async def _pages(source: OpenReviewSource, checkpoint: dict[str, Any], **window: str) -> list[SourcePage]:
    return [page async for page in source.pages(checkpoint, **window)]


async def test_the_source_reads_each_venue_once_until_its_accepted_notes_change() -> None:
    source, seen = _source(lambda request: httpx.Response(200, content=ANSWER))
    pages = await _pages(source, {})
    [url] = seen  # one note where 1000 were asked for: the last page
    assert (url.host, url.path) == ("openreview.test", "/notes")
    assert dict(url.params) == {"content.venueid": VENUE, "limit": "1000", "offset": "0"}
    assert [r.record_id for p in pages for r in p.records] == ["4aMedv0ONH"]
    checkpoint = pages[-1].checkpoint
    assert set(checkpoint["venues"]) == {VENUE}

    again = await _pages(source, checkpoint)
    assert [len(p.records) for p in again] == [0] and again[0].notes == [f"{VENUE}: unchanged (sha256)"]
    backfill = await _pages(source, checkpoint, from_date="2025-01-01")
    assert [r.record_id for p in backfill for r in p.records] == ["4aMedv0ONH"]


async def test_a_full_page_asks_for_the_next_offset() -> None:
    empty = _derived(lambda answer: answer.update(notes=[]))
    source, seen = _source(
        lambda request: httpx.Response(200, content=ANSWER if request.url.params["offset"] == "0" else empty), limit=1
    )
    pages = await _pages(source, {})
    assert [u.params["offset"] for u in seen] == ["0", "1"]
    assert sum(len(p.records) for p in pages) == 1


async def test_a_note_left_out_is_named_in_the_runs_skipped() -> None:
    without_id = _derived(lambda answer: answer["notes"][0].pop("id"))
    source, _ = _source(lambda request: httpx.Response(200, content=without_id))
    [page] = await _pages(source, {})
    assert page.records == [] and page.skipped == [f"{VENUE} note 0: no id"]


async def test_a_body_that_is_not_json_fails_the_run_naming_the_venue_and_offset() -> None:
    source, _ = _source(lambda request: httpx.Response(200, content=b"<html>maintenance</html>"))
    with pytest.raises(SourceRunFailed, match=rf"OpenReview {VENUE} \(offset 0\): not JSON"):
        await _pages(source, {})


def test_a_setting_that_is_no_venue_id_stops_the_harvester_with_its_name() -> None:
    with pytest.raises(ValueError, match="openreview_venues"):
        HarvesterSettings(openreview_venues=["ICLR 2025"])
    assert HarvesterSettings(openreview_venues=["TMLR", VENUE]).openreview_venues == ["TMLR", VENUE]
