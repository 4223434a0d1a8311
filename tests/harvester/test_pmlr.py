"""The recorded ICML 2025 (PMLR v267) volume file split into one raw record per paper, and the PMLR source's pages
over HTTP (httpx's MockTransport serving the file): checkpoints by sha256, a broken entry published as written."""

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed
from services.harvester.sources.pmlr import PmlrSource
from services.harvester.sources.pmlr_bib import MalformedVolumeBib, split_volume
from tests.support.paths import SOURCES
from tests.support.recording import recording_fetcher

BIB = SOURCES / "pmlr/icml25-head.bib"
BROKEN_TITLE = "title = {Lightweight Protocols for Distributed Private Quantile Estimation}"


def _keys(text: str) -> list[str]:
    """Paper keys counted with a plain regex, not the parser under test."""
    return re.findall(r"^@InProceedings\{([^,]+),", text, re.M)


def _broken(text: str) -> str:
    """The file with one entry's title left without its closing brace."""
    assert BROKEN_TITLE in text
    return text.replace(BROKEN_TITLE, BROKEN_TITLE[:-1])


def test_every_paper_becomes_one_record_with_its_volume_entry() -> None:
    text = BIB.read_text(encoding="utf-8")
    records, notes = split_volume(text)
    assert notes == []
    assert [r.record_id for r in records] == [f"v267/{key}" for key in _keys(text)]
    assert len(records) == 21
    head = text.split("\n\n@InProceedings")[0].strip()
    for record in records:
        assert record.format == "pmlr_bibtex" and record.datestamp == "2025-10-06"
        assert record.content.startswith(head + "\n\n@InProceedings{")
        assert record.content.count("@InProceedings") == 1


def test_an_entry_with_broken_braces_is_published_as_written_and_the_rest_read() -> None:
    records, notes = split_volume(_broken(BIB.read_text(encoding="utf-8")))
    assert len(records) == 21  # nothing lost: the broken entry too
    broken = next(r for r in records if r.record_id == "v267/aamand25a")
    assert BROKEN_TITLE[:-1] in broken.content
    assert len(notes) == 1 and notes[0].startswith("v267/aamand25a (line ")
    assert records[-1].record_id == "v267/agarwal25c"


@pytest.mark.parametrize("body", ["", "@InProceedings{x, title = {T}}", "not bibtex at all {"])
def test_a_file_without_its_volume_entry_is_refused(body: str) -> None:
    with pytest.raises(MalformedVolumeBib):
        split_volume(body)


def _source(handler: Callable[[httpx.Request], httpx.Response]) -> tuple[PmlrSource, list[httpx.URL]]:
    settings = HarvesterSettings(pmlr_url="http://pmlr.test", pmlr_volumes=["v267/icml25.bib"])
    fetcher, seen = recording_fetcher(handler)
    return PmlrSource(settings, fetcher), seen


async def _pages(source: PmlrSource, checkpoint: dict[str, Any], **window: str) -> list[SourcePage]:
    return [page async for page in source.pages(checkpoint, **window)]


async def test_the_source_reads_each_volume_file_once_until_it_changes() -> None:
    body = BIB.read_bytes()
    source, seen = _source(lambda request: httpx.Response(200, content=body))
    pages = await _pages(source, {})
    assert [str(url) for url in seen] == ["http://pmlr.test/v267/gh-pages/icml25.bib"]
    assert sum(len(p.records) for p in pages) == 21
    checkpoint = pages[-1].checkpoint
    assert set(checkpoint["files"]) == {"v267/icml25.bib"}

    again = await _pages(source, checkpoint)
    assert [len(p.records) for p in again] == [0] and again[0].notes == ["v267/icml25.bib: unchanged (sha256)"]
    backfill = await _pages(source, checkpoint, from_date="2025-01-01")
    assert sum(len(p.records) for p in backfill) == 21


async def test_the_source_notes_a_broken_entry_and_fails_on_a_file_that_is_not_a_volume() -> None:
    broken = _broken(BIB.read_text(encoding="utf-8")).encode()
    source, _ = _source(lambda request: httpx.Response(200, content=broken))
    pages = await _pages(source, {})
    assert sum(len(p.records) for p in pages) == 21
    assert any("aamand25a" in note for note in pages[0].notes)

    source, _ = _source(lambda request: httpx.Response(200, content=b"<html>moved</html>"))
    with pytest.raises(SourceRunFailed, match=r"PMLR v267/icml25\.bib"):
        await _pages(source, {})
