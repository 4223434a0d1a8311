"""What makes a follow valid before it is stored: the expression grammar and topic catalogue the matcher compiles
it with, and what a `similar` follow needs, checked where the query service accepts it. No I/O."""

from collections.abc import Sequence

from papertrail.domain.author_institutions import is_ror_id
from papertrail.domain.follows.catalogue import load_catalogue
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


def check_follow(
    kind: str,
    *,
    query: str | None,
    author: str | None,
    topic_id: str | None,
    seeds: Sequence[str] = (),
    description: str | None = None,
    venue: str | None = None,
    venue_field: str | None = None,
    institution: str | None = None,
) -> None:
    if kind == "institution":
        if not institution or not is_ror_id(institution):
            raise FollowRuleError(
                "an institution follow needs `institution`, a ROR id (e.g. 03cve4549; GET /api/institutions?q=)",
                "institution_needed",
            )
    elif kind == "venue":
        if venue is None and venue_field is None:
            raise FollowRuleError(
                "a venue follow needs `venue` (e.g. ICML, AI/icml) or `venue_field` (e.g. AI)", "venue_needed"
            )
        if venue is not None:
            catalogue_venue(venue)
    elif kind == "similar":
        if not seeds and not (description and description.strip()):
            raise FollowRuleError(
                "a similar follow needs `seeds` (1-20 paper ids), a `description`, or both", "similar_needed"
            )
        if len(seeds) > MAX_SEEDS:
            raise FollowRuleError(
                f"seeds: {len(seeds)} papers; a similar follow takes at most {MAX_SEEDS}",
                "too_many_seeds",
                count=len(seeds),
                most=MAX_SEEDS,
            )
        if description is not None and len(description) > MAX_DESCRIPTION_CHARS:
            raise FollowRuleError(
                f"description: longer than {MAX_DESCRIPTION_CHARS} characters",
                "description_too_long",
                most=MAX_DESCRIPTION_CHARS,
            )
    elif kind == "keyword":
        if not query or not query.strip():
            raise FollowRuleError("a keyword follow needs `query`", "query_needed")
        try:
            parse_expression(query)
        except ExpressionError as error:
            raise FollowRuleError(f"query: {error}", "bad_query", error=str(error)) from error
    elif kind == "author":
        if not author or not author.strip():
            raise FollowRuleError("an author follow needs `author`", "author_needed")
    elif kind == "topic":
        known = {topic.id for topic in load_catalogue()}
        if topic_id not in known:
            raise FollowRuleError(
                f"topic_id {topic_id!r} is not a catalogue topic; known: {sorted(known)}",
                "unknown_topic",
                topic=topic_id,
            )


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
    """The terms of a keyword expression written in Chinese (Japanese, Korean): they are matched as written, spaces
    or none, in a paper's Chinese title and its AI summary's Chinese TL;DR and 导读
    (papertrail/domain/follows/rules.py), so
    they find only papers with an AI summary."""
    try:
        expression = parse_expression(query or "")
    except ExpressionError:
        return []
    return sorted(term for term in expression.positive_terms if has_cjk(term))


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
