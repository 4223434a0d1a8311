"""Keyword expressions: parse `retrieval AND ("language model" OR LLM) NOT survey` and evaluate it. No I/O.

Grammar (NOT binds tightest, then AND, then OR; adjacent terms are joined by an implicit AND, so
`a NOT b` reads `a AND NOT b`):

    expression := or
    or         := and ( "OR" and )*
    and        := unary ( ["AND"] unary )*
    unary      := "NOT" unary | "(" or ")" | term
    term       := word | "quoted phrase"        a trailing * on a word or phrase matches as a prefix

Terms are folded like every other key (case and diacritics folded, punctuation becomes a space) and match
whole words: `LLM` hits "LLM" and "llm" but not "LLMs"; `LLM*` hits all three. A term in Chinese (Japanese, Korean)
matches anywhere in the text, as those languages put no spaces between words; written without quotes it is cut into
words the way Meilisearch cuts a Chinese search (jieba-rs, without its HMM) and needs all of them, anywhere:
`扩散模型加速` reads `扩散 AND 模型 AND 加速`, as a search of 扩散模型加速 does; `"扩散模型加速"` stays one phrase.
Operators are the upper-case
words AND, OR, NOT; lower-case "and" / "or" / "not" are ordinary words. An expression must need at least
one term to occur (`NOT survey` alone would match nearly every paper), so that only follows whose terms
occurred are ever evaluated. Parentheses and NOTs nest at most MAX_DEPTH (32) deep.
"""

import re
from collections.abc import Callable, Collection, Set
from dataclasses import dataclass

import rjieba

from papertrail.domain.text import fold, has_cjk

MAX_LENGTH = 2000
# Parentheses and NOTs nested deeper than this are refused: every walk of the tree recurses, and ~330 levels would
# pass Python's recursion limit (a RecursionError, not a message); real follows nest a few levels.
MAX_DEPTH = 32
_TOKEN = re.compile(r'\s*(?:(?P<lp>\()|(?P<rp>\))|"(?P<phrase>[^"]*)(?P<closed>"?)|(?P<word>[^\s()"]+))')


class ExpressionError(ValueError):
    """An expression that cannot be parsed; the message names the problem and where it is."""


@dataclass(frozen=True, slots=True)
class Term:
    """A folded phrase, matched on word boundaries; `prefix` when written with a trailing *. `written` is the unquoted
    Chinese term it is one word of, as its follow wrote it (folded)."""

    text: str
    prefix: bool = False
    written: str = ""

    @property
    def key(self) -> str:
        return self.text + "*" if self.prefix else self.text

    def evaluate(self, hits: Collection[str]) -> bool:
        return self.key in hits


@dataclass(frozen=True, slots=True)
class Not:
    operand: "Node"

    def evaluate(self, hits: Collection[str]) -> bool:
        return not self.operand.evaluate(hits)


@dataclass(frozen=True, slots=True)
class And:
    operands: tuple["Node", ...]

    def evaluate(self, hits: Collection[str]) -> bool:
        return all(o.evaluate(hits) for o in self.operands)


@dataclass(frozen=True, slots=True)
class Or:
    operands: tuple["Node", ...]

    def evaluate(self, hits: Collection[str]) -> bool:
        return any(o.evaluate(hits) for o in self.operands)


