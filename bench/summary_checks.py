"""Benchmark: how the summary checks (services/summarizer/checks.py) judge another system's summaries. Over the May
2026 corpus, deepseek-chat's five Chinese fields of every paper go through the checks that apply to them (CJK share,
TL;DR copy, numbers); prints the CJK-share distribution the threshold was chosen from and how often each check
fails. The corpus has no Chinese title, English TL;DR or keywords, so those take values that pass.

    uv run python bench/summary_checks.py [--corpus /work/shared/corpus/arxiv-daily-2026-05]
"""

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.summarizer.checks import MIN_CJK_SHARE, check_answer, cjk_share
from services.summarizer.prompt import SummaryAnswer
from tests.support.corpus import SHARED_CORPUS, paper_from_line, read_lines

FIELDS = {"tldr": "tldr_zh", "motivation": "motivation_zh", "method": "method_zh", "result": "result_zh"}
FIELDS["conclusion"] = "conclusion_zh"
PLACEHOLDER = "Summary generation failed"  # what the corpus holds where its model gave no summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=SHARED_CORPUS)
    args = parser.parse_args()
    lines: dict[str, dict] = {}
    for line in read_lines(sorted(args.corpus.glob("*.jsonl.gz"))):
        ai = line.get("AI") or {}
        if all(isinstance(ai.get(k), str) and ai[k] for k in FIELDS):
            lines.setdefault(line["id"], line)
    shares: list[float] = []
    failures: Counter[str] = Counter()
    failing_papers = placeholders = 0
    for line in lines.values():
        ai = line["AI"]
        placeholders += ai["tldr"] == PLACEHOLDER
        shares += [cjk_share(ai[k]) for k in FIELDS if ai[k] != PLACEHOLDER]
        answer = SummaryAnswer(
            title_zh="标题",
            tldr_en="-",
            keywords=[],
            institutions=[],
            ai_related=True,
            ai_reason="-",
            **{ours: ai[theirs] for theirs, ours in FIELDS.items()},
        )
        found = check_answer(answer, paper_from_line(line))
        failing_papers += bool(found)
        failures.update(f.check for f in found)
    shares.sort()
    n = len(shares)
    print(f"corpus {args.corpus}: {len(lines)} papers, {placeholders} with the English placeholder, {n} other fields")
    print(f"CJK share of a field: median {shares[n // 2]:.2f}, 1st percentile {shares[n // 100]:.2f}")
    for threshold in (0.3, MIN_CJK_SHARE, 0.6, 0.7):
        print(f"  fields under {threshold}: {sum(s < threshold for s in shares)}")
    print(f"papers failing a check: {failing_papers} ({failing_papers / len(lines):.1%})")
    for check in ("cjk_share", "tldr_copy", "numbers"):
        print(f"  {check}: {failures[check]} ({failures[check] / len(lines):.1%})")


if __name__ == "__main__":
    main()
