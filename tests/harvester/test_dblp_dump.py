"""DBLP XML streamed into raw records: the recorded dump slice (ISO-8859-1, DTD entities) read record by record, its
entities resolved without the DTD, an unknown entity kept as text, a gzipped dump imported in pages that resume."""

import gzip
import io
import re
from pathlib import Path

import pytest

from services.harvester.bulk import DblpDumpSource, sniff_kind
from services.harvester.sources import SourcePage, SourceRunFailed
from services.harvester.sources.dblp_xml import EntityStream, MalformedDblpXml, iter_records
from tests.support.paths import SOURCES

SLICE = SOURCES / "dblp/shenka123_dblp.xml"


def _keys(data: bytes) -> list[str]:
    """Record keys counted with a plain regex, not the parser under test."""
    return [m.decode() for m in re.findall(rb'<incollection mdate="[^"]+" key="([^"]+)"', data)]


class Trickle(io.RawIOBase):
    """A stream that hands out at most `size` bytes a read, so entities fall across reads."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size, self.at = data, size, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        chunk = self.data[self.at : self.at + min(self.size, n if n > 0 else self.size)]
        self.at += len(chunk)
        return chunk


def test_every_record_of_the_slice_is_read_in_file_order() -> None:
    data = SLICE.read_bytes()
    records = list(iter_records(io.BytesIO(data)))
    assert [r.key for r in records] == _keys(data)
    assert len(records) == 131
    assert all(r.tag == "incollection" and r.content.startswith("<incollection ") for r in records)
    assert records[0].mdate == "2017-07-12"


def test_dtd_entities_are_resolved_without_the_dtd_even_split_across_reads() -> None:
    data = SLICE.read_bytes()
    for stream in (io.BytesIO(data), Trickle(data, 7)):
        text = "".join(r.content for r in iter_records(stream))  # type: ignore[arg-type]
        assert "Jürgen Beyerer" in text and "Matti Pietikäinen" in text and "François Chaumette" in text
        assert "&uuml;" not in text


def test_an_entity_no_table_knows_is_kept_as_text_and_the_import_goes_on() -> None:
    data = SLICE.read_bytes().replace(b"Fran&ccedil;ois", b"Fran&cedilx;ois")
    stream = EntityStream(io.BytesIO(data))
    records = list(iter_records(stream))  # type: ignore[arg-type]
    assert len(records) == 131
    assert any("Fran&amp;cedilx;ois Chaumette" in r.content for r in records)


def test_the_entity_stream_counts_what_it_could_not_resolve() -> None:
    stream = EntityStream(io.BytesIO(b"<a>&uuml;&nosuch;&amp;</a>"))
    assert stream.read() + stream.read() == b"<a>&#252;&amp;nosuch;&amp;</a>"
    assert stream.unknown == {"nosuch": 1}


def test_a_dump_cut_short_fails_after_the_records_before_the_cut() -> None:
    data = SLICE.read_bytes()
    cut = data[: data.index(b"reference/vision/Wong14") + 200]
    read: list[str] = []
    with pytest.raises(MalformedDblpXml):
        for record in iter_records(io.BytesIO(cut)):
            read.append(record.key)
    assert read == _keys(data)[: len(read)] and "reference/vision/X14m" in read


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    path = tmp_path / "dblp.xml.gz"
    path.write_bytes(gzip.compress(SLICE.read_bytes()))
    return path


async def _pages(source: DblpDumpSource, checkpoint: dict) -> list[SourcePage]:
    return [page async for page in source.pages(checkpoint)]


async def test_the_gzipped_dump_is_imported_in_pages_as_the_dblp_sources_records(dump: Path) -> None:
    assert sniff_kind(dump) == "dblp"
    pages = await _pages(DblpDumpSource(dump, batch_size=50), {})
    assert [len(p.records) for p in pages] == [50, 50, 31]
    records = [r for p in pages for r in p.records]
    assert [r.record_id for r in records] == _keys(SLICE.read_bytes())
    assert {(r.source, r.format) for r in records} == {("dblp", "dblp_xml")}
    assert list(pages[-1].checkpoint["files"].values()) == [{"records": 131, "complete": True}]


async def test_an_interrupted_import_resumes_after_the_records_published(dump: Path) -> None:
    first = await _pages(DblpDumpSource(dump, batch_size=50), {})
    resumed = await _pages(DblpDumpSource(dump, batch_size=50), first[0].checkpoint)
    assert [r.record_id for p in resumed for r in p.records] == _keys(SLICE.read_bytes())[50:]
    again = await _pages(DblpDumpSource(dump, batch_size=50), first[-1].checkpoint)
    assert [len(p.records) for p in again] == [0]


async def test_a_corrupt_dump_fails_the_run(tmp_path: Path) -> None:
    path = tmp_path / "dblp.xml"
    path.write_bytes(SLICE.read_bytes()[:20000])
    with pytest.raises(SourceRunFailed, match="cannot read past record"):
        await _pages(DblpDumpSource(path, batch_size=1000), {})
