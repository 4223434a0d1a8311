"""Raw-record extraction throughput of the harvester (records/s on one core, peak memory).

Measures the pure parsing step between an HTTP body and raw records, on the recorded real responses:
arXivRaw ListRecords pages (the recorded page, and a 1,000-record page assembled from its records, the
size arXiv serves) and the ACL 2024 collection file (938 records). Target: >= 20,000 records/s, so the
harvester is always bounded by arXiv's one-request-per-3-seconds rule, never by itself.

    uv run python bench/harvest_extract.py [--seconds 3] [--write docs/benchmarks.md]
"""

import argparse
import os
import platform
import re
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from services.harvester.sources.anthology import split_collection  # noqa: E402
from services.harvester.sources.oai import parse_oai_page  # noqa: E402

SOURCES = ROOT / "tests/fixtures/sources"
ARXIV_RAW_PAGE = SOURCES / "arxiv_oai/arXivRaw/mikesaelim_ListRecordsResponse.xml"
ACL_FILE = SOURCES / "acl/2024.acl.xml"
TARGET = 20_000
HEADING = "## Harvester: raw-record extraction"


def thousand_record_page(body: bytes) -> bytes:
    """The recorded page's 6 records repeated to 1,000, as in a full arXiv ListRecords answer."""
    text = body.decode("utf-8")
    head, rest = text.split("<ListRecords>", 1)
    records = re.findall(r"<record>.*?</record>\s*", rest, re.S)
    tail = rest[rest.rindex("</record>") + len("</record>") :]
    many = "".join(records[i % len(records)] for i in range(1000))
    return (head + "<ListRecords>\n" + many + tail).encode("utf-8")


def measure(name: str, extract: Callable[[], int], seconds: float) -> dict[str, float | str]:
    extract()  # warm up
    records = runs = 0
    started = time.process_time()
    while (elapsed := time.process_time() - started) < seconds:
        records += extract()
        runs += 1
    tracemalloc.start()
    per_run = extract()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "name": name,
        "records_per_run": per_run,
        "runs": runs,
        "rate": records / elapsed,
        "peak_kib": peak / 2**10,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per measurement")
    parser.add_argument("--write", type=Path, help="update this Markdown file's harvester section")
    args = parser.parse_args()
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    raw_page = ARXIV_RAW_PAGE.read_bytes()
    big_page = thousand_record_page(raw_page)
    acl = ACL_FILE.read_bytes()
    results = [
        measure(
            "arXivRaw recorded page (6 records, 10.7 kB)", lambda: len(parse_oai_page(raw_page).records), args.seconds
        ),
        measure(
            f"arXivRaw page of 1,000 records ({len(big_page) / 1e6:.1f} MB)",
            lambda: len(parse_oai_page(big_page).records),
            args.seconds,
        ),
        measure(
            f"ACL 2024.acl.xml (938 records, {len(acl) / 1e6:.1f} MB)", lambda: len(split_collection(acl)), args.seconds
        ),
    ]
    max_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = [
        HEADING,
        "",
        f"`uv run python bench/harvest_extract.py` ({time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
        f"pinned to one core, CPU time). Target >= {TARGET:,} records/s.",
        "",
        "| input | records/s | peak Python memory of one pass | meets target |",
        "|---|---:|---:|---|",
    ]
    for r in results:
        ok = "yes" if float(r["rate"]) >= TARGET else "**no**"
        lines.append(f"| {r['name']} | {float(r['rate']):,.0f} | {float(r['peak_kib']):,.0f} KiB | {ok} |")
    lines += [
        "",
        "Peak Python memory is tracemalloc's peak during one pass (the records and their text); libxml2's own",
        f"tree is outside it, so the process max RSS over the whole benchmark is given too: {max_rss_mib:.0f} MiB.",
        "The 1,000-record page repeats the recorded page's 6 real records (arXiv serves 1,000 per page).",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    if args.write:
        write_section(args.write, report)
        print(f"wrote {args.write}")


def write_section(path: Path, section: str) -> None:
    """Replace (or append) this section, keeping every other section and the Machine line."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\nMachine: 2 cores, shared.\n"
    if "Machine:" not in text:
        text = text.replace("# Benchmarks\n", "# Benchmarks\n\nMachine: 2 cores, shared.\n", 1)
    pattern = re.compile(rf"^{re.escape(HEADING)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
