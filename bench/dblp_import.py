"""DBLP bulk-import throughput (records/s) and memory: the streamed path of `papertrail import dblp.xml.gz`.

Runs what the import does per record, without the broker: the gzipped dump read as a stream, DTD entities
rewritten (EntityStream), lxml iterparse with each record cleared, the raw record made (sha256 of its text), and,
timed apart, the normalizer's parse of it. Inputs: the genuine dump slice of tests/fixtures/sources/dblp (131
records, 49 kB), and, to show that memory does not grow with the file, a dump made by repeating that slice's
records inside one `<dblp>` root (`--repeat N` copies; written to a temporary file, never committed).

    uv run python bench/dblp_import.py [--repeat 1000]
"""

import argparse
import gzip
import os
import platform
import resource
import sys
import tempfile
import time
import tracemalloc
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from services.harvester.bulk import open_binary  # noqa: E402
from services.harvester.sources.dblp_xml import iter_records, source_record  # noqa: E402
from services.normalizer.parsers.dblp import parse_dblp  # noqa: E402

SLICE = ROOT / "tests/fixtures/sources/dblp/shenka123_dblp.xml"


def repeated_dump(copies: int, folder: Path) -> Path:
    """The slice's records `copies` times in one gzipped dump, written record block by block."""
    data = SLICE.read_bytes()
    head, rest = data.split(b"<dblp>", 1)
    body = rest[: rest.rindex(b"</dblp>")]
    path = folder / f"dblp-x{copies}.xml.gz"
    with gzip.open(path, "wb", compresslevel=6) as out:
        out.write(head + b"<dblp>")
        for _ in range(copies):
            out.write(body)
        out.write(b"</dblp>\n")
    return path


def stream(path: Path, *, parse: bool) -> tuple[int, float, int]:
    """(records, seconds, tracemalloc peak bytes) of one streamed pass over the file."""
    tracemalloc.start()
    started = time.perf_counter()
    count = 0
    with path.open("rb") as raw, open_binary(raw) as data:
        for record in iter_records(data):
            raw_record = source_record(record)
            if parse:
                parse_dblp(raw_record.content)
            count += 1
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return count, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1000, help="copies of the slice in the large dump")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"# {date.today()} · Python {platform.python_version()} · {os.cpu_count()} cores · load {load[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder) / "slice.xml.gz"
        small.write_bytes(gzip.compress(SLICE.read_bytes()))
        large = repeated_dump(args.repeat, Path(folder))
        print("| input | gz size | records | extract records/s | + parse records/s | peak Python memory |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, path in (("genuine slice", small), (f"slice × {args.repeat}", large)):
            count, seconds, peak = stream(path, parse=False)
            _, parse_seconds, parse_peak = stream(path, parse=True)
            size = path.stat().st_size
            print(
                f"| {name} | {size / 1024:,.0f} KiB | {count:,} | {count / seconds:,.0f} | "
                f"{count / parse_seconds:,.0f} | {max(peak, parse_peak) / 1024:,.0f} KiB |"
            )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"max RSS of the process: {rss / 1024:,.0f} MiB")


if __name__ == "__main__":
    main()
