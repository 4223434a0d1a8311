"""Checks a model's summary must pass before it is kept: Chinese fields are Chinese, the TL;DR is written rather
than lifted from the abstract, every number comes from the paper, keywords come from the paper; no I/O.

Each check returns the problem in words the repair request quotes to the model, or None.
"""

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

from schemas.paper import Paper
from services.summarizer.prompt import SummaryAnswer

# A Chinese field keeps technical terms and model names in English, so it is measured as CJK characters against
# CJK characters plus Latin words (one word weighs as one character). Over the May 2026 corpus (4,717 papers,
# deepseek-chat's five Chinese fields each), the median field is 0.97 and 1% are under 0.68; 197 fields are under
# 0.3 (English answers) and only 2 more under 0.5: the threshold sits in that gap (bench/summary_checks.py).
MIN_CJK_SHARE = 0.5
# A TL;DR whose words are mostly one verbatim run of the abstract was copied, not written.
MAX_COPIED_SHARE = 0.6
MIN_COPY_WORDS = 8  # a shorter common run is a phrase both share (a method's name), not a copy

CHINESE_FIELDS = ("title_zh", "tldr_zh", "motivation_zh", "method_zh", "result_zh", "conclusion_zh")
SUMMARY_TEXT_FIELDS = (*CHINESE_FIELDS, "tldr_en")

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")
# 32,768 / 1 000 / 12.5 / .5 ; a comma or thin space groups thousands only before exactly three digits
# (ASCII look-arounds: a Chinese character before a number is a word character to `\w`)
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(?:\d{1,3}(?:[,\u2009\u202f ]\d{3})+(?!\d)|\d+)(?:\.\d+)?|(?<![A-Za-z0-9_])\.\d+"
)
# "1）", "(2)", "3、": a list's item markers, not figures
_ITEM_MARKER = re.compile(r"[(（]\d{1,2}[)）]|(?<![A-Za-z0-9_.,])\d{1,2}[)）、]")
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
    "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "single": 1, "double": 2, "twice": 2,
    "dozen": 12, "half": 50, "once": 1, "triple": 3, "dual": 2, "pair": 2, "first": 1, "second": 2, "third": 3,
    "fourth": 4, "fifth": 5, "percent": 100,
}  # fmt: skip
_STOPWORDS = frozenset(
    "a an and as at based by for from in into of on or the to via with using towards toward new".split()
)


@dataclass(frozen=True, slots=True)
class CheckFailure:
    check: str  # the metric's label: cjk_share, tldr_copy, numbers, keywords
    problem: str


