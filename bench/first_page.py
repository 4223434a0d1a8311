"""First-page reading: how right the author → affiliation pairs are, and how fast and small the reading is.

Quality: every labelled genuine arXiv page (tests/fixtures/first_page/labels.json, labelled by reading) is cut
(`author_block`), read (`read_author_block`) and merged into its paper's authors (`with_page_affiliations`, the
normalizer's merge); each pair the merge gives an author is right when the label states it. Precision: right pairs
of all given; recall: right pairs of all the page states (those it puts beside no single name included). The same
for the genuine PDFs' first-page heads (tests/fixtures/first_page/pdf/labels.json and, the second sample,
labels.sample2.json, and the third, held out from the reader's making, labels.sample3.json;
`read_first_page_head`). A page is read wholly right when the pairs given are exactly those its
label states.

Speed: the same cut and read, per page, in 1 process and in 2 (a process pool: two cores), over the excerpts, and
over `--page PATH` (any large genuine HTML page: a whole page's parse costs what the excerpt's does not; it is
rejected as no arXiv rendering after the parse, which is the cost that counts). Memory: the peak resident size of a
worker after reading, and tracemalloc's peak for one page.

    uv run python bench/first_page.py [--page PATH] [--seconds 3] [--missed] [--quality-only]
(docs/benchmarks.md, "First pages")
The PDF: the one kept whole (2304.02623v1, 936 kB), its first page's head extracted (`first_page_head`, pypdf) and read.
"""

import argparse
import json
import os
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papertrail.domain.names import make_author  # noqa: E402
from services.harvester.sources.arxiv_html_page import PageRejected, author_block  # noqa: E402
from services.harvester.sources.arxiv_pdf_page import first_page_head  # noqa: E402
from services.normalizer.first_page import with_page_affiliations  # noqa: E402
from services.normalizer.parsers.arxiv_html import read_author_block  # noqa: E402
from services.normalizer.parsers.arxiv_pdf import read_first_page_head  # noqa: E402
from services.normalizer.records import PageAuthor  # noqa: E402

PAGES = ROOT / "tests" / "fixtures" / "first_page"
PDFS = PAGES / "pdf"


def html_page(page: str) -> list[PageAuthor]:
    return read_author_block(author_block((PAGES / f"{page}.authors.html").read_bytes()))


def pdf_head(page: str) -> list[PageAuthor]:
    return read_first_page_head((PDFS / f"{page}.head.txt").read_text(encoding="utf-8"))


@dataclass
class Quality:
    pages: int = 0
    pages_right: int = 0  # every pair the page states given, and nothing else
    given: int = 0
    right: int = 0
    stated: int = 0
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def __add__(self, other: "Quality") -> "Quality":
        return Quality(
            self.pages + other.pages,
            self.pages_right + other.pages_right,
            self.given + other.given,
            self.right + other.right,
            self.stated + other.stated,
            self.wrong + other.wrong,
            self.missed + other.missed,
        )

    def line(self, name: str) -> str:
        precision = f"{self.right / self.given:.2f}" if self.given else "-"
        return (
            f"{name}: {self.pages} pages labelled, {self.pages_right} read wholly right; pairs given {self.given}, "
            f"right {self.right} (precision {precision}); stated {self.stated} (recall {self.right / self.stated:.2f})"
        )


def quality(labels_file: Path, read_page: Callable[[str], list[PageAuthor]]) -> Quality:
    """Each labelled page read and merged into its authors; its pairs counted against the label."""
    labels = json.loads(labels_file.read_text(encoding="utf-8"))["pages"]
    result = Quality(pages=len(labels))
    for page, label in sorted(labels.items()):
        read = read_page(page)
        authors = with_page_affiliations([make_author(name) for name in label["authors"]], read)
        truth = {tuple(pair) for pair in label["pairs"]}
        given = {(author.name, affiliation) for author in authors for affiliation in author.affiliations}
        result.stated += len(truth) + len(label["unattributed"])
        result.given += len(given)
        result.right += len(given & truth)
        result.pages_right += given == truth and not label["unattributed"]
        result.wrong += [f"{page}: {name} → {affiliation}" for name, affiliation in sorted(given - truth)]
        result.missed += [f"{page}: {name} → {affiliation}" for name, affiliation in sorted(truth - given)]
    return result


def read_pdf(pdf: bytes) -> int:
    """Extract and read one PDF's first page; the number of authors read."""
    try:
        return len(read_first_page_head(first_page_head(pdf)))
    except PageRejected:
        return 0


def read_page(page: bytes) -> int:
    """Cut and read one page; the number of authors read (0 for a page that is no arXiv rendering)."""
    try:
        return len(read_author_block(author_block(page)))
    except PageRejected:
        return 0


def _loop(pages: list[bytes], seconds: float) -> tuple[int, int]:
    done, ended = 0, time.monotonic() + seconds
    while time.monotonic() < ended:
        for page in pages:
            read_pdf(page) if page.startswith(b"%PDF") else read_page(page)
            done += 1
    return done, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def throughput(pages: list[bytes], workers: int, seconds: float) -> tuple[float, int]:
    """Pages per second across `workers` processes, and the largest worker's peak resident size (kB)."""
    with ProcessPoolExecutor(workers) as pool:
        started = time.monotonic()
        results = list(pool.map(_loop, [pages] * workers, [seconds] * workers))
        elapsed = time.monotonic() - started
    return sum(done for done, _ in results) / elapsed, max(rss for _, rss in results)


def traced_peak(page: bytes) -> int:
    tracemalloc.start()
    read_pdf(page) if page.startswith(b"%PDF") else read_page(page)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", type=Path, help="a large genuine HTML page, for a whole page's parse")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--missed", action="store_true", help="list every labelled pair that was not given")
    parser.add_argument("--quality-only", action="store_true", help="skip the speed and memory runs")
    args = parser.parse_args()

    samples = [
        ("HTML, first sample", PAGES / "labels.json", html_page),
        ("PDF, first sample", PDFS / "labels.json", pdf_head),
        ("PDF, second sample", PDFS / "labels.sample2.json", pdf_head),
        ("PDF, third sample (held out)", PDFS / "labels.sample3.json", pdf_head),
    ]
    measured = [(name, quality(labels, reader)) for name, labels, reader in samples]
    for name, result in measured:
        print(result.line(name))
        for line in result.wrong:
            print(f"  wrong: {line}")
        if args.missed:
            for line in result.missed:
                print(f"  missed: {line}")
    print(sum((result for name, result in measured if name.startswith("PDF")), Quality()).line("PDF, all samples"))
    print(sum((result for _, result in measured), Quality()).line("all"))

    if args.quality_only:
        return
    excerpts = [p.read_bytes() for p in sorted(PAGES.glob("*.authors.html"))]
    pdf = PDFS / "2304.02623v1.pdf"
    sets = [("excerpts (article head, 1.5-12 kB)", excerpts), (f"{pdf.name} (PDF, 0.94 MB)", [pdf.read_bytes()])]
    if args.page is not None:
        whole = args.page.read_bytes()
        sets.append((f"{args.page.name} ({len(whole) / 1e6:.2f} MB)", [whole]))
    print(f"cores: {os.cpu_count()}, load: {os.getloadavg()[0]:.1f}")
    for name, pages in sets:
        for workers in (1, 2):
            rate, rss = throughput(pages, workers, args.seconds)
            print(f"{name}: {workers} process(es) {rate:,.0f} pages/s, worker peak RSS {rss / 1024:.0f} MB")
        print(f"{name}: tracemalloc peak for one page {max(traced_peak(p) for p in pages) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
