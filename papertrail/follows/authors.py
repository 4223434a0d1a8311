"""Author follows: when a paper's author is the followed person. No I/O.

The rule, applied to the followed name and to each author of a paper:

1. Both names are split into given and family names by the shared rule (`papertrail.names.split_name`): the part
   before a comma is the family name ("Zhang, Wei"), otherwise the last word with any particles before it
   ("Wei Zhang", "Ludwig van Beethoven"). Names are taken in the order written: "Zhang Wei" without a
   comma reads as given name "Zhang", family name "Wei".
2. Case and diacritics are folded, punctuation becomes a space ("Jürgen" = "jurgen", "Jun-Yan" = "jun yan").
3. The author key is "family first-initial" (`author_key`): "Zhang, Wei", "Wei Zhang", "W. Zhang" and
   "Wéi Zhāng" all give "zhang w". Only authors with the followed key are candidates (one automaton
   lookup for all author follows).
4. The given names must then be compatible: either is missing; or they are equal once spaces are removed
   ("Junyan" = "Jun-Yan"); or, word by word over the shorter one, each pair is equal or one word is a single
   initial of the other ("W." ~ "Wei", "J. Y." ~ "Jun-Yan"). "Wei" and "Wen" are different people.
5. Pins make a follow stricter. A follow pinned by ORCID or source author id (`source:id`) matches an author
   carrying that same id whatever the name says; an author carrying a different id of that kind is
   another person. Otherwise the name must match (rules 3–4) and at least one pin must be confirmed: the
   pinned affiliation occurs, folded and on word boundaries, in one of the author's affiliations. A pinned
   follow therefore never matches on the name alone: a pin asks for evidence.
"""

from dataclasses import dataclass
from functools import lru_cache

from papertrail.names import author_key, split_name
from papertrail.text import fold
from schemas.paper import Author


def _given_words(given: str) -> tuple[str, ...]:
    return tuple(fold(given).split())


@lru_cache(maxsize=65536)
def _author_given_words(name: str) -> tuple[str, ...]:
    """Given-name words of a paper author's display name (cached: the same names recur across papers)."""
    return _given_words(split_name(name)[0])


def given_names_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Rule 4 of the module docstring."""
    if not a or not b or "".join(a) == "".join(b):
        return True
    for x, y in zip(a, b, strict=False):
        if x != y and not ((len(x) == 1 or len(y) == 1) and x[0] == y[0]):
            return False
    return True


def normalize_orcid(orcid: str) -> str:
    return orcid.strip().removeprefix("https://orcid.org/").removeprefix("http://orcid.org/").upper()


@dataclass(frozen=True, slots=True)
class AuthorRule:
    """A followed author: the name key, given names and pins."""

    name: str
    key: str
    given: tuple[str, ...]
    affiliation: str | None = None  # folded
    orcid: str | None = None
    source_id: tuple[str, str] | None = None  # (source, id)

    @property
    def pinned(self) -> bool:
        return bool(self.affiliation or self.orcid or self.source_id)

    def matches(self, author: Author) -> bool:
        """Whether `author` of a paper is this followed person (rules 3–5)."""
        ids_known = False
        if self.orcid and author.orcid:
            if normalize_orcid(author.orcid) == self.orcid:
                return True
            ids_known = True
        if self.source_id and self.source_id[0] in author.source_ids:
            if author.source_ids[self.source_id[0]] == self.source_id[1]:
                return True
            ids_known = True
        if ids_known:
            return False  # the author carries the pinned kind of id, and it is someone else's
        if author.key != self.key:
            return False
        if not given_names_compatible(self.given, _author_given_words(author.name)):
            return False
        if not self.pinned:
            return True
        if self.affiliation:
            padded = f" {self.affiliation} "
            return any(padded in f" {fold(a)} " for a in author.affiliations)
        return False


def author_rule(
    name: str, *, affiliation: str | None = None, orcid: str | None = None, source_author_id: str | None = None
) -> AuthorRule:
    """Compile a followed author; ValueError naming the problem for an unusable name or pin."""
    given, family = split_name(name)
    key = author_key(given, family)
    if not fold(family):
        raise ValueError(f"author name {name!r} has no family name")
    source: tuple[str, str] | None = None
    if source_author_id:
        src, sep, ident = source_author_id.partition(":")
        if not sep or not src or not ident:
            raise ValueError(f"source author id {source_author_id!r} is not source:id, e.g. hf:68c8cece")
        source = (src, ident)
    folded_affiliation = fold(affiliation) if affiliation else None
    if affiliation is not None and not folded_affiliation:
        raise ValueError(f"affiliation {affiliation!r} has no letters or digits")
    return AuthorRule(
        name=name,
        key=key,
        given=_given_words(given),
        affiliation=folded_affiliation,
        orcid=normalize_orcid(orcid) if orcid else None,
        source_id=source,
    )
