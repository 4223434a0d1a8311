"""Draw a blind sample of venue claims from one month's comments (issue 41): claims_april.json (2026-04),
claims_march.json (2026-03), claims_february.json (2026-02), claims_january.json (2026-01) and
claims_december.json (2025-12) in tests/fixtures/venues.

Its comments come from the public repository dw-dengwei/daily-arXiv-ai-enhanced (branch `data`, commit
b4c542b7d61bff39f8b999b45b43f62b2bb94f75, the commit the May corpus was copied from), the month's files
`data/YYYY-MM-DD_AI_enhanced_Chinese.jsonl`. One comment per arXiv id (its last listing of the month), leaving out every
id of the May corpus (whose comments the rules were tuned on) and of the samples named by --leave-out. Of those, 260 are
drawn (or --with-words) with random.Random(2641) from the comments matching WORDS (as the earlier samples drew) and 40
(or --others) from the others; the rows are written without any label and without the parser's output, to be labelled by
reading.

    uv run python bench/venue_claims_draw.py GIT_DIR --month 2026-04 > rows.json
    uv run python bench/venue_claims_draw.py GIT_DIR --month 2026-03 \
        --leave-out tests/fixtures/venues/claims_april.json > rows.json
    uv run python bench/venue_claims_draw.py GIT_DIR --month 2026-02 \
        --leave-out tests/fixtures/venues/claims_{april,blind,heldout,march,sample}.json > rows.json
    uv run python bench/venue_claims_draw.py GIT_DIR --month 2026-01 \
        --leave-out tests/fixtures/venues/claims_{april,blind,february,heldout,march,sample}.json > rows.json
    uv run python bench/venue_claims_draw.py GIT_DIR --month 2025-12 --with-words 173 --others 27 \
        --leave-out tests/fixtures/venues/claims_{april,blind,february,heldout,january,march,sample}.json > rows.json
"""

import argparse
import calendar
import json
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.sources import corpus_comments  # noqa: E402

COMMIT = "b4c542b7d61bff39f8b999b45b43f62b2bb94f75"
WORDS = re.compile(
    r"accept|publish|appear|submitted|under review|camera|proceedings|workshop|findings|oral|spotlight|conference|"
    r"journal|\b20[0-3]\d\b",
    re.IGNORECASE,
)
SEED, WITH_WORDS, OTHERS = 2641, 260, 40


def days(month: str) -> list[str]:
    """Every day of the month "YYYY-MM"."""
    year, number = (int(part) for part in month.split("-"))
    return [f"{month}-{day:02d}" for day in range(1, calendar.monthrange(year, number)[1] + 1)]


def published_days(git_dir: str, month: str) -> list[str]:
    """The days of the month whose file the repository holds at COMMIT (it skips some days, as December 2025)."""
    names = subprocess.run(
        ["git", "--git-dir", git_dir, "ls-tree", "--name-only", COMMIT, "data/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return [day for day in days(month) if f"data/{day}_AI_enhanced_Chinese.jsonl" in names]


def main(git_dir: str, month: str, leave_out: list[Path], with_words: int, others_drawn: int) -> None:
    left_out = set(corpus_comments())
    for sample in leave_out:
        left_out |= {row["id"] for row in json.loads(sample.read_text(encoding="utf-8"))["rows"]}
    last: dict[str, str] = {}
    present = published_days(git_dir, month)
    print(f"{len(present)} of {len(days(month))} days present: {', '.join(present)}", file=sys.stderr)
    for day in present:
        text = subprocess.run(
            ["git", "--git-dir", git_dir, "show", f"{COMMIT}:data/{day}_AI_enhanced_Chinese.jsonl"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for line in text.splitlines():
            if line.strip():
                paper = json.loads(line)
                if paper["id"] not in left_out:
                    last[paper["id"]] = paper.get("comment") or ""
    commented = sorted((pid, c) for pid, c in last.items() if c.strip())
    words = [row for row in commented if WORDS.search(row[1])]
    others = [row for row in commented if not WORDS.search(row[1])]
    rng = random.Random(SEED)
    drawn = [("words", row) for row in rng.sample(words, with_words)] + [
        ("others", row) for row in rng.sample(others, others_drawn)
    ]
    counts = f"{len(last)} ids, {len(commented)} with a comment: {len(words)} with words, {len(others)} others"
    print(counts, file=sys.stderr)
    rows = [{"id": pid, "stratum": stratum, "comment": comment} for stratum, (pid, comment) in drawn]
    json.dump(rows, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", help="a clone of dw-dengwei/daily-arXiv-ai-enhanced holding COMMIT")
    parser.add_argument("--month", default="2026-04", help="YYYY-MM, the month whose daily files are read")
    parser.add_argument("--leave-out", type=Path, nargs="*", default=[], help="earlier samples whose ids are left out")
    parser.add_argument("--with-words", type=int, default=WITH_WORDS, help="how many comments matching WORDS")
    parser.add_argument("--others", type=int, default=OTHERS, help="how many comments not matching WORDS")
    arguments = parser.parse_args()
    main(arguments.git_dir, arguments.month, arguments.leave_out, arguments.with_words, arguments.others)
