"""Cleaning source text into readable text, the keys names and titles are compared by, and a paper's text digest.
No I/O."""

import hashlib
import html
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
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
_FORMULAS = re.compile(_FORMULA, re.DOTALL)
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
_ACCENT_AT = re.compile(_ACCENT, re.VERBOSE)
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
        title = _STYLE_COMMAND.sub("", _FORMULAS.sub(_formula_text, title))
        title = title.replace("{", "").replace("}", "").replace("_", " ")
    return fold(title)


# Text-mode LaTeX as the author meant it: what arXiv abstracts write outside formulas (`30\%`, `\texttt{m2}`,
# `\emph{e.g.}`, `{\em x}`, `\href{u}{here}`, `~`, `--`, ``` ``…'' ```, accents) read as marked-up parts that the
# pages render as HTML and the search document as plain text. Formulas stay exactly as written (KaTeX renders them
# in the browser), and so does whatever is not text-mode markup: a command of the authors' own (`\method{}`),
# `\cite{x}`, a bare `%` (abstracts use it as a percent sign, not a comment), and braces that are not a command's
# argument (`K in {100, 500}`, `10^{-27}`): arXiv shows those as written too. pylatexenc's LatexNodes2Text was
# measured on the corpus's 4,717 abstracts: it drops `\texttt{…}`, reads a bare `%` as a comment (956 abstracts
# lose their rest), changes 33 abstracts' formulas and raises on 27 (`\href`), so this small converter does it.


@dataclass(frozen=True, slots=True)
class Formula:
    """A formula as the source wrote it, delimiters included."""

    source: str


@dataclass(frozen=True, slots=True)
class Dollar:
    """A dollar sign the source escaped (`\\$5`): shown as `$`, never read as a formula's delimiter."""


@dataclass(frozen=True, slots=True)
class Styled:
    """Text in a style: bold, italic, code, smallcaps or underline."""

    style: str
    parts: "tuple[TexPart, ...]"


@dataclass(frozen=True, slots=True)
class Link:
    """`\\url{u}` (its text is the address) or `\\href{u}{text}`."""

    url: str
    parts: "tuple[TexPart, ...]"


TexPart = str | Formula | Dollar | Styled | Link

# \textbf{…} and its kin: the style of the argument (None: the argument's text as is)
_STYLE_OF: dict[str, str | None] = {
    "textbf": "bold",
    "textit": "italic",
    "textsl": "italic",
    "emph": "italic",
    "texttt": "code",
    "textsc": "smallcaps",
    "underline": "underline",
    "textrm": None,
    "textsf": None,
    "textup": None,
    "textmd": None,
    "textnormal": None,
    "mbox": None,
}
# {\bf …}, {\em …}: the style of the rest of the group
_SWITCH_OF = {
    "bf": "bold",
    "bfseries": "bold",
    "it": "italic",
    "itshape": "italic",
    "em": "italic",
    "sl": "italic",
    "tt": "code",
    "ttfamily": "code",
    "sc": "smallcaps",
    "scshape": "smallcaps",
}
_SYMBOL_OF = {
    "ldots": "…",
    "dots": "…",
    "textendash": "–",
    "textemdash": "—",
    "textasciitilde": "~",
    "textbackslash": "\\",
    "textquotedblleft": "“",
    "textquotedblright": "”",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
}
# `\%` and the other escaped characters and spacing commands; `\,` is a thin space that does not break
_ESCAPED = {
    "%": "%",
    "&": "&",
    "#": "#",
    "_": "_",
    "{": "{",
    "}": "}",
    " ": " ",
    "\\": " ",
    ",": "\u202f",
    ";": " ",
    ":": " ",
    "!": "",
    "-": "",
    "/": "",
    "@": "",
}
_PLAIN_RUN = re.compile(r"[^\\${}~]+")
_COMMAND_NAME = re.compile(r"[A-Za-z]+")
_ARGUMENT_OPEN = re.compile(r"\s*\{")
_SWITCH_SPACE = re.compile(r"\s*")
_GROUP_SWITCH = re.compile(r"\{\s*\\(" + "|".join(_SWITCH_OF) + r")(?![A-Za-z])")
_URL_ESCAPE = re.compile(r"\\([_%#&~$])")
_DASH = re.compile(r"(?<![<!\-])-{2,3}(?![\->])")  # not an arrow (`-->`) nor a comment mark (`<!--`)
_SINGLE_QUOTES = re.compile(r"`([^`'\n]{1,80}?)'(?![A-Za-z])")
_MARKUP_HINT = re.compile(r"[\\~{}`$]|--|''")
# Nesting deeper than this is read as written: no real abstract comes near, and the renderers recurse.
_MAX_DEPTH = 32


