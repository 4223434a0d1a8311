"""Bulk import of the Kaggle snapshot layout and the corpus listings: every line, streamed, resumable."""

import gzip
import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from services.harvester.bulk import BulkFileSource, file_date, sniff_kind
from services.harvester.runner import run_source
from services.harvester.sources import SourcePage
from services.harvester.store import HarvestStore
from tests.support.fakes import Published
from tests.support.paths import FIXTURES

KAGGLE = FIXTURES / "harvester/kaggle/arxiv-metadata-oai-snapshot.json"
CORPUS = FIXTURES / "harvester/corpus/2026-05-04_AI_enhanced_Chinese.jsonl.gz"


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as stream:
        return [line.strip() for line in stream if line.strip()]


async def _all_pages(source: BulkFileSource, checkpoint: dict | None = None) -> list[SourcePage]:
    return [page async for page in source.pages(checkpoint or {})]


@pytest.fixture
def kaggle_gz(tmp_path: Path) -> Path:
    target = tmp_path / "arxiv-metadata-oai-snapshot.json.gz"
    with KAGGLE.open("rb") as plain, gzip.open(target, "wb") as packed:
        shutil.copyfileobj(plain, packed)
    return target


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
async def test_every_kaggle_line_becomes_one_record(compressed: bool, kaggle_gz: Path) -> None:
    path = kaggle_gz if compressed else KAGGLE
    assert sniff_kind(path) == "kaggle"
    pages = await _all_pages(BulkFileSource(path, "kaggle", batch_size=3))
    records = [r for page in pages for r in page.records]
    lines = _lines(KAGGLE)
    assert [r.content for r in records] == lines  # the original line, stripped
    assert [r.record_id for r in records] == [json.loads(line)["id"] for line in lines]
    assert [r.datestamp for r in records] == [json.loads(line)["update_date"] for line in lines]
    assert {r.format for r in records} == {"kaggle_arxiv_json"}
    assert [len(p.records) for p in pages] == [3, 3, 1]
    assert pages[-1].checkpoint["files"][str(path.resolve())] == {"line": len(lines), "complete": True}


async def test_every_corpus_line_becomes_one_record_dated_by_its_file() -> None:
    assert sniff_kind(CORPUS) == "corpus" and file_date(CORPUS) == "2026-05-04"
    records = [r for page in await _all_pages(BulkFileSource(CORPUS, "corpus", 50)) for r in page.records]
    lines = _lines(CORPUS)
    assert len(records) == len(lines) == 116
    assert [r.record_id for r in records] == [json.loads(line)["id"] for line in lines]
    assert {r.datestamp for r in records} == {"2026-05-04"} and {r.format for r in records} == {"corpus_json"}


async def test_an_import_resumes_after_the_last_published_line() -> None:
    source = BulkFileSource(CORPUS, "corpus", 50)
    first = (await _all_pages(source))[0]
    assert first.checkpoint["files"][str(CORPUS.resolve())] == {"line": 50, "complete": False}
    rest = await _all_pages(source, first.checkpoint)
    ids = [r.record_id for r in first.records] + [r.record_id for page in rest for r in page.records]
    assert ids == [json.loads(line)["id"] for line in _lines(CORPUS)]


async def test_a_bad_line_is_skipped_with_a_note_naming_it(tmp_path: Path) -> None:
    lines = _lines(KAGGLE)
    path = tmp_path / "snapshot.json"
    path.write_text("\n".join([lines[0], '{"id": ', lines[1], '{"title": "no id"}', ""]), encoding="utf-8")
    pages = await _all_pages(BulkFileSource(path, "kaggle", 10))
    assert [r.content for page in pages for r in page.records] == lines[:2]
    assert [n.split(":")[0] for page in pages for n in page.notes] == ["snapshot.json line 2", "snapshot.json line 4"]


async def test_memory_stays_flat_whatever_the_file_size(tmp_path: Path) -> None:
    """30 copies of the corpus file (~3,500 lines) need no more memory than a few batches."""
    lines = _lines(CORPUS)
    path = tmp_path / "2026-05-04_big.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as stream:
        for _ in range(30):
            stream.writelines(line + "\n" for line in lines)
    raw_size = sum(len(line.encode()) + 1 for line in lines) * 30
    tracemalloc.start()
    count = 0
    async for page in BulkFileSource(path, "corpus", 100).pages({}):
        count += len(page.records)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 30 * len(lines)
    assert peak < raw_size / 10, f"peak {peak} bytes for {raw_size} bytes of lines"


@pytest.mark.integration
async def test_import_through_the_runner_checkpoints_the_file(store: HarvestStore, published: Published) -> None:
    source = BulkFileSource(KAGGLE, "kaggle", 3)
    status = await run_source(source, store, published.publish_raw, published.publish_status)
    assert status.state == "finished" and status.records == 7 and status.pages == 3
    assert (published.raw[0].source, published.raw[0].record_id) == ("kaggle", "0704.0471")
    checkpoint = await store.load_checkpoint("kaggle")
    assert checkpoint["files"][str(KAGGLE.resolve())] == {"line": 7, "complete": True}
    again = await run_source(source, store, published.publish_raw, published.publish_status)
    assert again.records == 0  # already imported: nothing re-published
