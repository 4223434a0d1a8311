"""Any id a reader writes for a paper → the id field and value papers hold it under, and which paper answers. No I/O.

Readers come with what they have: an arXiv id with or without its version (`2212.09999v2`), a DOI in any case,
bare or as `doi:…` or `https://doi.org/…`, arXiv's own DOI (`10.48550/arXiv.2212.09999`), an ACL Anthology id,
arXiv and Anthology URLs, or the canonical id itself. The normalizer never changes a paper's canonical id and never
joins two held papers: a record that joins a paper adds its ids to the paper's `ids`, so every id a paper was ever
known by is in `ids`, and its canonical id is one of them (`arxiv:X` holds X, `acl:Y` holds Y, `doi:D` holds D).
"""

import re
from dataclasses import dataclass
from typing import Any, Literal

from papertrail.domain.paper_ids import (
    ANTHOLOGY_DOI_PREFIX,
    ARXIV_NEW_FORM,
    ARXIV_OLD_FORM,
    ARXIV_OWN_DOI,
    ARXIV_VERSION_FORM,
)

IdField = Literal["ids.arxiv", "ids.acl", "ids.dois", "ids.openreview", "ids.pmlr", "ids.dblp"]
IdKind = Literal["arxiv", "acl", "doi", "openreview", "pmlr", "dblp"]
MAX_ID_LENGTH = 300  # longer than any id a paper holds, URL forms included
_PREFIXES: dict[IdField, str] = {
    "ids.arxiv": "arxiv",
    "ids.acl": "acl",
    "ids.dois": "doi",
    # a published record no preprint, Anthology id or DOI names (PMLR, DBLP): only in the canonical form
    "ids.openreview": "openreview",
    "ids.pmlr": "pmlr",
    "ids.dblp": "dblp",
}
EXAMPLES = "an arXiv id (2401.12345, 2401.12345v2), a DOI (10.18653/v1/2024.acl-long.1) or an ACL Anthology id"


