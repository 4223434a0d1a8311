"""Cleaning source text into readable text, and the keys names and titles are compared by. No I/O."""

import html
import re
import unicodedata
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

_NON_WORD = re.compile(r"[^\w\s]", re.UNICODE)
# LaTeX accent commands as arXiv metadata writes them: \"o, \'e, {\`a}, \~n, \c{c} ...
_LATEX_ACCENT = re.compile(r"\{?\\([\"'`^~=.uvHckr])\s*\{?([A-Za-z])\}?\}?")
_ACCENT_MARK = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
}
_LATEX_LETTER = {
    r"\ss": "ß",
    r"\o": "ø",
    r"\O": "Ø",
    r"\ae": "æ",
    r"\AE": "Æ",
    r"\l": "ł",
    r"\L": "Ł",
    r"\aa": "å",
    r"\AA": "Å",
    r"\i": "ı",
}


def squash(text: str | None) -> str:
    """Collapse runs of whitespace (line wraps included) into single spaces."""
    # str.split() splits on exactly the characters `\s` matches in a str pattern, several times faster
    return " ".join(text.split()) if text else ""


_LATEX_LETTER_PATTERNS = [
    (re.compile(r"\{?" + re.escape(command) + r"\b\}?"), letter) for command, letter in _LATEX_LETTER.items()
]


def _accent(match: re.Match[str]) -> str:
    return unicodedata.normalize("NFC", match.group(2) + _ACCENT_MARK[match.group(1)])


def latex_accents_to_unicode(text: str) -> str:
    if "\\" not in text:  # nearly all text: every command starts with a backslash (this was half the parse time)
        return text
    text = _LATEX_ACCENT.sub(_accent, text)
    for pattern, letter in _LATEX_LETTER_PATTERNS:
        text = pattern.sub(letter, text)
    return text


@lru_cache(maxsize=1)
def _latex_to_text() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def tex_math(latex: str) -> str:
    """A formula (ACL's `<tex-math>`) as readable text: `\\times` → ×, `\\approx 27\\%` → ≈27%."""
    try:
        return squash(_latex_to_text().latex_to_text(latex))
    except Exception:  # pylatexenc rejects some malformed input; the source text is still readable
        return squash(latex)


_TAG = re.compile(r"<[^>]+>")


def strip_html(text: str | None) -> str:
    """HTML tags dropped and entities resolved (`<i>LLM</i>s &amp; more` → `LLMs & more`)."""
    return html.unescape(_TAG.sub("", text or ""))


def readable(text: str | None) -> str:
    """Source text → readable text: HTML entities, LaTeX accents and line wraps resolved."""
    return squash(latex_accents_to_unicode(html.unescape(text or "")))


def fold(text: str) -> str:
    """Lower-case, diacritics removed, punctuation dropped, spaces squashed: the form keys compare in."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return squash(_NON_WORD.sub(" ", stripped.casefold()))


def title_key(title: str) -> str:
    return fold(title)
