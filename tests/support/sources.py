"""Raw records made from the recorded source files, split the way the harvester publishes them.

ACL: each `<paper>`/`<frontmatter>` wrapped in a copy of its `<volume>` (attributes + `collection`) with the
volume's `<meta>`; record id `<collection>-<volume>.<paper>`. HF: one item per record, id = arXiv id,
datestamp = the list date from the file name. OAI: the `<record>` elements.
"""

import hashlib
import json
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from papertrail.domain.names import split_author_list
from schemas.events import RawFormat, RawRecord
from schemas.paper import PaperIds, SourceVersion
from services.harvester.sources.anthology import split_collection
from services.harvester.sources.arxiv_feed import feed_records
from services.harvester.sources.atom_feed import parse_feed
from services.harvester.sources.oai import parse_oai_page
from services.normalizer.records import ParsedRecord
from tests.support.paths import FIXTURES, SOURCES

ACL_FILE = SOURCES / "acl/2024.acl.xml"
ACL_RED_FM = FIXTURES / "normalizer/2023.acl-long.237.xml"  # a title with a formula (see its ORIGIN.md)
HF_FILES = sorted((SOURCES / "hf_daily_papers").glob("daily_papers_*.json"))
HARVESTED_AT = datetime(2026, 11, 30, tzinfo=UTC)


def raw_record(source: str, record_id: str, fmt: RawFormat, content: str, datestamp: str | None = None) -> RawRecord:
    return RawRecord(
        source=source,
        record_id=record_id,
        format=fmt,
        content=content,
        sha256=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        datestamp=datestamp,
        run_id="test",
        harvested_at=HARVESTED_AT,
    )


def acl_records(path: Path = ACL_FILE) -> list[RawRecord]:
    """Every paper and front matter of a recorded collection file, split as the harvester splits it."""
    return [raw_record("acl", r.record_id, r.format, r.content) for r in split_collection(path.read_bytes())]


def with_anthology_doi(record: RawRecord) -> RawRecord:
    """An ACL record with the DOI the Anthology assigns its papers (10.18653/v1/<anthology id>): the recorded volume
    (2024-08-15) predates them."""
    doi = f"<doi>10.18653/v1/{record.record_id}</doi></paper>"
    return raw_record(record.source, record.record_id, record.format, record.content.replace("</paper>", doi))


def arxiv_line(arxiv_id: str, title: str, authors: list[str], abstract: str, categories: list[str]) -> RawRecord:
    """A corpus-format line (a paper as arXiv lists it) written from another source's title, authors and abstract:
    the arXiv side of a merge the recorded files hold only one side of."""
    line = {"id": arxiv_id, "categories": categories, "authors": authors, "title": title, "comment": None}
    return raw_record("corpus", arxiv_id, "corpus_json", json.dumps(line | {"summary": abstract}))


def hf_records(path: Path) -> list[RawRecord]:
    day = path.stem.removeprefix("daily_papers_")
    return [
        raw_record("hf", item["paper"]["id"], "hf_daily_json", json.dumps(item, ensure_ascii=False), datestamp=day)
        for item in json.loads(path.read_text(encoding="utf-8"))
    ]


def red_fm_preprint() -> RawRecord:
    """The arXiv preprint of ACL_RED_FM as a listing line: arXiv's title and author list (the abstract is ACL's)."""
    line: dict[str, object] = {
        "id": "2306.09802",
        "categories": ["cs.CL"],
        "authors": ["Pere-Lluís Huguet Cabot", "Simone Tedeschi", "Axel-Cyrille Ngonga Ngomo", "Roberto Navigli"],
        "title": r"RED$^{\rm FM}$: a Filtered and Multilingual Relation Extraction Dataset",
        "comment": "ACL 2023",
        "summary": "Relation Extraction (RE) is a task that identifies relationships between entities in a text.",
    }
    return raw_record("corpus", "2306.09802", "corpus_json", json.dumps(line, ensure_ascii=False))


def oai_records(relative: str, fmt: RawFormat) -> list[RawRecord]:
    page = parse_oai_page((SOURCES / "arxiv_oai" / relative).read_bytes())
    return [raw_record("arxiv", r.record_id, fmt, r.content, r.datestamp) for r in page.records]


CORPUS = FIXTURES / "corpus/arxiv-daily-2026-05"


def corpus_records(folder: Path = CORPUS) -> list[RawRecord]:
    """Every listing of the corpus, day by day, as the raw record a loader publishes (datestamp = the day)."""
    return list(_corpus_records(folder))


@cache  # read once a process: several test modules read it while every pytest worker collects them
def _corpus_records(folder: Path) -> tuple[RawRecord, ...]:
    import gzip

    records = []
    for path in sorted(folder.glob("*.jsonl.gz")):
        day = path.name[:10]
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                line = line.strip()
                if line:
                    records.append(raw_record("corpus", json.loads(line)["id"], "corpus_json", line, datestamp=day))
    return tuple(records)


def parsed_arxiv(now: datetime = HARVESTED_AT, **changes: object) -> ParsedRecord:
    """A parsed arXiv record of one made-up paper (v1 three days before `now`), with `changes` applied."""
    base: dict = dict(
        source="arxiv",
        record_id="2401.00001",
        ids=PaperIds(arxiv="2401.00001"),
        title="A Study of Things",
        abstract="We study things.",
        authors=split_author_list("Wei Zhang, Ana García"),
        categories=["cs.CL"],
        versions=[SourceVersion(source="arxiv", label="v1", date=now - timedelta(days=3))],
    )
    base.update(changes)
    return ParsedRecord(**base)


def corpus_comments(folder: Path = CORPUS) -> dict[str, str | None]:
    """Each arXiv id of the corpus and the comment of its last listing."""
    import gzip

    found: dict[str, str | None] = {}
    for path in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    record = json.loads(line)
                    found[record["id"]] = record.get("comment")
    return found


def announced_records(feed: str = "cs_tonight.xml") -> list[RawRecord]:
    """The entries of a feed fixture (tests/fixtures/harvester/arxiv_feed/) as the announcement watcher publishes
    them."""
    parsed = parse_feed((FIXTURES / "harvester/arxiv_feed" / feed).read_bytes(), "cs")
    return [raw_record("arxiv", r.record_id, r.format, r.content, r.datestamp) for r in feed_records(parsed)]