def cjk_share(text: str) -> float:
    """CJK characters against CJK characters plus Latin words; 0 for text with neither."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN_WORD.findall(_CJK.sub(" ", text)))
    return cjk / (cjk + latin) if cjk + latin else 0.0


def check_chinese(answer: SummaryAnswer) -> str | None:
    english = [
        f"{name} ({share:.2f})"
        for name in CHINESE_FIELDS
        if (text := getattr(answer, name)).strip() and (share := cjk_share(text)) < MIN_CJK_SHARE
    ]
    if not english:
        return None
    return f"these fields must be written in Chinese but are mostly not (CJK share under {MIN_CJK_SHARE}): " + (
        ", ".join(english)
    )


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def copied_share(tldr: str, abstract: str) -> float:
    """The share of the TL;DR's words that are one verbatim run of the abstract's words (runs under MIN_COPY_WORDS
    count as nothing)."""
    mine, theirs = _words(tldr), _words(abstract)
    if not mine or not theirs:
        return 0.0
    match = SequenceMatcher(None, mine, theirs, autojunk=False).find_longest_match(0, len(mine), 0, len(theirs))
    return match.size / len(mine) if match.size >= MIN_COPY_WORDS else 0.0


def check_tldr(answer: SummaryAnswer, paper: Paper) -> str | None:
    copied = [
        name
        for name in ("tldr_en", "tldr_zh")
        if copied_share(getattr(answer, name), paper.abstract) > MAX_COPIED_SHARE
    ]
    if not copied:
        return None
    return f"{' and '.join(copied)} copies a passage of the abstract; write the TL;DR in your own words"


def _value(token: str) -> float:
    return float(re.sub(r"[,\u2009\u202f ]", "", token))


def numbers_in(text: str) -> set[float]:
    """The numbers a text states as digits: "32,768" and "32768" alike, "12.5%" as 12.5, "0.50" as 0.5."""
    text = _ITEM_MARKER.sub(" ", unicodedata.normalize("NFKC", text))
    return {_value(token) for token in _NUMBER.findall(text)}


def paper_numbers(paper: Paper) -> set[float]:
    """The numbers the paper's title and abstract state, in digits or in words ("three datasets"), each also as a
    fraction or a percentage of itself (0.125 and 12.5%)."""
    text = f"{paper.title}\n{paper.abstract}"
    found = numbers_in(text) | {_NUMBER_WORDS[w] for w in _words(text) if w in _NUMBER_WORDS}
    return found | {n * 100 for n in found} | {n / 100 for n in found}


def _shown(value: float) -> str:
    return f"{value:g}" if value < 1e15 else str(value)


def check_numbers(answer: SummaryAnswer, paper: Paper) -> str | None:
    known = {round(n, 6) for n in paper_numbers(paper)}
    invented: dict[float, list[str]] = {}
    for name in SUMMARY_TEXT_FIELDS:
        for number in numbers_in(getattr(answer, name)):
            if round(number, 6) not in known:
                invented.setdefault(number, []).append(name)
    if not invented:
        return None
    listed = "; ".join(f"{_shown(n)} (in {', '.join(fields)})" for n, fields in sorted(invented.items()))
    return f"numbers that are not in the title or abstract: {listed}; state only numbers the paper gives"


def _stem(word: str) -> str:
    return word.lower()[:5]


def _initials(words: list[str], length: int) -> set[str]:
    return {"".join(w[0] for w in words[i : i + length]) for i in range(len(words) - length + 1)}


def keyword_from_paper(keyword: str, paper: Paper) -> bool:
    """A keyword comes from the paper when one of its words shares a stem with a word of the title or abstract,
    when it is one of the paper's categories, or when it is an acronym of consecutive words there ("LLM")."""
    text = f"{paper.title}\n{paper.abstract}"
    if keyword.strip().lower() in {c.lower() for c in paper.categories} or keyword.strip().lower() in text.lower():
        return True
    words = [w for w in _words(keyword) if w not in _STOPWORDS]
    paper_words = _words(text)
    stems = {_stem(w) for w in paper_words if len(w) >= 3}
    if any(len(w) >= 3 and _stem(w) in stems for w in words):
        return True
    acronym = re.sub(r"s$", "", keyword.strip())
    if acronym.isupper() and 2 <= len(acronym) <= 6:
        content = [w for w in paper_words if w not in _STOPWORDS]
        return acronym.lower() in _initials(content, len(acronym)) | _initials(paper_words, len(acronym))
    return False


def check_keywords(answer: SummaryAnswer, paper: Paper) -> str | None:
    foreign = [k for k in answer.keywords if not keyword_from_paper(k, paper)]
    if not foreign:
        return None
    return "keywords that do not come from the paper's title, abstract or categories: " + ", ".join(foreign)


CHECKS: dict[str, Callable[[SummaryAnswer, Paper], str | None]] = {
    "cjk_share": lambda answer, _paper: check_chinese(answer),
    "tldr_copy": check_tldr,
    "numbers": check_numbers,
    "keywords": check_keywords,
}


def check_answer(answer: SummaryAnswer, paper: Paper) -> list[CheckFailure]:
    """Every check the answer fails, in a fixed order."""
    return [CheckFailure(name, problem) for name, check in CHECKS.items() if (problem := check(answer, paper))]
