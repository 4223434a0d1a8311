"""daily-arXiv-ai-enhanced's day files over the replay server (their raw.githubusercontent.com paths, recorded files):
one record per line, a day without a file noted, each day skipped when unchanged (ETag), a manual window re-read,
the gzipped corpus day read through its Content-Encoding; one request at a time."""

import datetime as dt
import gzip
import json
from typing import Any

import httpx
import pytest

from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed
from services.harvester.sources.daily_arxiv import DailyArxivSource
from services.harvester.sources.daily_arxiv_file import MalformedDayFile, split_day_file
from tests.support.paths import FIXTURES
from tests.support.replay import Replay

DAY_FILE = FIXTURES / "summarizer" / "corpus-2026-05-05.jsonl"  # six lines of 2026-05-05's file (ORIGIN.md)
CORPUS_DAY = FIXTURES / "corpus" / "arxiv-daily-2026-05" / "2026-05-08_AI_enhanced_Chinese.jsonl.gz"
REPOSITORY = "/dw-dengwei/daily-arXiv-ai-enhanced/data"


def _ids(text: str) -> list[str]:
    return [json.loads(line)["id"] for line in text.splitlines() if line.strip()]


def test_every_line_becomes_one_record_as_written() -> None:
    text = DAY_FILE.read_text(encoding="utf-8")
    records, notes = split_day_file(text.encode(), "2026-05-05")
    assert notes == [] and [r.record_id for r in records] == _ids(text)
    assert [r.content for r in records] == [line for line in text.splitlines() if line.strip()]
    assert {(r.format, r.datestamp) for r in records} == {("daily_arxiv_json", "2026-05-05")}


def test_a_broken_line_is_noted_and_the_rest_read() -> None:
    lines = DAY_FILE.read_text(encoding="utf-8").splitlines()
    records, notes = split_day_file("\n".join([lines[0], lines[1][:50], *lines[2:]]).encode(), "2026-05-05")
    assert [r.record_id for r in records] == [_ids(line)[0] for n, line in enumerate(lines) if n != 1]
    assert len(notes) == 1 and notes[0].startswith("2026-05-05 line 2: not JSON")
    with pytest.raises(MalformedDayFile):
        split_day_file(b"<html>404: Not Found</html>", "2026-05-05")
    with pytest.raises(MalformedDayFile):
        split_day_file(gzip.compress(b"{}"), "2026-05-05")


def _source(replay: Replay, today: dt.date = dt.date(2026, 5, 6)) -> DailyArxivSource:
    settings = HarvesterSettings(
        daily_arxiv_url=f"{replay.url}{REPOSITORY}", daily_arxiv_days=1, daily_arxiv_min_request_interval_s=0
    )
    client = httpx.AsyncClient(timeout=10)
    fetcher = PoliteFetcher(client, min_interval_s=0, retries=0, retry_after_max_s=1)
    return DailyArxivSource(settings, fetcher, today=lambda: today)


async def _pages(source: DailyArxivSource, checkpoint: dict[str, Any], **window: str) -> list[SourcePage]:
    return [page async for page in source.pages(checkpoint, **window)]


async def test_a_window_of_days_is_read_day_by_day_and_an_unchanged_day_skipped(replay: Replay) -> None:
    source = _source(replay)
    pages = await _pages(source, {}, from_date="2026-05-05", until_date="2026-05-06")
    assert [r.record_id for p in pages for r in p.records] == _ids(DAY_FILE.read_text(encoding="utf-8"))
    assert pages[-1].notes == ["2026-05-06: no file (yet)"]  # the replay server has no file of that day: a 404
    asked = [r["path"] for r in replay.requests()]
    assert asked == [f"{REPOSITORY}/data/2026-05-05_AI_enhanced_Chinese.jsonl",
                     f"{REPOSITORY}/data/2026-05-06_AI_enhanced_Chinese.jsonl"]  # fmt: skip
    checkpoint = pages[-1].checkpoint
    assert set(checkpoint["days"]) == {"2026-05-05"} and checkpoint["days"]["2026-05-05"]["etag"]

    # the scheduled run of 2026-05-06 (today and DAILY_ARXIV_DAYS=1 before) asks with the ETag it kept
    again = await _pages(source, checkpoint)
    assert sum(len(p.records) for p in again) == 0 and "2026-05-05: unchanged (ETag)" in again[0].notes
    assert [r["status"] for r in replay.requests()[2:]] == [304, 404]


async def test_a_manual_window_reads_a_day_again_and_a_failed_request_fails_the_run(replay: Replay) -> None:
    source = _source(replay)
    first = await _pages(source, {}, from_date="2026-05-05", until_date="2026-05-05")
    again = await _pages(source, first[-1].checkpoint, from_date="2026-05-05", until_date="2026-05-05")
    assert sum(len(p.records) for p in again) == sum(len(p.records) for p in first) == 6
    replay.fault(path=f"{REPOSITORY}/data/2026-05-05_AI_enhanced_Chinese.jsonl", status=403)
    with pytest.raises(Exception, match="HTTP 403"):
        await _pages(source, {}, from_date="2026-05-05", until_date="2026-05-05")
    replay.fault(path=f"{REPOSITORY}/data/2026-05-05_AI_enhanced_Chinese.jsonl", body="<html>moved</html>")
    with pytest.raises(SourceRunFailed, match="daily-arXiv-ai-enhanced 2026-05-05"):
        await _pages(source, {}, from_date="2026-05-05", until_date="2026-05-05")


async def test_the_corpus_day_is_served_gzipped_and_read_as_its_text(replay: Replay) -> None:
    pages = await _pages(_source(replay), {}, from_date="2026-05-08", until_date="2026-05-08")
    text = gzip.decompress(CORPUS_DAY.read_bytes()).decode("utf-8")
    assert [r.record_id for p in pages for r in p.records] == _ids(text)
    assert pages[0].complete_list_size == len(_ids(text))
