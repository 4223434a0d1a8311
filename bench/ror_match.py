"""Affiliations matched to ROR: precision and recall on labelled samples, strings per second, and the shipped
catalogue's load time and memory.

Three samples of genuine affiliation strings (how drawn: bench/ror_sample_draw.py; how labelled: bench/ror_sample.md):
bench/ror_sample.jsonl, labelled before the matcher's rules were tuned on it; bench/ror_heldout.jsonl, drawn and
labelled after, then tuned on too; bench/ror_heldout2.jsonl, drawn and labelled after the rules tuned on both. Each
string has the ROR records it names (`ror`), records also right to give (`also`: a parent the string names beside
its unit) and, under `absent`, institutions the registry has that the catalogue's source
(ror-community/ror-records) does not hold. A predicted id is right when it is in `ror` or `also`; recall counts the
`ror` ids found; recall end to end also counts each `absent` institution as missed.

    uv run python bench/ror_match.py      (its output is the section of docs/benchmarks.md)
"""

import gc
import json
import os
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from papertrail.domain.institutions.matching import InstitutionMatcher

SAMPLES = {
    "Sample labelled before the rules were tuned on it (210 strings)": ROOT / "bench" / "ror_sample.jsonl",
    "First held-out sample, drawn and labelled after the first rules, since tuned on (60 strings)": ROOT
    / "bench"
    / "ror_heldout.jsonl",
    "Second held-out sample, drawn and labelled after the rules tuned on both (120 strings)": ROOT
    / "bench"
    / "ror_heldout2.jsonl",
}


def rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def ratio(n: int, d: int) -> str:
    return f"{n / d:.3f} ({n}/{d})" if d else "n/a (0/0)"


def measure(matcher: "InstitutionMatcher", rows: list[dict[str, Any]]) -> None:
    predicted = right = labelled = found = absent = 0
    by_evidence = Counter[str]()
    wrong: list[str] = []
    missed: list[str] = []
    for row in rows:
        institutions = [i for i in matcher.match(row["affiliation"]) if i.ror]
        ids = {i.ror for i in institutions}
        by_evidence.update(i.evidence or "?" for i in institutions)
        allowed = set(row["ror"]) | set(row.get("also", []))
        predicted += len(ids)
        right += len(ids & allowed)
        labelled += len(row["ror"])
        found += len(ids & set(row["ror"]))
        absent += len([a for a in row.get("absent", "").split(";") if a.strip()])
        if ids - allowed:
            wrong.append(f"{row['affiliation']!r}: gave {sorted(ids - allowed)}, labelled {sorted(row['ror'])}")  # type: ignore[type-var]
        if set(row["ror"]) - ids:
            missed.append(f"{row['affiliation']!r}: missed {sorted(set(row['ror']) - ids)}")
    print(
        f"- {len(rows)} affiliation strings, {labelled} labelled ROR ids, {absent} institutions the registry has but "
        "ror-records does not"
    )
    print(f"- precision: {ratio(right, predicted)}")
    print(f"- recall (ids in the catalogue's source): {ratio(found, labelled)}")
    print(f"- recall end to end (absent institutions counted missed): {ratio(found, labelled + absent)}")
    print(f"- evidence of the ids given: {dict(by_evidence.most_common())}")
    print("\nWrong ids given:\n")
    for line in wrong or ["none"]:
        print(f"- {line}")
    print("\nLabelled ids missed:\n")
    for line in missed or ["none"]:
        print(f"- {line}")
    print()


def main() -> None:
    import papertrail.domain.text  # noqa: F401  (imported before the clock: the code, not the catalogue)
    import schemas.paper  # noqa: F401

    gc.collect()
    before = rss_mb()
    started = time.perf_counter()
    from papertrail.domain.institutions.matching import shipped_matcher

    matcher = shipped_matcher()
    load_s = time.perf_counter() - started
    gc.collect()
    resident = rss_mb() - before
    tracemalloc.start()
    from papertrail.domain.institutions.catalogue import CATALOGUE_PATH, catalogue_records
    from papertrail.domain.institutions.matching import InstitutionMatcher

    kept = InstitutionMatcher(catalogue_records())
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept

    print("## Institutions: affiliations matched to ROR (issue 40)\n")
    print(
        f"`uv run python bench/ror_match.py` ({time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} "
        f"cores, `uptime`: {os.popen('uptime').read().strip()})\n"
    )
    strings: list[str] = []
    for title, path in SAMPLES.items():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        print(f"### {title}: {path.relative_to(ROOT)}\n")
        measure(matcher, rows)
        strings += [row["affiliation"] for row in rows]

    rounds = 50
    started = time.perf_counter()
    for _ in range(rounds):
        for text in strings:
            matcher.match(text)
    per_s = rounds * len(strings) / (time.perf_counter() - started)
    catalogue = CATALOGUE_PATH
    print("### Throughput and the catalogue\n")
    print(f"- matching: {per_s:,.0f} strings/s (one process, every sample {rounds} times)")
    print(
        f"- catalogue: {catalogue.stat().st_size:,} bytes gzip, {len(matcher.records):,} records; read and indexed "
        f"in {load_s:.2f} s; resident memory +{resident:.0f} MB after it, {held / 1e6:.0f} MB held by the index "
        "(tracemalloc)"
    )


if __name__ == "__main__":
    main()
