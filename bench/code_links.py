"""How many papers get a code link: from the sources' own fields alone, and with the links found in the text.

Every record of the corpus (a month of arXiv listings, `tests/fixtures/corpus`) and of the recorded source
files (`tests/fixtures/sources`: two ACL volumes, two Hugging Face days, the arXiv OAI-PMH pages) is parsed and
merged into its paper as the normalizer does (`identity.merge`). "Before" counts the papers with a code link
from a source's own field as the parsers gave it before links were found in the text (Hugging Face's
`githubRepo`, the Anthology's `pwccode`, the listing's `code_url`); "after" the papers whose merged links hold
`code`. Also: the other kinds found, and the time finding links takes per record.

    uv run python bench/code_links.py      (its output is the section of docs/benchmarks.md)
"""

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from schemas.events import RawRecord  # noqa: E402
from schemas.paper import Paper  # noqa: E402
from services.normalizer.identity import canonical_id, merge  # noqa: E402
from services.normalizer.links import found_links  # noqa: E402
from services.normalizer.parsers.registry import parse_raw  # noqa: E402
from services.normalizer.settings import DEFAULT_AI_CATEGORIES  # noqa: E402
from tests.support.paths import SOURCES  # noqa: E402
from tests.support.sources import HF_FILES, acl_records, corpus_records, hf_records, oai_records  # noqa: E402

HEADING = "## Normalizer: code links found in abstracts and comments"
NOW = datetime(2026, 12, 1, tzinfo=UTC)
KINDS = ("code", "dataset", "model", "demo", "project")
AI_CATEGORIES = frozenset(DEFAULT_AI_CATEGORIES)


def source_code_link(raw: RawRecord) -> str | None:
    """The code link the record's own fields gave before links were found in the text."""
    if raw.format == "corpus_json":
        return json.loads(raw.content).get("code_url") or None  # the parser took it as it was
    return parse_raw(raw).links.get("code")


def measure(name: str, records: list[RawRecord]) -> dict[str, object]:
    papers: dict[str, Paper] = {}
    before: dict[str, str] = {}
    for seq, raw in enumerate(records, start=1):
        record = parse_raw(raw)
        if record.is_front_matter:
            continue
        paper_id = canonical_id(record.ids)
        if (link := source_code_link(raw)) is not None:
            before[paper_id] = link
        change = merge(
            papers.get(paper_id), record, content_hash=str(seq), now=NOW, ai_categories=AI_CATEGORIES,
            next_seq=seq,
        )  # fmt: skip
        if change is not None:
            papers[paper_id] = change.paper
    kinds = Counter(kind for paper in papers.values() for kind in KINDS if kind in paper.links)
    after = {paper_id: paper.links["code"] for paper_id, paper in papers.items() if "code" in paper.links}
    return {
        "name": name,
        "records": len(records),
        "papers": len(papers),
        "before": len(before),
        "after": len(after),
        "gained": len(after.keys() - before.keys()),
        "lost": len(before.keys() - after.keys()),
        "replaced": sum(1 for paper_id, link in before.items() if after.get(paper_id, link) != link),
        "kinds": kinds,
    }


def finding_time(records: list[RawRecord]) -> float:
    """Microseconds of `found_links` per record (abstract and comments), CPU time over every record."""
    texts = [(r.abstract, r.comments) for r in (parse_raw(raw) for raw in records)]
    started = time.process_time()
    for abstract, comments in texts:
        found_links(abstract, comments)
    return (time.process_time() - started) / len(texts) * 1e6


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()

    sets: list[tuple[str, Callable[[], list[RawRecord]]]] = [
        ("corpus: arXiv listings, May 2026 (`corpus_json`)", corpus_records),
        ("ACL 2024 volumes (`2024.acl.xml`)", acl_records),
        ("ACL 2023 long, papers 2, 3, 5 (excerpt)", lambda: acl_records(SOURCES / "acl/2023.acl-long-2-3-5.xml")),
        ("Hugging Face daily papers, 2 days", lambda: [r for path in HF_FILES for r in hf_records(path)]),
        (
            "arXiv OAI-PMH pages (arXivRaw, arXiv cs and physics, oai_dc)",
            lambda: [
                *oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw"),
                *oai_records("arXiv/invenio_sample_arxiv_response_listrecords_cs.xml", "arXiv"),
                *oai_records("arXiv/invenio_sample_arxiv_response_listrecords_physics.xml", "arXiv"),
                *oai_records("oai_dc/atomiklabs_test_arxiv_data_listrecords_cs.xml", "oai_dc"),
            ],
        ),
    ]
    loaded = [(name, load()) for name, load in sets]
    results = [measure(name, records) for name, records in loaded]
    corpus = loaded[0][1]
    lines = [
        HEADING,
        "",
        f"`uv run python bench/code_links.py` ({time.strftime('%Y-%m-%d')}). Every record parsed and merged into its",
        "paper as the normalizer does. *Before*: papers with a code link from a source's own field (Hugging Face",
        "`githubRepo`, Anthology `pwccode`, the listing's `code_url`); *after*: papers whose merged links hold `code`.",
        "",
        "| records | papers | code link before | after | gained | lost | replaced | dataset | model | demo "
        "| project page |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        kinds: Counter[str] = r["kinds"]  # type: ignore[assignment]
        figures = [r[name] for name in ("papers", "before", "after", "gained", "lost", "replaced")]
        figures += [kinds[kind] for kind in ("dataset", "model", "demo", "project")]
        lines.append(f"| {r['name']} | " + " | ".join(f"{figure:,}" for figure in figures) + " |")
    lines += [
        "",
        "*Lost* are the listing's `code_url`s that are project pages (`….github.io`), now under `project`;",
        "*replaced* the ones that differ from the link found in the same text: the listing cut characters off the",
        "end (`…/vkspla` for `…/vksplat`, `…/anny-f` for `…/anny-fit`), or kept the repository where the text",
        "names a folder in it. A source's own field (Hugging Face, Anthology) always wins over a found link.",
        f"Finding links costs {finding_time(corpus):.0f} µs per corpus record (CPU time; most abstracts hold no",
        "link and are skipped by a substring test).",
        "",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
