"""Parser for a Semantic Scholar paper as its batch endpoint answers it (`s2_paper_json`): the paper's citation count,
for the paper named by the id it was asked by (the record id: `ARXIV:2401.12345`, `ACL:2024.acl-long.1`,
`DOI:10.…`). It starts no paper and changes nothing of it but its citations. Pure functions."""

from schemas.events import RawRecord
from schemas.paper import Citations, PaperIds
from services.normalizer.records import ParsedRecord, UnparseableRecord, json_content


def asked_ids(record_id: str) -> PaperIds:
    """The paper's ids as the record id names it; UnparseableRecord for an id the source is not asked by."""
    prefix, _, value = record_id.partition(":")
    value = value.strip()
    if not value:
        raise UnparseableRecord(f"Semantic Scholar record id {record_id!r} names no paper")
    if prefix == "ARXIV":
        return PaperIds(arxiv=value)
    if prefix == "ACL":
        return PaperIds(acl=value)
    if prefix == "DOI":
        return PaperIds(dois=[value.lower()])
    raise UnparseableRecord(f"Semantic Scholar record id {record_id!r} is not asked by ARXIV:, ACL: or DOI:")


def parse_s2_paper(raw: RawRecord) -> ParsedRecord:
    paper = json_content(raw.content, "Semantic Scholar paper")
    count = paper.get("citationCount") if isinstance(paper, dict) else None
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise UnparseableRecord(f"Semantic Scholar paper without a citation count (citationCount={count!r})")
    citations = Citations(count=count, source="semantic_scholar", as_of=raw.harvested_at)
    return ParsedRecord(
        source=raw.source, record_id=raw.record_id, ids=asked_ids(raw.record_id), title="", citations=citations
    )
