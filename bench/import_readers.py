"""What a library file costs the query service's reading processes (`LibraryReaders`) at the entry cap, and whether
one reader's large file holds up another reader's small one (issue 37: a 3 MB file of 200,000 `@misc{k,}` entries
held the one reading process 66 s before its 413, and another reader's one-entry import waited 64 s behind it).

1. The review's file, 200,000 `@misc{k,}` entries (2 MB), read whole (a cap above its count) and with the default
   cap of 50,000: how long until the answer, and the reading process's peak memory.
2. A large real .bib (the three real files of tests/fixtures/library repeated to --entries entries, ORIGIN.md there)
   being read for one reader while another reader's one-entry file (mera_anthology.bib) is read, with one reading
   process (how it was) and with two (the default): how long the small file took, and whether the large one was still
   being read when it was done.

No servers: the readers alone, with their real worker processes (spawned; each warmed with a one-entry file first).
    uv run python bench/import_readers.py [--entries 49992]
"""

import argparse
import asyncio
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from services.query.library.importing import LibraryReaders  # noqa: E402
from services.query.library.imports import TooManyEntries  # noqa: E402

LIBRARY = ROOT / "tests" / "fixtures" / "library"
REAL_BIB = ("mera_anthology.bib", "acl-style-files_custom.bib", "acl-style-files_zotero.bib")
SMALL = LIBRARY / "mera_anthology.bib"
CAP = 50_000  # LIBRARY_IMPORT_MAX_ENTRIES' default


def large_bib(entries: int) -> bytes:
    unit = b"\n".join((LIBRARY / name).read_bytes() for name in REAL_BIB)
    return b"\n".join([unit] * math.ceil(entries / 12))


def peak_mb(readers: LibraryReaders) -> list[int]:
    """Each reading process's peak resident memory (VmHWM), MB."""
    peaks = []
    for worker in readers._workers:
        for process in (worker._processes if worker else {}).values():
            status = Path(f"/proc/{process.pid}/status").read_text()
            peaks += [int(line.split()[1]) // 1024 for line in status.splitlines() if line.startswith("VmHWM")]
    return peaks


async def warmed(processes: int, cap: int) -> LibraryReaders:
    readers = LibraryReaders(processes, cap)
    warm = SMALL.read_bytes()
    await asyncio.gather(*(readers.read(warm, "bibtex", "w.bib", "w", f"warm{n}") for n in range(processes)))
    return readers


async def tiny_entries() -> None:
    tiny = b"".join(b"@misc{k,}\n" for _ in range(200_000))
    print(f"200,000 @misc{{k,}} entries, {len(tiny) / 1e6:.1f} MB\n")
    print("| cap | answer | seconds | peak MB |\n|---:|---|---:|---:|")
    for cap in (1_000_000, CAP):
        readers = await warmed(1, cap)
        started = time.perf_counter()
        try:
            answer = f"{len(await readers.read(tiny, 'bibtex', 't.bib', 't', 'u')):,} entries read"
        except TooManyEntries as error:
            answer = f"413 at line {error.line:,}"
        print(f"| {cap:,} | {answer} | {time.perf_counter() - started:.2f} | {peak_mb(readers)[0]} |")
        readers.close()


async def two_readers(entries: int) -> None:
    large, small = large_bib(entries), SMALL.read_bytes()
    print(f"\none reader's {len(large) / 1e6:.1f} MB .bib ({entries:,} entries), another's one-entry file 1 s later\n")
    print("| processes | small file read in s | large one still being read then | large one read in s | peak MB |")
    print("|---:|---:|---|---:|---|")
    for processes in (1, 2):
        readers = await warmed(processes, CAP)
        started = time.perf_counter()
        reading = asyncio.create_task(readers.read(large, "bibtex", "large.bib", "a", "ana"))
        await asyncio.sleep(1)
        small_started = time.perf_counter()
        await readers.read(small, "bibtex", "small.bib", "b", "bo")
        small_s, still = time.perf_counter() - small_started, not reading.done()
        await reading
        peaks = ", ".join(map(str, peak_mb(readers)))
        print(f"| {processes} | {small_s:.2f} | {'yes' if still else 'no'} | {time.perf_counter() - started:.1f} "
              f"| {peaks} |")  # fmt: skip
        readers.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=49_992, help="the large file's entries (under the cap)")
    args = parser.parse_args()
    asyncio.run(tiny_entries())
    asyncio.run(two_readers(args.entries))


if __name__ == "__main__":
    main()