def _any_case(word: str) -> str:
    """`word` in any case, spelled out letter by letter: the forms are stated in the OpenAPI document, whose
    patterns (ECMAScript's) have no flags."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


# Each form of a written id, as a prefix and a body whose group `id` is the id as held (a URL's version, `.pdf`
# and trailing slashes left out). Plain ASCII, and patterns ECMAScript reads as Python does: their union is the
# `pattern` the API's document gives a paper id, and a text is an id exactly when one form matches all of it.
_ARXIV = f"(?P<id>{ARXIV_NEW_FORM}|{ARXIV_OLD_FORM})(?:{ARXIV_VERSION_FORM})?"
_DOI = r"(?P<id>10\.[0-9]{4,9}/[!-~]+)"  # printable ASCII after the prefix: a DOI may end in anything
_ACL_NEW = r"[0-9]{4}\.[A-Za-z0-9]+-[A-Za-z0-9]+\.[0-9]+"  # 2024.acl-long.1: held lower-cased
_ACL_OLD = r"[A-Z][0-9]{2}-[0-9]{4}"  # P19-1001
_ACL_ANY = r"(?P<id>[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)+?)"  # what an explicit acl: may name
_VENUE_ID = r"(?P<id>[A-Za-z0-9][A-Za-z0-9_./-]*)"  # an OpenReview forum, a PMLR entry (v267/x25a), a DBLP key
_WEB = r"(?:[Hh][Tt][Tt][Pp][Ss]?:/+)?"  # browsers and proxies may fold the `//` of a URL written into a path
_FORMS: list[tuple[IdKind, str, str]] = [
    ("doi", f"{_WEB}(?:{_any_case('dx.')})?{_any_case('doi.org/')}", _DOI),
    (
        "arxiv",
        f"{_WEB}(?:{_any_case('www.')}|{_any_case('export.')})?{_any_case('arxiv.org/')}"
        f"(?:{_any_case('abs')}|{_any_case('pdf')})/",
        rf"{_ARXIV}(?:\.pdf)?/*",
    ),
    ("acl", f"{_WEB}(?:{_any_case('www.')})?{_any_case('aclanthology.org/')}", rf"{_ACL_ANY}(?:\.pdf)?/*"),
    ("arxiv", _any_case("arxiv:"), _ARXIV),
    ("acl", _any_case("acl:"), _ACL_ANY),
    ("doi", _any_case("doi:"), _DOI),
    ("openreview", _any_case("openreview:"), _VENUE_ID),
    ("pmlr", _any_case("pmlr:"), _VENUE_ID),
    ("dblp", _any_case("dblp:"), _VENUE_ID),
    ("doi", "", _DOI),
    ("arxiv", "", _ARXIV),
    ("acl", "", f"(?P<id>{_ACL_NEW}|{_ACL_OLD})"),
]
_MATCHERS = [(kind, re.compile(prefix), re.compile(prefix + body)) for kind, prefix, body in _FORMS]
# every form of a paper id, one pattern (no anchors), and the text that is one: what the API's document states
PAPER_ID_FORMS = "|".join((prefix + body).replace("(?P<id>", "(?:") for _, prefix, body in _FORMS)
PAPER_ID_PATTERN = f"^(?:{PAPER_ID_FORMS})$"
_ARXIV_ID = re.compile(_ARXIV)
_ACL_ID = re.compile(_ACL_ANY)
_ACL_LOWER = re.compile(_ACL_NEW)
_NOT_A: dict[IdKind, str] = {
    "arxiv": "{!r} is not an arXiv id such as 2401.12345, 2401.12345v2 or hep-th/9901001",
    "doi": "{!r} is not a DOI such as 10.18653/v1/2024.acl-long.1",
    "acl": "{!r} is not an ACL Anthology id such as 2024.acl-long.1",
    "openreview": "{!r} is not an openreview id",
    "pmlr": "{!r} is not a pmlr id",
    "dblp": "{!r} is not a dblp id",
}


class NotAPaperId(ValueError):
    """The text is no form of any id a paper holds; the message says what is wrong and what would do."""


@dataclass(frozen=True, slots=True)
class PaperKey:
    """An id as papers hold it: the `ids` field it is in and its stored form."""

    field: IdField
    value: str

    @property
    def canonical(self) -> str:
        """The canonical id of a paper first known by this id (as the normalizer names papers)."""
        return f"{_PREFIXES[self.field]}:{self.value}"


def paper_key(raw: str) -> PaperKey:
    """The key a written id looks papers up by (space around it aside); NotAPaperId names what is wrong with text
    that is no paper id."""
    text = raw.strip()
    if not text:
        raise NotAPaperId(f"an empty paper id: write {EXAMPLES}")
    if len(text) > MAX_ID_LENGTH or not text.isprintable():
        raise NotAPaperId(f"not a paper id: longer than {MAX_ID_LENGTH} characters or with control characters")
    for kind, _, form in _MATCHERS:
        if written := form.fullmatch(text):
            return _key(kind, written["id"])
    raise NotAPaperId(_why_not(raw, text))


def _key(kind: IdKind, written: str) -> PaperKey:
    if kind == "doi":
        own = ARXIV_OWN_DOI.match(written)
        if own and (arxiv := _ARXIV_ID.fullmatch(written[own.end() :])):  # it names the arXiv paper, which holds
            return PaperKey("ids.arxiv", arxiv["id"])  # it as its arXiv id
        return PaperKey("ids.dois", written.lower())  # DOIs are case-insensitive; papers hold them lower-cased
    if kind == "acl" and _ACL_LOWER.fullmatch(written):
        return PaperKey("ids.acl", written.lower())
    return PaperKey(f"ids.{kind}", written)  # type: ignore[arg-type]


def _why_not(raw: str, text: str) -> str:
    """What is wrong with text no form matches: the rest after a prefix that says which kind of id it means."""
    for kind, prefix, _ in _MATCHERS:
        if prefix.pattern and (given := prefix.match(text)):
            return _NOT_A[kind].format(text[given.end() :])
    if text.startswith("10."):
        return _NOT_A["doi"].format(text)
    return f"{raw!r} is not a paper id: write {EXAMPLES}, bare or after arxiv:, doi: or acl:"


def anthology_key(key: PaperKey) -> PaperKey | None:
    """The Anthology id an ACL Anthology DOI names (10.18653/v1/2024.acl-long.10 → acl 2024.acl-long.10): a paper
    from an Anthology volume recorded before its DOIs were (or without them) holds that id, not the DOI."""
    if key.field != "ids.dois" or not key.value.startswith(ANTHOLOGY_DOI_PREFIX):
        return None
    written = key.value.removeprefix(ANTHOLOGY_DOI_PREFIX)
    return _key("acl", written) if _ACL_ID.fullmatch(written) else None


def holder(key: PaperKey, papers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The paper an id answers with, of the papers holding it (MongoDB documents of `papers`).

    An arXiv or ACL id is held by one paper at most (the normalizer's unique indexes). One DOI may be held by two
    papers the normalizer did not see are one work (an arXiv record carrying the DOI of an ACL paper held apart):
    the paper named by the DOI comes first, then a published one, then the one seen first.
    """
    return min(
        papers,
        key=lambda p: (p["_id"] != key.canonical, p.get("status") != "published", p["first_seen"], p["_id"]),
        default=None,
    )
