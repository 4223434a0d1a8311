"""Cleaning source text into readable text, and the keys names and titles are compared by. No I/O."""

import html
import re
import unicodedata
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

_NON_WORD = re.compile(r"[^\w\s]", re.UNICODE)
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
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "l": "ł",
    "L": "Ł",
    "aa": "å",
    "AA": "Å",
    "i": "ı",
}
# A formula as arXiv metadata writes one: $…$, $$…$$, \(…\) or \[…\]; `\$` is a dollar sign, not a delimiter.
_FORMULA = r"\$\$.+?\$\$|\$(?:[^$\\]|\\.)+\$|\\\(.+?\\\)|\\\[.+?\\\]"
_FORMULAS = re.compile(_FORMULA, re.DOTALL)
# One left-to-right pass over what arXiv metadata writes: a formula is skipped whole (it stays as the source
# wrote it, for the pages to render); an accent (\"o, \'{e}, {\c c}, \v{s}, \'{\i}) or a letter command (\ss,
# {\o}) becomes its letter; any other command is consumed whole, so no letter of a longer name (\cup, \circ,
# \varepsilon, \log) is ever read as an accent. An opening brace around an accent is taken only with its
# closing one, so braces stay balanced.
_LATEX_TOKEN = re.compile(
    r"(?P<math>" + _FORMULA + r")"
    r"""
  | (?P<open>\{)?
    (?:
        \\(?P<mark>["'`^~=.]|[uvHckr](?![A-Za-z]))\s*
        (?:\{(?P<braced>[A-Za-z]|\\[ij])\}|(?P<bare>[A-Za-z]|\\[ij](?![A-Za-z])))
      | \\(?P<letter>ss|ae|AE|aa|AA|[oOlLi])(?![A-Za-z])(?:\{\})?
    )
    (?(open)\})
  | \\(?:[A-Za-z]+|.)
    """,
    re.VERBOSE | re.DOTALL,
)
# Inline HTML some sources put in titles (`RED<sup>FM</sup>`): a title key drops it like LaTeX markup.
_INLINE_TAG = re.compile(r"</?(?:sup|sub|i|b|em|strong|tt|span)\b[^<>]*>", re.IGNORECASE)
# Commands that only style letters (font, shape, emphasis): a title key drops them as it drops case.
_STYLE_COMMAND = re.compile(
    r"\\(?:rm|it|bf|sf|tt|sc|sl|em|up|text(?:rm|it|bf|sf|tt|sc|sl|up|normal)?"
    r"|math(?:rm|bf|it|sf|tt|cal|bb|frak|scr|normal)?|emph|boldsymbol|bm|operatorname|mbox)(?![A-Za-z])\s*"
)


def _latex_token(match: re.Match[str]) -> str:
    mark, letter = match.group("mark"), match.group("letter")
    if mark:
        base = (match.group("braced") or match.group("bare")).lstrip("\\")  # \i, \j: dotless, to carry the accent
        return unicodedata.normalize("NFC", base + _ACCENT_MARK[mark])
    if letter:
        return _LATEX_LETTER[letter]
    return match.group(0)


def squash(text: str | None) -> str:
    """Collapse runs of whitespace (line wraps included) into single spaces."""
    # str.split() splits on exactly the characters `\s` matches in a str pattern, several times faster
    return " ".join(text.split()) if text else ""


def latex_accents_to_unicode(text: str) -> str:
    """LaTeX accents and letters outside formulas as Unicode (`M\\"uller` → `Müller`); formulas untouched."""
    if "\\" not in text:  # nearly all text: every command starts with a backslash (this was half the parse time)
        return text
    return _LATEX_TOKEN.sub(_latex_token, text)


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


def _formula_text(match: re.Match[str]) -> str:
    formula = match.group(0)
    delimiter = 2 if formula.startswith(("$$", "\\(", "\\[")) else 1
    return tex_math(formula[delimiter:-delimiter])


def title_key(title: str) -> str:
    """`fold` with LaTeX and inline HTML markup folded too: arXiv's `RED$^{\\rm FM}$: …`, the ACL Anthology's
    `RED<tex-math>^{\\textrm{FM}}</tex-math>: …` (read as `RED^FM: …`), `RED^{\\textrm{FM}}: …` and
    `RED<sup>FM</sup>: …` are one title.

    A formula is read as the ACL parser reads `<tex-math>` (`$\\alpha$` → α), style commands, braces and inline
    tags go, and `_` and a tag separate like `^`.
    """
    if "<" in title:
        title = _INLINE_TAG.sub(" ", title)
    if "\\" in title or "$" in title or "{" in title or "_" in title:
        title = _STYLE_COMMAND.sub("", _FORMULAS.sub(_formula_text, title))
        title = title.replace("{", "").replace("}", "").replace("_", " ")
    return fold(title)
