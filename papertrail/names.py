"""Author names: splitting author lists and the normalized key names are matched by. No I/O.

Key rule: diacritics and case folded, then "family initial" — "Zhang, Wei", "Wei Zhang" and "W. Zhang"
all give "zhang w". Family name is the part before a comma, else the last word (particles such as
"van", "de" stay with it).
"""

import re

from papertrail.text import fold, readable
from schemas.paper import Author

_PARTICLES = {"van", "von", "de", "der", "den", "del", "della", "di", "da", "du", "la", "le", "dos", "das", "ter"}
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
    while family_start > 1 and words[family_start - 1].lower() in _PARTICLES:
        family_start -= 1
    return " ".join(words[:family_start]), " ".join(words[family_start:])


def author_key(given: str, family: str) -> str:
    family_folded = fold(family)
    given_folded = fold(given)
    initial = given_folded[:1]
    return f"{family_folded} {initial}".strip()


def surname_key(key: str) -> str:
    """An author key cut to the family name's last word and the initial: "huguet cabot p" → "cabot p".

    Sources split a compound family name differently: the ACL Anthology writes `<first>Pere-Lluís</first>
    <last>Huguet Cabot</last>`, while arXiv's "Pere-Lluís Huguet Cabot" reads as family name "Cabot".
    """
    words = key.split()
    if len(words) > 2 and len(words[-1]) == 1:
        return " ".join(words[-2:])
    return key


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
        given, family = split_name(name)
        display = readable(f"{given} {family}" if given else family)
    else:  # the source split the name itself; its full form may carry a suffix ("Jr")
        display = readable(name) or readable(f"{given} {family}")
    return Author(
        name=display,
        key=author_key(given, family),
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
