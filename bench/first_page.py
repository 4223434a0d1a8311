"""First-page reading: how right the author → affiliation pairs are, and how fast and small the reading is.

Quality: every labelled genuine arXiv page (tests/fixtures/first_page/labels.json, labelled by reading) is cut
(`author_block`), read (`read_author_block`) and merged into its paper's authors (`with_page_affiliations`, the
normalizer's merge); each pair the merge gives an author is right when the label states it. Precision: right pairs
of all given; recall: right pairs of all the page states (those it puts beside no single name included). The same
for the genuine PDFs' first-page heads (tests/fixtures/first_page/pdf/labels.json, `read_first_page_head`).

Speed: the same cut and read, per page, in 1 process and in 2 (a process pool: two cores), over the excerpts, and
over `--page PATH` (any large genuine HTML page: a whole page's parse costs what the excerpt's does not; it is
rejected as no arXiv rendering after the parse, which is the cost that counts). Memory: the peak resident size of a
worker after reading, and tracemalloc's peak for one page.

    uv run python bench/first_page.py [--page PATH] [--seconds 3]     (docs/benchmarks.md, "First pages")
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


def quality(folder: Path, read_page: Callable[[str], list[PageAuthor]]) -> tuple[int, int, int, int, list[str]]:
    """Pages, pairs given, pairs right, pairs stated; the wrong ones."""
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))["pages"]
    given = right = stated = 0
    wrong: list[str] = []
    for page, label in sorted(labels.items()):
        read = read_page(page)
        authors = with_page_affiliations([make_author(name) for name in label["authors"]], read)
        truth = {tuple(pair) for pair in label["pairs"]}
        stated += len(truth) + len(label["unattributed"])
        for author in authors:
            for affiliation in author.affiliations:
                given += 1
                if (author.name, affiliation) in truth:
                    right += 1
                else:
                    wrong.append(f"{page}: {author.name} → {affiliation}")
    return len(labels), given, right, stated, wrong


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
    args = parser.parse_args()

    for name, folder, reader in (("HTML", PAGES, html_page), ("PDF", PDFS, pdf_head)):
        labelled, given, right, stated, wrong = quality(folder, reader)
        print(
            f"{name}: {labelled} pages labelled; pairs given {given}, right {right} (precision {right / given:.2f}); "
            f"stated {stated} (recall {right / stated:.2f})"
        )
        for line in wrong:
            print(f"  wrong: {line}")

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
