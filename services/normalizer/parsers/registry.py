"""The parsers by raw format: `parse_raw` picks a record's by its format; `parse_batch` reads consumed records."""

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from schemas.events import RawRecord
from services.normalizer.parsers.acl import parse_acl
from services.normalizer.parsers.arxiv_atom import parse_arxiv_atom
from services.normalizer.parsers.arxiv_json import parse_corpus_line, parse_kaggle_arxiv
from services.normalizer.parsers.arxiv_oai import parse_arxiv, parse_arxiv_raw
from services.normalizer.parsers.dblp import parse_dblp
from services.normalizer.parsers.hf_daily import parse_hf_daily
from services.normalizer.parsers.oai_dc import parse_oai_dc
from services.normalizer.parsers.pmlr import parse_pmlr
from services.normalizer.records import Incoming, ParsedRecord, UnparseableRecord

# The version of how records are read into papers: bump it when a parser or the text cleaning changes what a
# record reads as. A record read by an earlier version is read again when it is delivered again (a re-harvest,
# a re-import), so the papers stored from it take the new reading (docs/operations.md, "Upgrades").
# 2: LaTeX accents read only where they are accents, formulas kept as the source wrote them.
# 3: a listing-corpus line's day (its datestamp) read as the paper's first-published date (listed_on).
READING = 3

# Each parser gets the whole raw record: most need only `content`, some also the source's datestamp.
PARSERS: dict[str, Callable[[RawRecord], ParsedRecord]] = {
    "arXivRaw": lambda raw: parse_arxiv_raw(raw.content),
    "arXiv": lambda raw: parse_arxiv(raw.content),
    "arxiv_atom": lambda raw: parse_arxiv_atom(raw.content),
    "oai_dc": lambda raw: parse_oai_dc(raw.content),
    "acl_xml": lambda raw: parse_acl(raw.content),
    "hf_daily_json": parse_hf_daily,
    "kaggle_arxiv_json": parse_kaggle_arxiv,
    "corpus_json": parse_corpus_line,
    "pmlr_bibtex": lambda raw: parse_pmlr(raw.content),
    "dblp_xml": lambda raw: parse_dblp(raw.content),
}


def parse_raw(raw: RawRecord) -> ParsedRecord:
    parser = PARSERS.get(raw.format)
    if parser is None:
        raise UnparseableRecord(f"no parser for format {raw.format!r}")
    return parser(raw)


def parse_batch(consumed: Sequence[Any]) -> tuple[list[Incoming], list[tuple[Any, Exception]]]:
    """Consumed Kafka records (`.value` = RawRecord JSON) → parsed items, and the records that failed with why."""
    items: list[Incoming] = []
    bad: list[tuple[Any, Exception]] = []
    for consumed_record in consumed:
        try:
            raw = RawRecord.model_validate_json(consumed_record.value or b"")
            items.append(Incoming(raw, parse_raw(raw), consumed_record))
        except (ValidationError, ValueError, TypeError, KeyError, AttributeError) as error:
            # UnparseableRecord is a ValueError; the others are shapes a parser did not expect: never block
            bad.append((consumed_record, error))
    return items, bad
