"""Papers from the real May 2026 arXiv corpus (/work/shared/corpus) as canonical Paper models, for tests and bench."""

import gzip
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from papertrail.domain.names import make_author
from papertrail.domain.text import readable
from schemas.paper import Paper, PaperIds
from tests.support.paths import FIXTURES

SHARED_CORPUS = Path("/work/shared/corpus/arxiv-daily-2026-05")
SAMPLE = FIXTURES / "corpus" / "matcher_sample.jsonl"


def paper_from_line(record: dict, seen: datetime | None = None) -> Paper:
    """One corpus line (a daily listing entry) as the canonical paper the normalizer would produce."""
    when = seen or datetime(2026, 5, 1, tzinfo=UTC)
    return Paper(
        id=f"arxiv:{record['id']}",
        ids=PaperIds(arxiv=record["id"]),
        title=readable(record["title"]),
        abstract=readable(record.get("summary")),
        authors=[make_author(name) for name in record.get("authors", [])],
        categories=record.get("categories", []),
        comments=record.get("comment"),
        sources=["arxiv"],
        first_seen=when,
        updated_at=when,
    )


def read_lines(paths: Iterable[Path]) -> Iterator[dict]:
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as lines:  # type: ignore[operator]
            for line in lines:
                if line.strip():
                    yield json.loads(line)


def sample_papers() -> dict[str, Paper]:
    """The committed sample (tests/fixtures/corpus), by paper id."""
    papers = (paper_from_line(r) for r in read_lines([SAMPLE]))
    return {p.id: p for p in papers}


def corpus_papers(folder: Path = SHARED_CORPUS) -> list[Paper]:
    """Every distinct paper of the shared corpus (its first listing)."""
    seen: dict[str, Paper] = {}
    for record in read_lines(sorted(folder.glob("*.jsonl.gz"))):
        if f"arxiv:{record['id']}" not in seen:
            paper = paper_from_line(record)
            seen[paper.id] = paper
    return list(seen.values())


DAY = FIXTURES / "corpus/arxiv-daily-2026-05/2026-05-05_AI_enhanced_Chinese.jsonl.gz"


PAPER = paper_from_line(next(read_lines([DAY])))
