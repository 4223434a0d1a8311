"""The parsers by raw format: `parse_raw` picks a record's by its format and keeps only its http(s) links;
`parse_batch` reads consumed records."""

import logging
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from papertrail.domain.web_links import web_links
from schemas.events import RawRecord
from services.normalizer.metrics import LINKS_DROPPED
from services.normalizer.parsers.acl import parse_acl
from services.normalizer.parsers.arxiv_atom import parse_arxiv_atom
from services.normalizer.parsers.arxiv_html import parse_arxiv_html_authors
from services.normalizer.parsers.arxiv_json import parse_corpus_line, parse_kaggle_arxiv
from services.normalizer.parsers.arxiv_oai import parse_arxiv, parse_arxiv_raw
from services.normalizer.parsers.arxiv_pdf import parse_arxiv_pdf_first_page
from services.normalizer.parsers.daily_arxiv import parse_daily_arxiv
from services.normalizer.parsers.dblp import parse_dblp
from services.normalizer.parsers.hf_daily import parse_hf_daily
from services.normalizer.parsers.oai_dc import parse_oai_dc
from services.normalizer.parsers.openreview import parse_openreview
from services.normalizer.parsers.pmlr import parse_pmlr
from services.normalizer.parsers.semantic_scholar import parse_s2_paper
from services.normalizer.records import Incoming, ParsedRecord, UnparseableRecord

# The version of how records are read into papers: bump it when a parser or the text cleaning changes what a
# record reads as. A record read by an earlier version is read again when it is delivered again (a re-harvest,
# a re-import), so the papers stored from it take the new reading (docs/operations.md, "Upgrades").
# 2: LaTeX accents read only where they are accents, formulas kept as the source wrote them.
# 3: a listing-corpus line's day (its datestamp) read as the paper's first-published date (listed_on).
# 4: an ACL Anthology record read with the category cs.CL.
# 5: an ACL Anthology record's volume kept with the paper (published_in: the volume's title, editors, publisher,
#    address and month, the paper's pages and its title's case marks), which its citations write; a Findings
#    volume's papers published at "Findings of EACL 2024", not "Findings 2024".
READING = 5

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
    "daily_arxiv_json": parse_daily_arxiv,
    "pmlr_bibtex": lambda raw: parse_pmlr(raw.content),
    "openreview_note": lambda raw: parse_openreview(raw.content),
    "dblp_xml": lambda raw: parse_dblp(raw.content),
    "arxiv_html_authors": parse_arxiv_html_authors,
    "arxiv_pdf_first_page": parse_arxiv_pdf_first_page,
    "s2_paper_json": parse_s2_paper,
}


log = logging.getLogger("papertrail.normalizer")


def parse_raw(raw: RawRecord) -> ParsedRecord:
    """The record as its format's parser reads it, with only its http(s) links: a source's own link field is
    shown as a link on the pages, and a `javascript:` URL there would run in a reader's session. A link dropped
    is named in `dropped_links`; an empty one is no link and is not."""
    parser = PARSERS.get(raw.format)
    if parser is None:
        raise UnparseableRecord(f"no parser for format {raw.format!r}")
    record = parser(raw)
    kept = web_links(record.links)
    if len(kept) < len(record.links):
        record.dropped_links = {kind: url for kind, url in record.links.items() if url and kind not in kept}
        record.links = kept
    return record


def parse_batch(consumed: Sequence[Any]) -> tuple[list[Incoming], list[tuple[Any, Exception]]]:
    """Consumed Kafka records (`.value` = RawRecord JSON) → parsed items, and the records that failed with why."""
    items: list[Incoming] = []
    bad: list[tuple[Any, Exception]] = []
    for consumed_record in consumed:
        try:
            raw = RawRecord.model_validate_json(consumed_record.value or b"")
            items.append(Incoming(raw, parse_raw(raw), consumed_record))
            _report_dropped_links(items[-1])
        except (ValidationError, ValueError, TypeError, KeyError, AttributeError) as error:
            # UnparseableRecord is a ValueError; the others are shapes a parser did not expect: never block
            bad.append((consumed_record, error))
    return items, bad


def _report_dropped_links(item: Incoming) -> None:
    """Count and log the links a record lost (the record itself goes on)."""
    for kind, url in item.record.dropped_links.items():
        LINKS_DROPPED.labels(item.raw.source, kind).inc()
        # the start of the URL shows what it was; a hostile one need not be logged whole
        log.warning("link dropped", extra={"record": item.source_key, "kind": kind, "url": url[:80]})
