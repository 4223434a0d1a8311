"""Author follows: when a paper's author is the followed person. No I/O.

The rule, applied to the followed name and to each author of a paper:

1. Both names are split into given and family names by the shared rule (`papertrail.domain.names.split_name`): the part
   before a comma is the family name ("Zhang, Wei"), otherwise the last word with any particles before it
   ("Wei Zhang", "Ludwig van Beethoven"). Names are taken in the order written: "Zhang Wei" without a
   comma reads as given name "Zhang", family name "Wei".
2. Case and diacritics are folded, punctuation becomes a space ("Jürgen" = "jurgen", "Jun-Yan" = "jun yan").
3. The author key is "family first-initial" (`author_key`): "Zhang, Wei", "Wei Zhang", "W. Zhang" and
   "Wéi Zhāng" all give "zhang w". Only authors with the followed key are candidates (one automaton
   lookup for all author follows).
4. The given names must then agree (`given_names_match`), and how well is said:
   - as written: equal once spaces are removed ("Junyan" = "Jun-Yan"), or word by word over the shorter one each
     pair is equal or one an initial of the other with at least one full word equal ("Wei" ~ "Wei M.",
     "John A." ~ "John Adam");
   - through initials only, each given name an initial or the same initial ("J. Y." ~ "Jun-Yan", "Yu K." ~
     "Y. Kun"), as many given names on both sides;
   - through a bare initial: one side gives a single initial ("Y." ~ "Yinghui", "Y." ~ "Y. K."), or no given
     name at all ("Li" ~ "Yinghui Li").
   Anything else is another person: "Wei" and "Wen"; and "Y.k." and "Yinghui", where the initials name a second
   given name the full one does not have ("Yafu", "Yang" and "Yangning" all share the initial Y).
   A match through initials or a bare initial stands only when nothing finer is known on the side that gives
   less: a paper author who carries an identifier of a person (ORCID, an ACL Anthology, Semantic Scholar,
   Google Scholar or Hugging Face user id) is known by it, not by an initial, and is left to follows pinned to
   that id. Its reason says what it rests on: "author Y. Li (initial only)".
5. Pins make a follow stricter. A follow pinned by ORCID or source author id (`source:id`) matches an author
   carrying that same id whatever the name says; an author carrying a different id of that kind is
   another person. Otherwise the name must match (rules 3–4) and at least one pin must be confirmed: the
   pinned affiliation occurs, folded and on word boundaries, in one of the author's affiliations. A pinned
   follow therefore never matches on the name alone: a pin asks for evidence.
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from papertrail.domain.names import author_key, split_name
from papertrail.domain.text import fold
from schemas.paper import Author


def _given_words(given: str) -> tuple[str, ...]:
    return tuple(fold(given).split())


@lru_cache(maxsize=65536)
def _author_given_words(name: str) -> tuple[str, ...]:
    """Given-name words of a paper author's display name (cached: the same names recur across papers)."""
    return _given_words(split_name(name)[0])


# how two given names agree, when they do not agree as written: a match's reason names it
NameMatch = Literal["initials", "initial", "family"]
# source ids that name a person (the Hugging Face `hf` id names one paper's author entry, not a person)
PERSON_IDS = frozenset({"acl", "semantic_scholar", "google_scholar", "hf_user", "openreview", "dblp"})


def given_names_match(a: tuple[str, ...], b: tuple[str, ...]) -> NameMatch | Literal["name"] | None:
    """Rule 4 of the module docstring: "name" (as written), "initials", "initial" (a bare initial), "family" (no
    given name on one side), or None (another person)."""
    if "".join(a) == "".join(b):
        return "name"
    if not a or not b:
        return "family"
    pairs = list(zip(a, b, strict=False))
    for x, y in pairs:
        if x != y and not ((len(x) == 1 or len(y) == 1) and x[0] == y[0]):
            return None
    if any(x == y and len(x) > 1 for x, y in pairs):
        return "name"
    if any(len(side) == 1 and len(side[0]) == 1 for side in (a, b)):
        return "initial"
    return "initials" if len(a) == len(b) else None


def given_names_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return given_names_match(a, b) is not None


def _gives_less(follow: tuple[str, ...], author: tuple[str, ...]) -> bool:
    """Whether the paper's author is the side of a weak match that gives less of the given name."""
    return sum(map(len, author)) < sum(map(len, follow)) or len(author) < len(follow)


def known_finer(author: Author) -> bool:
    """Whether the paper names this author by an identifier of a person (rule 4)."""
    return bool(author.orcid) or not PERSON_IDS.isdisjoint(author.source_ids)


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
        return self.match(author) is not False

    def match(self, author: Author) -> NameMatch | Literal[False] | None:
        """How `author` of a paper is this followed person: None when by an id or by the name as written, "initials",
        "initial" or "family" when the name agrees only so far (rule 4), False when it is someone else (rules 3–5)."""
        ids_known = False
        if self.orcid and author.orcid:
            if normalize_orcid(author.orcid) == self.orcid:
                return None
            ids_known = True
        if self.source_id and self.source_id[0] in author.source_ids:
            if author.source_ids[self.source_id[0]] == self.source_id[1]:
                return None
            ids_known = True
        if ids_known:
            return False  # the author carries the pinned kind of id, and it is someone else's
        if author.key != self.key:
            return False
        author_given = _author_given_words(author.name)
        agreement = given_names_match(self.given, author_given)
        if agreement is None:
            return False
        weak = None if agreement == "name" else agreement
        if weak is not None and _gives_less(self.given, author_given) and known_finer(author):
            return False  # the author is known by an id the follow does not name: an initial is no evidence
        if not self.pinned:
            return weak
        if self.affiliation:
            padded = f" {self.affiliation} "
            return weak if any(padded in f" {fold(a)} " for a in author.affiliations) else False
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