def _typography(run: str) -> str:
    """LaTeX's ligatures in running text: `--` –, `---` —, ``` `` ``` “, `''` ”, `` `x' `` ‘x’."""
    if "-" in run:
        run = _DASH.sub(lambda m: "—" if len(m.group(0)) == 3 else "–", run)
    if "`" in run or "'" in run:
        run = _SINGLE_QUOTES.sub("‘\\1’", run.replace("``", "“").replace("''", "”"))
    return run


def _balanced(text: str, start: int) -> int:
    """The index just past the `}` closing the `{` at `start`, or -1."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "\\":
            continue
        if char == "{" and text[index - 1] != "\\":
            depth += 1
        elif char == "}" and text[index - 1] != "\\":
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


@dataclass(slots=True)
class _Frame:
    kind: str  # root, styled (an argument or a group's switch), switch (to the frame's end), literal ({…} kept), link
    opening: str  # the source that opened it, given back if it never closes
    style: str | None = None
    url: str = ""
    code: bool = False  # in \texttt: no ligatures
    parts: list[TexPart] = field(default_factory=list)

    def close(self) -> TexPart | list[TexPart]:
        if self.kind == "literal":
            return ["{", *self.parts, "}"]
        if self.kind == "link":
            return Link(self.url, tuple(self.parts))
        return Styled(self.style, tuple(self.parts)) if self.style else list(self.parts)


def tex_parts(text: str) -> list[TexPart]:
    """Text with text-mode LaTeX read into parts; see the note above for what is read and what stays."""
    stack = [_Frame("root", "")]
    overflow = 0  # groups opened past _MAX_DEPTH, read as written

    def add(part: TexPart | list[TexPart]) -> None:
        if isinstance(part, list):
            stack[-1].parts.extend(part)
        else:
            stack[-1].parts.append(part)

    def push(frame: _Frame) -> None:
        frame.code = frame.code or stack[-1].code or frame.style == "code"
        stack.append(frame)

    def close_switches() -> None:
        while stack[-1].kind == "switch":
            add(stack.pop().close())

    position, end = 0, len(text)
    while position < end:
        char = text[position]
        if run := _PLAIN_RUN.match(text, position):
            add(run.group(0) if stack[-1].code else _typography(run.group(0)))
            position = run.end()
        elif char == "$" or text.startswith(("\\(", "\\["), position):
            formula = _FORMULAS.match(text, position)
            source = formula.group(0) if formula else text[position : position + (1 if char == "$" else 2)]
            add(Formula(source) if formula else source)
            position += len(source)
        elif char == "~":
            add("~" if position and text[position - 1] == "/" else "\u00a0")  # `/~user` in an address stays
            position += 1
        elif char == "}":
            position += 1
            close_switches()
            if overflow:
                overflow -= 1
                add("}")
            elif len(stack) == 1:
                add("}")
            else:
                closed = stack.pop().close()
                add(closed)
        elif char == "{":
            accent = _ACCENT_AT.match(text, position)
            if accent:
                add(_latex_token(accent))
                position = accent.end()
            elif len(stack) > _MAX_DEPTH:
                overflow += 1
                add("{")
                position += 1
            elif text.startswith(("{}", "{,}"), position):  # `\LaTeX{}`, `3{,}003`
                add("," if text[position + 1] == "," else "")
                position += 2 if text[position + 1] == "}" else 3
            elif switch := _GROUP_SWITCH.match(text, position):
                push(_Frame("styled", "{", style=_SWITCH_OF[switch.group(1)]))
                position = _SWITCH_SPACE.match(text, switch.end()).end()  # type: ignore[union-attr]
            else:
                push(_Frame("literal", "{"))
                position += 1
        else:  # a backslash
            position = _command(text, position, stack, add, push)
    while len(stack) > 1:  # unclosed: given back as written
        frame = stack.pop()
        if frame.kind == "switch":
            add(frame.close())
        else:
            add([frame.opening, *frame.parts])
    return stack[0].parts


def _command(
    text: str,
    position: int,
    stack: list[_Frame],
    add: Callable[[TexPart | list[TexPart]], None],
    push: Callable[[_Frame], None],
) -> int:
    """Read the command at `position` (a backslash), add what it reads as, return where reading goes on."""
    following = text[position + 1 : position + 2]
    if following == "$":
        add(Dollar())
        return position + 2
    if following in _ESCAPED:
        add(_ESCAPED[following])
        return position + 2
    if accent := _ACCENT_AT.match(text, position):
        add(_latex_token(accent))
        return accent.end()
    name_match = _COMMAND_NAME.match(text, position + 1)
    if not name_match:
        add(text[position : position + 2])
        return position + 2
    name, after = name_match.group(0), name_match.end()
    argument = _ARGUMENT_OPEN.match(text, after)
    deep = len(stack) > _MAX_DEPTH
    if name in _STYLE_OF and argument and not deep:
        push(_Frame("styled", text[position : argument.end()], style=_STYLE_OF[name]))
        return argument.end()
    if name in ("url", "href", "textcolor") and argument and not deep:
        close = _balanced(text, argument.end() - 1)
        if close != -1:
            first = text[argument.end() : close - 1]
            if name == "url":
                url = _URL_ESCAPE.sub(r"\1", first)
                add(Link(url, (url,)))
                return close
            second = _ARGUMENT_OPEN.match(text, close)
            if second:
                opening = text[position : second.end()]
                if name == "href":
                    push(_Frame("link", opening, url=_URL_ESCAPE.sub(r"\1", first)))
                else:  # \textcolor{blue}{here}: the text, without its colour
                    push(_Frame("styled", opening))
                return second.end()
    if name in _SWITCH_OF and not deep:
        push(_Frame("switch", "", style=_SWITCH_OF[name]))
        return _SWITCH_SPACE.match(text, after).end()  # type: ignore[union-attr]
    if name in _SYMBOL_OF:
        add(_SYMBOL_OF[name])
        return after + 2 if text.startswith("{}", after) else after
    if text.startswith("{}", after):  # `\method{}`: the authors' own command, kept whole
        after += 2
    add(text[position:after])  # the authors' own command, \cite …: as written
    return after


def tex_plain_parts(parts: Iterable[TexPart]) -> str:
    """Parts as plain text: styles dropped, a link's text with its address, formulas as written."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Formula):
            out.append(part.source)
        elif isinstance(part, Dollar):
            out.append("$")
        elif isinstance(part, Styled):
            out.append(tex_plain_parts(part.parts))
        else:
            shown = tex_plain_parts(part.parts)
            out.append(shown if shown == part.url else f"{shown} ({part.url})")
    return "".join(out)


def tex_plain(text: str | None) -> str:
    """Text-mode LaTeX as plain text (`30\\%` → `30%`, `\\texttt{m2}` → `m2`), formulas as written, spaces squashed
    (a non-breaking one too): the text a search reads."""
    if not text:
        return ""
    if not _MARKUP_HINT.search(text):
        return squash(text)
    return squash(tex_plain_parts(tex_parts(text)))


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