Node = Term | Not | And | Or


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed expression: its tree, every term it mentions, and the terms that count as reasons."""

    text: str
    root: Node
    terms: frozenset[str]
    positive_terms: frozenset[str]  # terms not under a NOT: the ones a match can be explained by
    triggers: frozenset[str]  # one of these occurs in every paper the expression holds for
    # the positive terms as written: an unquoted Chinese term whole, not the words it is cut into (what a search of
    # the held papers asks for, and what the follow's page names)
    written_terms: frozenset[str] = frozenset()
    # a positive term key → the term as written, where they differ: a reason names 扩散模型加速, not 扩散 (a word of
    # two written terms, or written alone too, is named as itself)
    shown: tuple[tuple[str, str], ...] = ()

    def shown_as(self) -> dict[str, str]:
        return dict(self.shown)

    def evaluate(self, hits: Collection[str]) -> bool:
        """Whether the expression holds when exactly the term keys in `hits` occurred."""
        return self.root.evaluate(hits)

    def term_objects(self) -> list[Term]:
        return list(_walk(self.root))


Predicate = Callable[[Set[str]], bool]


def compile_predicate(expression: Expression) -> Predicate:
    """The expression as one closure over a set of term keys that occurred: same answers as evaluate(), faster.

    The matcher evaluates ~100 candidate rules per paper, so the tree walk with generators is replaced by
    nested closures, and an AND / OR of plain terms by one C-level set operation.
    """
    return _compile(expression.root)


def _compile(node: Node) -> Predicate:
    if isinstance(node, Term):
        key = node.key
        return lambda hits: key in hits
    if isinstance(node, Not):
        inner = _compile(node.operand)
        return lambda hits: not inner(hits)
    if all(isinstance(o, Term) for o in node.operands):
        keys = frozenset(o.key for o in node.operands)  # type: ignore[union-attr]
        if isinstance(node, And):
            return keys.issubset
        return lambda hits: not keys.isdisjoint(hits)
    parts = tuple(_compile(o) for o in node.operands)
    if len(parts) == 2:
        first, second = parts
        if isinstance(node, And):
            return lambda hits: first(hits) and second(hits)
        return lambda hits: first(hits) or second(hits)
    if isinstance(node, And):
        return lambda hits: all(p(hits) for p in parts)
    return lambda hits: any(p(hits) for p in parts)


def _walk(node: Node) -> list[Term]:
    if isinstance(node, Term):
        return [node]
    if isinstance(node, Not):
        return _walk(node.operand)
    return [t for o in node.operands for t in _walk(o)]


def _triggers(node: Node) -> frozenset[str] | None:
    """Terms of which at least one must occur for `node` to hold (None: it can hold with none occurring).

    For an AND only its most selective operand counts — the fewest terms, then the longest — so a follow
    is looked at only when a term it cannot do without occurred.
    """
    if isinstance(node, Term):
        return frozenset({node.key})
    if isinstance(node, Not):
        return None
    options = [_triggers(o) for o in node.operands]
    if isinstance(node, Or):
        return None if any(o is None for o in options) else frozenset().union(*options)  # type: ignore[arg-type]
    usable = [o for o in options if o is not None]
    if not usable:
        return None
    return min(usable, key=lambda terms: (len(terms), -sum(map(len, terms)), sorted(terms)))


def _positive(node: Node, negated: bool = False) -> list[Term]:
    if isinstance(node, Term):
        return [] if negated else [node]
    if isinstance(node, Not):
        return _positive(node.operand, not negated)
    return [t for o in node.operands for t in _positive(o, negated)]


@dataclass(slots=True)
class _Token:
    kind: str  # "(", ")", "AND", "OR", "NOT", "term"
    position: int  # 1-based character position in the expression, for messages
    term: Node | None = None  # a Term, or the AND of the words an unquoted Chinese term is cut into
    raw: str = ""


def _make_term(raw: str, position: int, quoted: bool) -> Node:
    prefix = raw.endswith("*")
    text = fold(raw.rstrip("*"))
    if not text:
        what = "an empty phrase" if quoted else f"{raw!r} has no letters or digits"
        raise ExpressionError(f"{what} at position {position}")
    if "*" in text or "*" in raw.rstrip("*"):
        raise ExpressionError(f"* is only allowed at the end of a term (position {position})")
    if not quoted and has_cjk(text):
        return _chinese_words(text)
    return Term(text, prefix)


def _chinese_words(text: str) -> Node:
    """An unquoted Chinese term as the words Meilisearch cuts it into (charabia's Chinese segmenter: jieba-rs without
    its HMM, the same dictionary), every one required. A Chinese word is matched anywhere, so a trailing * adds
    nothing to it."""
    words = list(dict.fromkeys(w for w in rjieba.cut(text, hmm=False) if not w.isspace()))
    if len(words) == 1:
        return Term(words[0])
    return And(tuple(Term(word, written=text) for word in words))


def chinese_words_of(text: str) -> set[str]:
    """The words Meilisearch cuts a Chinese text into (the segmenter `_chinese_words` cuts a term with)."""
    return set(rjieba.cut(text, hmm=False))


def chinese_words(text: str) -> list[str]:
    """The words an unquoted Chinese term is cut into, for a reader to see how a follow of it will match."""
    node = _make_term(text, 1, quoted=False)
    return [t.text for t in _walk(node)]


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        assert match is not None  # every non-space character starts one of the alternatives
        start = match.start() + len(match.group(0)) - len(match.group(0).lstrip()) + 1
        if match.group("lp"):
            tokens.append(_Token("(", start))
        elif match.group("rp"):
            tokens.append(_Token(")", start))
        elif match.group("phrase") is not None:
            if not match.group("closed"):
                raise ExpressionError(f"unclosed quote at position {start}")
            tokens.append(_Token("term", start, _make_term(match.group("phrase"), start, quoted=True)))
        else:
            word = match.group("word")
            if word in ("AND", "OR", "NOT"):
                tokens.append(_Token(word, start, raw=word))
            else:
                tokens.append(_Token("term", start, _make_term(word, start, quoted=False), raw=word))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.depth = 0  # parentheses and NOTs open around the current token

    def peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def parse(self) -> Node:
        if not self.tokens:
            raise ExpressionError("the expression is empty")
        node = self.or_()
        extra = self.peek()
        if extra is not None:
            assert extra.kind == ")"  # anything else would have been consumed as an implicit AND
            raise ExpressionError(f"unbalanced parenthesis at position {extra.position}: nothing opened it")
        return node

    def or_(self) -> Node:
        operands = [self.and_()]
        while (token := self.peek()) is not None and token.kind == "OR":
            self.take()
            operands.append(self.and_(after=token))
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def and_(self, after: _Token | None = None) -> Node:
        operands = [self.unary(after)]
        while (token := self.peek()) is not None and token.kind in ("AND", "NOT", "term", "("):
            if token.kind == "AND":
                self.take()
                operands.append(self.unary(after=token))
            else:
                operands.append(self.unary())  # implicit AND between adjacent terms
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def unary(self, after: _Token | None = None) -> Node:
        token = self.peek()
        if token is None:
            if after is not None:
                raise ExpressionError(f"{after.kind} needs a term after it (position {after.position})")
            raise ExpressionError("the expression ends where a term was expected")
        if token.kind in ("NOT", "("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ExpressionError(
                    f"parentheses and NOTs nest more than {MAX_DEPTH} deep at position {token.position}"
                )
            node = self.negated(token) if token.kind == "NOT" else self.grouped(token)
            self.depth -= 1
            return node
        if token.kind == "term":
            self.take()
            assert token.term is not None
            return token.term
        if after is not None:
            raise ExpressionError(f"{after.kind} needs a term after it (position {after.position})")
        if token.kind == ")":
            raise ExpressionError(f"unbalanced parenthesis at position {token.position}: nothing opened it")
        raise ExpressionError(f"{token.kind} at position {token.position} needs a term before it")

    def negated(self, token: _Token) -> Node:
        self.take()
        return Not(self.unary(after=token))

    def grouped(self, token: _Token) -> Node:
        self.take()
        if (inner := self.peek()) is not None and inner.kind == ")":
            raise ExpressionError(f"empty parentheses at position {token.position}")
        node = self.or_()
        closing = self.peek()
        if closing is None or closing.kind != ")":
            raise ExpressionError(f"unbalanced parenthesis at position {token.position}: it is never closed")
        self.take()
        return node


def parse_expression(text: str) -> Expression:
    """Parse a keyword expression; raise ExpressionError naming the problem and its position."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression is {len(text)} characters long; at most {MAX_LENGTH} are allowed")
    root = _Parser(text).parse()
    terms = frozenset(t.key for t in _walk(root))
    triggers = _triggers(root)
    if triggers is None or root.evaluate(frozenset()):
        raise ExpressionError(
            "the expression matches papers that contain none of its terms; add a term that must occur"
        )
    positive = _positive(root)
    return Expression(
        text=text,
        root=root,
        terms=terms,
        positive_terms=frozenset(t.key for t in positive),
        triggers=triggers,
        written_terms=frozenset(t.written or t.key for t in positive),
        shown=_shown(positive),
    )


def _shown(positive: list[Term]) -> tuple[tuple[str, str], ...]:
    written: dict[str, set[str]] = {}
    for term in positive:
        written.setdefault(term.key, set()).add(term.written or term.key)
    return tuple(sorted((key, names.pop()) for key, names in written.items() if len(names) == 1 and key not in names))
