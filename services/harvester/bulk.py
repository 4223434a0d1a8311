"""Bulk imports, streamed: a JSON-lines file (the Kaggle arXiv metadata snapshot, the corpus listings) or DBLP's
`dblp.xml.gz` dump.

A JSON-lines file is read line by line (plain or gzipped), the dump record by record, so memory stays constant
whatever the size. The checkpoint is the file's path and the number of lines (records) already published, so an
interrupted import resumes where it stopped.
"""

import gzip
import io
import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, Literal, cast

from schemas.events import RawFormat
from services.harvester.sources import SourcePage, SourceRecord, SourceRunFailed
from services.harvester.sources.dblp_xml import MalformedDblpXml, iter_records, source_record

BulkKind = Literal["kaggle", "corpus", "dblp"]
FORMATS: dict[BulkKind, RawFormat] = {"kaggle": "kaggle_arxiv_json", "corpus": "corpus_json", "dblp": "dblp_xml"}
_GZIP_MAGIC = b"\x1f\x8b"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class BadLine(ValueError):
    """A line that is not a JSON object with a string `id`."""


def file_date(path: Path) -> str | None:
    """The corpus files are one listing day each, named by it: `2026-05-04_AI_enhanced_Chinese.jsonl.gz`."""
    found = _DATE.search(path.name)
    return found.group(0) if found else None


def open_binary(raw: io.BufferedReader) -> BinaryIO:
    """The decompressed stream of a plain or gzipped file (recognised by its magic bytes, not its name)."""
    if raw.peek(2)[:2] == _GZIP_MAGIC:
        return cast(BinaryIO, gzip.GzipFile(fileobj=raw, mode="rb"))
    return cast(BinaryIO, raw)


def sniff_kind(path: Path) -> BulkKind:
    """Kaggle lines carry `versions` and `update_date`; corpus lines carry `summary` and a list of categories; the
    DBLP dump is XML whose root is `<dblp>`."""
    with path.open("rb") as raw, open_binary(raw) as stream:
        if b"<dblp" in stream.read(1024):
            return "dblp"
    with path.open("rb") as raw, open_binary(raw) as stream:
        for line in stream:
            if line.strip():
                obj = json.loads(line)
                if "versions" in obj or "update_date" in obj:
                    return "kaggle"
                if isinstance(obj.get("categories"), list) and "summary" in obj:
                    return "corpus"
                break
    raise ValueError(f"{path}: neither the Kaggle arXiv snapshot nor the corpus listing format")


def line_record(line: bytes, kind: BulkKind, date: str | None) -> SourceRecord:
    """One line → one raw record: content is the line as it is (stripped), id is its `id`."""
    text = line.decode("utf-8").strip()
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not JSON: {exc}") from exc
    record_id = obj.get("id") if isinstance(obj, dict) else None
    if not isinstance(record_id, str) or not record_id:
        raise BadLine("no string `id`")
    datestamp = obj.get("update_date") if kind == "kaggle" else date
    return SourceRecord.of(record_id, FORMATS[kind], text, datestamp)


class BulkFileSource:
    """One file as a source named after its format ("kaggle" or "corpus"); pages are batches of lines."""

    def __init__(self, path: Path, kind: BulkKind, batch_size: int) -> None:
        self.path = path.resolve()
        self.kind = kind
        self.name: str = kind
        self.batch_size = batch_size
        self.total_bytes = self.path.stat().st_size
        self.bytes_read = 0  # of the file on disk (compressed), for the progress bar

    def _lines(self, skip: int) -> Iterator[tuple[int, bytes, int]]:
        """(line number, line, bytes of the file read so far), from line `skip` + 1 on."""
        with self.path.open("rb") as raw, open_binary(raw) as stream:
            for number, line in enumerate(stream, start=1):
                if number > skip:
                    yield number, line, raw.tell()

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        files: dict[str, dict[str, Any]] = {k: dict(v) for k, v in checkpoint.get("files", {}).items()}
        key = str(self.path)
        done = int(files.get(key, {}).get("line", 0))
        date = file_date(self.path)
        batch: list[SourceRecord] = []
        notes: list[str] = []
        number = done
        try:
            for number, line, position in self._lines(done):
                self.bytes_read = position
                if line.strip():
                    try:
                        batch.append(line_record(line, self.kind, date))
                    except (BadLine, UnicodeDecodeError) as exc:
                        notes.append(f"{self.path.name} line {number}: {exc}; skipped")
                if len(batch) >= self.batch_size:
                    files[key] = {"line": number, "complete": False}
                    yield SourcePage(batch, {"files": dict(files)}, notes=notes)
                    batch, notes = [], []
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise SourceRunFailed(f"{self.path}: cannot read line {number + 1}: {exc}") from exc
        self.bytes_read = self.total_bytes
        files[key] = {"line": number, "complete": True}
        yield SourcePage(batch, {"files": dict(files)}, notes=notes)


class DblpDumpSource:
    """DBLP's `dblp.xml(.gz)` dump as a source ("dblp_dump"); its records are published as the DBLP source's, in pages
    of `batch_size` publications. A record the normalizer cannot read (no title) still goes out, to be refused there
    with its reason; an entity the DTD would define is resolved without it (sources/dblp_xml.py)."""

    name = "dblp_dump"

    def __init__(self, path: Path, batch_size: int) -> None:
        self.path = path.resolve()
        self.batch_size = batch_size
        self.total_bytes = self.path.stat().st_size
        self.bytes_read = 0

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        files: dict[str, dict[str, Any]] = {k: dict(v) for k, v in checkpoint.get("files", {}).items()}
        key = str(self.path)
        done = int(files.get(key, {}).get("records", 0))
        batch: list[SourceRecord] = []
        number = 0
        with self.path.open("rb") as raw, open_binary(raw) as stream:
            try:
                for number, record in enumerate(iter_records(stream), start=1):
                    if number <= done:
                        continue
                    batch.append(replace(source_record(record), source="dblp"))
                    if len(batch) >= self.batch_size:
                        self.bytes_read = raw.tell()
                        files[key] = {"records": number, "complete": False}
                        yield SourcePage(batch, {"files": dict(files)})
                        batch = []
            except (MalformedDblpXml, OSError, EOFError, gzip.BadGzipFile) as exc:
                raise SourceRunFailed(f"{self.path}: cannot read past record {number}: {exc}") from exc
        self.bytes_read = self.total_bytes
        files[key] = {"records": max(number, done), "complete": True}
        yield SourcePage(batch, {"files": dict(files)})
