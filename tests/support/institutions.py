"""Papers of the ACL Anthology with their authors' institutions matched, as the normalizer stores them, for the
institution tests."""

from datetime import UTC, datetime

from schemas.events import PaperEnriched
from schemas.paper import Author, AuthorInstitution, Paper, PaperVersion
from schemas.summary import Institution, Summary
from services.normalizer.parsers.registry import parse_raw
from tests.support.sources import acl_records

NOW = datetime.now(UTC).replace(microsecond=0)

# The ROR records (ror-community/ror-records: id, name, Chinese label, country) each affiliation below was matched
# to by reading it.
TSINGHUA = ("03cve4549", "Tsinghua University", "清华大学", "CN")
BAIDU = ("03vs3wt56", "Baidu (China)", "百度", "CN")
SYSU = ("0064kty71", "Sun Yat-sen University", "中山大学", "CN")
HEBUST = ("05h3pkk68", "Hebei University of Science and Technology", "河北科技大学", "CN")

MATCHED = {
    "Tsinghua University, Tsinghua University": TSINGHUA,
    "Baidu Ernie-bot": BAIDU,
    "SUN YAT-SEN UNIVERSITY": SYSU,
    "Hebei University of Science & Technology": HEBUST,
}

MODEL_ONLY = "acl:2024.acl-long.79"  # no author matched: the summary's names are shown

MODEL_SUMMARY = Summary(
    status="ok", model="deepseek-chat", title_zh="测试", institutions=[Institution(name="Tsinghua University",
    name_zh="清华大学")], generated_at=NOW,
)  # fmt: skip


def acl_paper(record_id: str, published: datetime, matched: bool = True) -> Paper:
    """The Anthology's record as a canonical paper, its authors' affiliations matched (when `matched`)."""
    raw = next(r for r in acl_records() if r.record_id == record_id)
    parsed = parse_raw(raw)
    authors = [with_institutions(a) if matched else a for a in parsed.authors]
    return Paper(
        id=f"acl:{record_id}", ids=parsed.ids, title=parsed.title, abstract=parsed.abstract, authors=authors,
        venue=parsed.venue, year=parsed.year, status=parsed.status, sources=["acl"], versions=parsed.versions,
        first_seen=published, updated_at=published, published_at=published,
    )  # fmt: skip


def enriched(paper: Paper) -> PaperEnriched:
    version = PaperVersion(
        paper_id=paper.id, seq=1, kind="first_observed", source="acl", source_record_id=paper.id[4:],
        observed_at=paper.first_seen, content_hash="0" * 64,
    )  # fmt: skip
    summary = MODEL_SUMMARY if paper.id == MODEL_ONLY else Summary(status="pending")
    return PaperEnriched(kind="new", paper=paper, version=version, summary=summary)


def with_institutions(author: Author) -> Author:
    found = [MATCHED[a] for a in author.affiliations if a in MATCHED]
    return author.model_copy(update={"institutions": [
        AuthorInstitution(affiliation=aff, ror=ror, name=name, name_zh=zh, country=country, evidence="name",
                          source="acl")
        for aff, (ror, name, zh, country) in zip(author.affiliations, found, strict=True)]})  # fmt: skip
