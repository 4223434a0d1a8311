"""Text-mode LaTeX read into marked-up parts: what arXiv abstracts write outside formulas, for the pages to render
as HTML and the search document to read as plain text. No I/O."""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from papertrail.domain.text import ACCENT_AT, FORMULAS, latex_token, squash

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
            formula = FORMULAS.match(text, position)
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
            accent = ACCENT_AT.match(text, position)
            if accent:
                add(latex_token(accent))
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
    if accent := ACCENT_AT.match(text, position):
        add(latex_token(accent))
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
