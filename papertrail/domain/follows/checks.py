"""What the follow kinds' checks (papertrail/domain/follows/kinds/) share: the error a refused follow raises, the
venue catalogue's reading of a venue a reader names, and what a keyword expression's Chinese terms can match. No
I/O."""

from papertrail.domain.follows.expressions import ExpressionError, parse_expression
from papertrail.domain.text import has_cjk
from papertrail.domain.venues.catalogue import Venue, default_index

MAX_SEEDS = 20  # a reader's "papers like these": a handful, and the scorer's cost grows with them
MAX_TRIED = 12  # terms of an expression only_chinese tries every combination of (4,096)
MAX_DESCRIPTION_CHARS = 2000  # a paragraph; the model reads ~256 tokens of it anyway


class FollowRuleError(ValueError):
    """The follow cannot be stored; the message names the problem (in English, as the API says it); `rule` and
    `values` name it for the pages to say in the reader's language."""

    def __init__(self, message: str, rule: str = "", **values: object) -> None:
        super().__init__(message)
        self.rule, self.values = rule, values


def catalogue_venue(written: str) -> Venue:
    """The catalogue's venue a reader named by its key (AI/icml), acronym or any alias; FollowRuleError otherwise."""
    index = default_index()
    found = index.venues.get(written.strip()) or index.resolve(written)
    if found is None:
        why = "names more than one venue" if index.known(written) else "is not in the venue catalogue"
        rule = "ambiguous_venue" if index.known(written) else "unknown_venue"
        raise FollowRuleError(f"venue {written.strip()!r} {why}; see /api/venues?q=", rule, venue=written.strip())
    return found


def chinese_terms(query: str | None) -> list[str]:
    """The terms of a keyword expression written in Chinese (Japanese, Korean), as written: they are matched (by their
    words, unquoted) in a paper's Chinese title and its AI summary's Chinese TL;DR and 导读
    (papertrail/domain/follows/rules.py), so they find only papers with an AI summary."""
    try:
        expression = parse_expression(query or "")
    except ExpressionError:
        return []
    return sorted(term for term in expression.written_terms if has_cjk(term))


def only_chinese(query: str | None) -> bool:
    """Whether the expression can hold only for a paper holding one of its Chinese terms (`大模型推理`, `LLM AND
    推理`): with no AI summary written, such a follow cannot match anything. Decided by trying every combination of
    its other terms occurring (a follow has a handful; past MAX_TRIED of them it is taken as able to match)."""
    try:
        expression = parse_expression(query or "")
    except ExpressionError:
        return False
    chinese = {term for term in expression.terms if has_cjk(term)}
    others = sorted(expression.terms - chinese)
    if not chinese or len(others) > MAX_TRIED:
        return False
    return not any(
        expression.evaluate({term for n, term in enumerate(others) if mask >> n & 1})
        for mask in range(2 ** len(others))
    )
