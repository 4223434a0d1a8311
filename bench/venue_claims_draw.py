"""Draw the April 2026 blind sample of venue claims (tests/fixtures/venues/claims_april.json, issue 41).

Its comments come from the days no earlier sample used: the April 2026 files of the public repository
dw-dengwei/daily-arXiv-ai-enhanced (branch `data`, commit b4c542b7d61bff39f8b999b45b43f62b2bb94f75, the
commit the May corpus was copied from), `data/2026-04-DD_AI_enhanced_Chinese.jsonl`. One comment per arXiv
id (its last April listing), leaving out every id of the May corpus (whose comments the rules were tuned on).
Of those, 260 are drawn with random.Random(2641) from the comments matching WORDS (as the earlier samples
drew) and 40 from the others; the rows are written without any label and without the parser's output, to be
labelled by reading.

    uv run python bench/venue_claims_draw.py GIT_DIR > rows.json
"""

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
DAYS = [f"2026-04-{day:02d}" for day in range(1, 31)]
WORDS = re.compile(
    r"accept|publish|appear|submitted|under review|camera|proceedings|workshop|findings|oral|spotlight|conference|"
    r"journal|\b20[0-3]\d\b",
    re.IGNORECASE,
)
SEED, WITH_WORDS, OTHERS = 2641, 260, 40


def main(git_dir: str) -> None:
    may = set(corpus_comments())
    last: dict[str, str] = {}
    for day in DAYS:
        text = subprocess.run(
            ["git", "--git-dir", git_dir, "show", f"{COMMIT}:data/{day}_AI_enhanced_Chinese.jsonl"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for line in text.splitlines():
            if line.strip():
                paper = json.loads(line)
                if paper["id"] not in may:
                    last[paper["id"]] = paper.get("comment") or ""
    commented = sorted((pid, c) for pid, c in last.items() if c.strip())
    words = [row for row in commented if WORDS.search(row[1])]
    others = [row for row in commented if not WORDS.search(row[1])]
    rng = random.Random(SEED)
    drawn = [("words", row) for row in rng.sample(words, WITH_WORDS)] + [
        ("others", row) for row in rng.sample(others, OTHERS)
    ]
    counts = f"{len(last)} ids, {len(commented)} with a comment: {len(words)} with words, {len(others)} others"
    print(counts, file=sys.stderr)
    rows = [{"id": pid, "stratum": stratum, "comment": comment} for stratum, (pid, comment) in drawn]
    json.dump(rows, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
