"""Text-mode LaTeX in the corpus's abstracts read as text: this converter against pylatexenc's LatexNodes2Text.

Every distinct abstract of the corpus (a month of arXiv listings, `tests/fixtures/corpus`), as the normalizer stores
it (`readable`: entities and accents resolved), is read by `tex_plain` (the search document's `abstract_text`) and
`tex_html` (the pages), and by pylatexenc's LatexNodes2Text with formulas kept verbatim. Counted: abstracts changed,
abstracts whose formulas do not all come out as written, abstracts cut by more than a fifth (pylatexenc reads a bare
`%` as a comment), `\\texttt{…}` arguments lost, errors raised; and CPU time per abstract.

    uv run python bench/tex_text.py      (its output is the section of docs/benchmarks.md)
"""

import gzip
import html
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pylatexenc  # noqa: E402
from pylatexenc.latex2text import LatexNodes2Text  # noqa: E402

from papertrail.domain.tex import tex_plain  # noqa: E402
from papertrail.domain.text import readable  # noqa: E402
from services.query.web.format import tex_html  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus" / "arxiv-daily-2026-05"
# formulas left to right, `\$` a dollar sign (as the pages and the converter read them)
FORMULA = re.compile(r"\\\$|\$\$.+?\$\$|\$(?:[^$\\]|\\.)+\$|\\\(.+?\\\)|\\\[.+?\\\]", re.DOTALL)
TEXTTT = re.compile(r"\\texttt\{([^{}]+)\}")
ESCAPED = re.compile(r"\\([_%#&$])")
TAG = re.compile(r"<[^>]+>")


def abstracts() -> dict[str, str]:
    held: dict[str, str] = {}
    for path in sorted(CORPUS.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                held[record["id"]] = readable(record.get("summary"))
    return held


def measure(name: str, read: Callable[[str], str], texts: list[str]) -> str:
    changed = formulas_changed = cut = texttt_lost = raised = 0
    started = time.process_time()
    for text in texts:
        try:
            out = read(text)
        except Exception:
            raised += 1
            continue
        flat = " ".join(out.split())
        changed += out != text
        formulas = [f for f in FORMULA.findall(text) if f != "\\$"]
        formulas_changed += any(" ".join(f.split()) not in flat for f in formulas)
        cut += len(out) < 0.8 * len(text)
        texttt_lost += any(ESCAPED.sub(r"\1", argument) not in out for argument in TEXTTT.findall(text))
    per = (time.process_time() - started) / len(texts) * 1e6
    counts = [changed, formulas_changed, cut, texttt_lost, raised]
    return f"| {name} | " + " | ".join(f"{c:,}" for c in counts) + f" | {per:,.0f} µs |"


def main() -> None:
    texts = list(abstracts().values())
    print(f"{len(texts):,} distinct corpus abstracts, {sum(map(len, texts)) / len(texts):,.0f} characters on average")
    print()
    print("| reader | changed | formulas changed | cut by > 1/5 | `\\texttt` text lost | raised | CPU per abstract |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(measure("`tex_plain` (search)", tex_plain, texts))
    # the page's text: tags dropped, entities resolved (a formula's `<` is `&lt;` in the HTML, `<` to KaTeX)
    print(measure("`tex_html` (pages)", lambda text: html.unescape(TAG.sub("", str(tex_html(text)))), texts))
    name = f"pylatexenc {pylatexenc.__version__} `LatexNodes2Text`, math verbatim"
    print(measure(name, LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True).latex_to_text, texts))


if __name__ == "__main__":
    main()
