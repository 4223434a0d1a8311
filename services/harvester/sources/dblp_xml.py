"""DBLP XML (the `dblp.xml.gz` dump, a table of contents) → one raw record per publication, streamed. No I/O of its own.

dblp.xml names its accented letters with the DTD's entities (`J&uuml;rgen`); the DTD is not at hand in a stream,
so `EntityStream` rewrites each HTML entity as its numeric reference (`&#252;`) before the XML parser sees it, in
any encoding the file declares. An entity no table knows becomes visible text (`&amp;name;`), counted, rather than
an error that would stop the import. Records are read with lxml's iterparse and cleared once read, with every
earlier sibling, so memory stays constant whatever the file's size.

Content convention (the normalizer parses exactly this): the record element as serialized text
(`<inproceedings key="conf/acl/ChangSRM23" mdate="…">…</inproceedings>`). Record id = its DBLP key.
"""

import html.entities
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from lxml import etree

from services.harvester.sources import SourceRecord

# Publications; `www` (person pages), `proceedings` (volumes), `book`, `phdthesis`, `data` … are not papers here.
PUBLICATIONS = ("article", "inproceedings", "incollection")
XML_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})
_ENTITY = re.compile(rb"&([A-Za-z][A-Za-z0-9]{0,31});")
_HOLD = 34  # an entity cut by a read's end is at most this long: keep it for the next read


class MalformedDblpXml(Exception):
    """The stream is not well-formed XML past some point (a truncated or corrupt dump)."""


class EntityStream:
    """A binary stream with the DTD's named entities replaced by numeric references, read as lxml asks."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.pending = b""
        self.unknown: dict[str, int] = {}

    def _replace(self, match: re.Match[bytes]) -> bytes:
        name = match.group(1).decode("ascii")
        if name in XML_ENTITIES:
            return match.group(0)
        code = html.entities.name2codepoint.get(name)
        if code is None:
            self.unknown[name] = self.unknown.get(name, 0) + 1
            return b"&amp;" + match.group(1) + b";"
        return b"&#%d;" % code

    def read(self, size: int = -1) -> bytes:
        chunk = self.raw.read(size if size and size > 0 else 1 << 16)
        data = self.pending + chunk
        if not chunk:
            self.pending = b""
            return _ENTITY.sub(self._replace, data)
        cut = data.rfind(b"&", max(0, len(data) - _HOLD))
        if cut != -1 and b";" not in data[cut:]:
            data, self.pending = data[:cut], data[cut:]
        else:
            self.pending = b""
        return _ENTITY.sub(self._replace, data)


@dataclass(frozen=True, slots=True)
class DblpRecord:
    tag: str
    key: str
    content: str
    mdate: str | None


def iter_records(stream: BinaryIO, tags: tuple[str, ...] = PUBLICATIONS) -> Iterator[DblpRecord]:
    """Every record element of those tags, in file order, whatever wraps it (`<dblp>`, `<r>`); constant memory."""
    parser = etree.iterparse(
        EntityStream(stream),
        events=("end",),
        tag=tags,
        load_dtd=False,
        resolve_entities=False,
        no_network=True,
        huge_tree=True,
    )
    try:
        for _, element in parser:
            yield DblpRecord(
                tag=element.tag,
                key=element.get("key") or "",
                content=etree.tostring(element, encoding="unicode", with_tail=False),
                mdate=element.get("mdate"),
            )
            element.clear(keep_tail=False)
            while element.getprevious() is not None:  # what the root still holds of records read before
                del element.getparent()[0]
    except etree.XMLSyntaxError as exc:
        raise MalformedDblpXml(str(exc)) from exc


def source_record(record: DblpRecord) -> SourceRecord:
    """A DBLP record as the DBLP source's raw record (keyed by its DBLP key, or its tag when it has none)."""
    record_id = record.key or f"{record.tag}-without-key"
    return SourceRecord.of(record_id, "dblp_xml", record.content, record.mdate)
