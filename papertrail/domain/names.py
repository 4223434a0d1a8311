"""Author names: splitting author lists and the normalized keys names are compared by. No I/O.

Two keys, both with diacritics and case folded, family name first. Family name is the part before a comma, else
the last word (particles such as "van", "de" stay with it).

- `author_key`, "family initial": "Zhang, Wei", "Wei Zhang" and "W. Zhang" all give "zhang w". Coarse on purpose:
  the normalizer pairs a paper's authors across sources by it, paper fingerprints read it, and the follow index
  finds an author follow's candidates by it. It never tells people apart ("Yafu Li" and "Yang Li" are "li y").
- `name_key`, the full name as written: "Li, Yinghui" and "Yinghui Li" give "li yinghui", "Y.k. Li" gives
  "li y k", "Jun-Yan Zhu" and "Junyan Zhu" give "zhu junyan". What author pages are keyed by: a page is one
  name, and a bare initial ("Y. Li", "li y") is a page of its own, which lists the full names it may stand for.
"""

import re
from functools import lru_cache

from papertrail.domain.text import fold, readable
from schemas.paper import Author

# the small words that stay with a family name ("van", "de"); also what may stand inside a person's name on a page
PARTICLES = frozenset(
    {"van", "von", "de", "der", "den", "del", "della", "di", "da", "du", "la", "le", "dos", "das", "ter"}
)
_AND = re.compile(r",?\s+and\s+|\s*;\s*|\s*&\s*")
_PARENS = re.compile(r"\(([^()]*)\)")


def split_name(name: str) -> tuple[str, str]:
    """(given, family) of a display name."""
    name = readable(name)
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return given, family
    words = name.split()
    if len(words) <= 1:
        return "", name
    family_start = len(words) - 1
    while family_start > 1 and words[family_start - 1].lower() in PARTICLES:
        family_start -= 1
    return " ".join(words[:family_start]), " ".join(words[family_start:])


def author_key(given: str, family: str) -> str:
    family_folded = fold(family)
    given_folded = fold(given)
    initial = given_folded[:1]
    return f"{family_folded} {initial}".strip()


# which `name_key` the search index's documents hold: a change of the rule below changes it, and the query service
# writes every document's keys again (services/query/catalogue/indexer/retag.py)
NAME_KEY_SCHEME = "full-name-1"
# a hyphen or apostrophe inside a name joins its parts: "Jun-Yan" is one given name, as "Junyan" is
_JOINERS = re.compile(r"(?<=\w)[-\u2010\u2011'\u2019](?=\w)")


def given_parts(given: str) -> tuple[str, ...]:
    """The given name as the name key reads it: folded, initials one part each ("Y.k." → y, k), runs of full words
    one part ("Jun Yan", "Jun-Yan", "Junyan" → junyan), so that spacing and hyphens do not split a name."""
    parts: list[str] = []
    run = ""
    for word in fold(_JOINERS.sub("", given)).split():
        if len(word) == 1:
            if run:
                parts.append(run)
                run = ""
            parts.append(word)
        else:
            run += word
    if run:
        parts.append(run)
    return tuple(parts)


def name_key(given: str, family: str) -> str:
    """The full-name key: "Yinghui Li" and "Li, Yinghui" → "li yinghui"; "Y. K. Li" → "li y k"."""
    return " ".join((fold(family), *given_parts(given))).strip()


@lru_cache(maxsize=65536)
def display_name_key(name: str) -> str:
    """The full-name key of a display name, as papers' authors carry it (the same names recur across papers)."""
    return name_key(*split_name(name))


def initials_only(name: str) -> bool:
    """Whether a display name gives no more than initials of the given name: "Y. Li", "Y.k. Li" (or none: "Li")."""
    return all(len(part) == 1 for part in given_parts(split_name(name)[0]))


def surname_key(key: str) -> str:
    """An author key cut to the family name's last word and the initial: "huguet cabot p" → "cabot p".

    Sources split a compound family name differently: the ACL Anthology writes `<first>Pere-Lluís</first>
    <last>Huguet Cabot</last>`, while arXiv's "Pere-Lluís Huguet Cabot" reads as family name "Cabot".
    """
    words = key.split()
    if len(words) > 2 and len(words[-1]) == 1:
        return " ".join(words[-2:])
    return key


@lru_cache(maxsize=65536)
def _display_and_key(name: str) -> tuple[str, str]:
    """A name as a source wrote it → as papers show it, and its author key (the same names recur across papers)."""
    given, family = split_name(name)
    return readable(f"{given} {family}" if given else family), author_key(given, family)


def make_author(
    name: str,
    *,
    given: str | None = None,
    family: str | None = None,
    affiliations: list[str] | None = None,
    orcid: str | None = None,
    source_ids: dict[str, str] | None = None,
) -> Author:
    if given is None or family is None:
        display, key = _display_and_key(name)
    else:  # the source split the name itself; its full form may carry a suffix ("Jr")
        display, key = readable(name) or readable(f"{given} {family}"), author_key(given, family)
    return Author(
        name=display,
        key=key,
        affiliations=[readable(a) for a in affiliations or [] if readable(a)],
        orcid=orcid,
        source_ids=source_ids or {},
    )


def split_author_list(text: str) -> list[Author]:
    """arXiv's free-text author list: "A. One, B. Two (MIT), and C. Three" → authors in order.

    Parenthesised text after a name is an affiliation; numbered affiliation markers are dropped.
    """
    text = readable(text)
    authors: list[Author] = []
    depth = 0
    piece: list[str] = []
    pieces: list[str] = []
    for char in text:  # split on commas outside parentheses
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(char)
    pieces.append("".join(piece))
    for raw_piece in pieces:
        for part in _AND.split(raw_piece):
            affiliations = [a.strip() for a in _PARENS.findall(part) if a.strip() and not a.strip().isdigit()]
            name = _PARENS.sub("", part).strip().removeprefix("and ").strip()
            if name:
                authors.append(make_author(name, affiliations=affiliations))
    return authors
