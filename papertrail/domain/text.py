"""Cleaning source text into readable text, the keys names and titles are compared by, and a paper's text digest.
No I/O."""

import hashlib
import html
import re
import unicodedata
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexencode import RULE_DICT, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

from schemas.paper import Paper

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
FORMULAS = re.compile(_FORMULA, re.DOTALL)
# An accent (\"o, \'{e}, {\c c}, \v{s}) or a letter command (\ss, {\o}), braced or not.
_ACCENT = r"""
    (?P<open>\{)?
    (?:
        \\(?P<mark>["'`^~=.]|[uvHckr](?![A-Za-z]))\s*
        (?:\{(?P<braced>[A-Za-z]|\\[ij])\}|(?P<bare>[A-Za-z]|\\[ij](?![A-Za-z])))
      | \\(?P<letter>ss|ae|AE|aa|AA|[oOlLi])(?![A-Za-z])(?:\{\})?
    )
    (?(open)\})
"""
ACCENT_AT = re.compile(_ACCENT, re.VERBOSE)
# One left-to-right pass over what arXiv metadata writes: a formula is skipped whole (it stays as the source
# wrote it, for the pages to render); an accent (\"o, \'{e}, {\c c}, \v{s}, \'{\i}) or a letter command (\ss,
# {\o}) becomes its letter; any other command is consumed whole, so no letter of a longer name (\cup, \circ,
# \varepsilon, \log) is ever read as an accent. An opening brace around an accent is taken only with its
# closing one, so braces stay balanced.
_LATEX_TOKEN = re.compile(
    r"(?P<math>" + _FORMULA + r")" + "|" + _ACCENT + r"| \\(?:[A-Za-z]+|.)",
    re.VERBOSE | re.DOTALL,
)
# Inline HTML some sources put in titles (`RED<sup>FM</sup>`): a title key drops it like LaTeX markup.
_INLINE_TAG = re.compile(r"</?(?:sup|sub|i|b|em|strong|tt|span)\b[^<>]*>", re.IGNORECASE)
# Commands that only style letters (font, shape, emphasis): a title key drops them as it drops case.
_STYLE_COMMAND = re.compile(
    r"\\(?:rm|it|bf|sf|tt|sc|sl|em|up|text(?:rm|it|bf|sf|tt|sc|sl|up|normal)?"
    r"|math(?:rm|bf|it|sf|tt|cal|bb|frak|scr|normal)?|emph|boldsymbol|bm|operatorname|mbox)(?![A-Za-z])\s*"
)


def latex_token(match: re.Match[str]) -> str:
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
    return _LATEX_TOKEN.sub(latex_token, text)


@lru_cache(maxsize=1)
def _latex_to_text() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def tex_math(latex: str) -> str:
    """A formula (ACL's `<tex-math>`) as readable text: `\\times` → ×, `\\approx 27\\%` → ≈27%."""
    try:
        return squash(_latex_to_text().latex_to_text(latex))
    except Exception:  # pylatexenc rejects some malformed input; the source text is still readable
        return squash(latex)


# Characters BibTeX entries write otherwise than pylatexenc's defaults, as the ACL Anthology's own entries do: a plain
# apostrophe for ’ (not \textquoteright), TeX's dashes, and í as \'i (not the dotless \'\i).
_BIBTEX_CHARACTERS = {
    ord("’"): "'",
    ord("–"): "--",
    ord("—"): "---",
    ord("í"): "\\'i",
    ord("ì"): "\\`i",
    ord("î"): "\\^i",
    ord("ï"): '\\"i',
}


@lru_cache(maxsize=1)
def _latex_encoder() -> UnicodeToLatexEncoder:
    # Braces around every replacement keep `{\"u}ller` one letter for BibTeX's sorting and case changes; characters
    # LaTeX has no name for (Chinese, say) stay as they are: biber and modern BibTeX read UTF-8.
    return UnicodeToLatexEncoder(
        conversion_rules=[UnicodeToLatexConversionRule(RULE_DICT, _BIBTEX_CHARACTERS), "defaults"],
        non_ascii_only=False,
        replacement_latex_protection="braces-all",
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


def latex_encoded(text: str) -> str:
    """Plain text as LaTeX, the form BibTeX values take: specials escaped and accents written as commands, each
    braced (`A&B` → `A{\\&}B`, `Müller` → `M{\\"u}ller`, `model’s` → `model{'}s`)."""
    return str(_latex_encoder().unicode_to_latex(text))


_TAG = re.compile(r"<[^>]+>")


def strip_html(text: str | None) -> str:
    """HTML tags dropped and entities resolved (`<i>LLM</i>s &amp; more` → `LLMs & more`)."""
    return html.unescape(_TAG.sub("", text or ""))


def readable(text: str | None) -> str:
    """Source text → readable text: HTML entities, LaTeX accents and line wraps resolved."""
    return squash(latex_accents_to_unicode(html.unescape(text or "")))


def fold(text: str) -> str:
    """Lower-case, diacritics removed, punctuation dropped, spaces squashed: the form keys compare in."""
    if not text.isascii():  # ASCII has nothing to decompose: most names, folded by the ten thousand
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    return squash(_NON_WORD.sub(" ", text.casefold()))


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
        title = _STYLE_COMMAND.sub("", FORMULAS.sub(_formula_text, title))
        title = title.replace("{", "").replace("}", "").replace("_", " ")
    return fold(title)


def paper_digest(paper: Paper) -> str:
    """sha256 of a paper's title, a blank line and its abstract: what its summary and its vector are made of, so one
    text has one digest whatever the paper. `summaries` and `paper_vectors` hold it: a change re-summarizes and
    re-embeds every paper."""
    return hashlib.sha256(f"{paper.title}\n\n{paper.abstract}".encode()).hexdigest()


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def has_han(text: str) -> bool:
    """Whether the text holds a Chinese character (CJK unified ideographs, extension A, compatibility)."""
    return _HAN.search(text) is not None


# Han (has_han's ranges), kana, Hangul syllables and Jamo, CJK symbols and full-width forms aside
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\u1100-\u11ff\uac00-\ud7af]")


def has_cjk(text: str) -> bool:
    """Whether the text holds a Chinese, Japanese or Korean character: a search a multilingual model must read."""
    return _CJK.search(text) is not None
