"""One parser per raw format; `parse_raw` picks it by the record's format."""

from collections.abc import Callable

from schemas.events import RawRecord
from services.normalizer.parsers.arxiv_oai import parse_arxiv, parse_arxiv_raw
from services.normalizer.records import ParsedRecord, UnparseableRecord

# Each parser gets the whole raw record: most need only `content`, some also the source's datestamp.
PARSERS: dict[str, Callable[[RawRecord], ParsedRecord]] = {
    "arXivRaw": lambda raw: parse_arxiv_raw(raw.content),
    "arXiv": lambda raw: parse_arxiv(raw.content),
}


def parse_raw(raw: RawRecord) -> ParsedRecord:
    parser = PARSERS.get(raw.format)
    if parser is None:
        raise UnparseableRecord(f"no parser for format {raw.format!r}")
    return parser(raw)
