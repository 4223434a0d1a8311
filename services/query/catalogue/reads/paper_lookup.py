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

from papertrail.paper_ids import ANTHOLOGY_DOI_PREFIX, ARXIV_OWN_DOI, ARXIV_VERSION, is_arxiv_id

IdField = Literal["ids.arxiv", "ids.acl", "ids.dois", "ids.openreview", "ids.pmlr", "ids.dblp"]
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
# Browsers and proxies may fold the `//` of a URL written into a path into one `/`.
_URLS = [
    (re.compile(r"^(?:https?:/+)?(?:dx\.)?doi\.org/", re.IGNORECASE), "doi"),
    (re.compile(r"^(?:https?:/+)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", re.IGNORECASE), "arxiv"),
    (re.compile(r"^(?:https?:/+)?(?:www\.)?aclanthology\.org/", re.IGNORECASE), "acl"),
]
_SCHEME = re.compile(r"^(arxiv|acl|doi|openreview|pmlr|dblp):", re.IGNORECASE)
_VENUE_ID = re.compile(r"^[A-Za-z0-9][\w./-]*$")  # an OpenReview forum, a PMLR entry (v267/x25a), a DBLP key
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_ACL_NEW = re.compile(r"^\d{4}\.[a-z0-9]+-[a-z0-9]+\.\d+$")  # 2024.acl-long.1: always lower case
_ACL_OLD = re.compile(r"^[A-Z]\d{2}-\d{4}$")  # P19-1001
_ACL_ANY = re.compile(r"^[A-Za-z0-9]+(?:[.\-][A-Za-z0-9]+)+$")  # what an explicit acl: may name


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
    """The key a written id looks papers up by; NotAPaperId names what is wrong with text that is no paper id."""
    text = raw.strip()
    if not text:
        raise NotAPaperId(f"an empty paper id: write {EXAMPLES}")
    if len(text) > MAX_ID_LENGTH or not text.isprintable():
        raise NotAPaperId(f"not a paper id: longer than {MAX_ID_LENGTH} characters or with control characters")
    for pattern, kind in _URLS:
        if match := pattern.match(text):
            rest = text[match.end() :]  # a DOI is kept whole: it may end in anything
            return _key(kind, rest if kind == "doi" else rest.rstrip("/").removesuffix(".pdf"))
    if match := _SCHEME.match(text):
        return _key(match.group(1).lower(), text[match.end() :])
    if text.startswith("10."):
        return _doi_key(text)
    if is_arxiv_id(ARXIV_VERSION.sub("", text)):
        return _arxiv_key(text)
    if _ACL_NEW.match(text.lower()) or _ACL_OLD.match(text):
        return _acl_key(text)
    raise NotAPaperId(f"{raw!r} is not a paper id: write {EXAMPLES}, bare or after arxiv:, doi: or acl:")


def _key(kind: str, value: str) -> PaperKey:
    if kind in ("openreview", "pmlr", "dblp"):
        if not _VENUE_ID.match(value):
            raise NotAPaperId(f"{value!r} is not a {kind} id")
        return PaperKey(f"ids.{kind}", value)  # type: ignore[arg-type]
    return {"arxiv": _arxiv_key, "acl": _acl_key, "doi": _doi_key}[kind](value)


def _arxiv_key(value: str) -> PaperKey:
    bare = ARXIV_VERSION.sub("", value)
    if not is_arxiv_id(bare):
        raise NotAPaperId(f"{value!r} is not an arXiv id such as 2401.12345, 2401.12345v2 or hep-th/9901001")
    return PaperKey("ids.arxiv", bare)


def _doi_key(value: str) -> PaperKey:
    if not _DOI.match(value):
        raise NotAPaperId(f"{value!r} is not a DOI such as 10.18653/v1/2024.acl-long.1")
    if own := ARXIV_OWN_DOI.match(value):  # arXiv's DOI names the arXiv paper, which holds it as its arXiv id
        return _arxiv_key(value[own.end() :])
    return PaperKey("ids.dois", value.lower())  # DOIs are case-insensitive; papers hold them lower-cased


def _acl_key(value: str) -> PaperKey:
    if _ACL_NEW.match(value.lower()):
        return PaperKey("ids.acl", value.lower())
    if not _ACL_ANY.match(value):
        raise NotAPaperId(f"{value!r} is not an ACL Anthology id such as 2024.acl-long.1")
    return PaperKey("ids.acl", value)


def anthology_key(key: PaperKey) -> PaperKey | None:
    """The Anthology id an ACL Anthology DOI names (10.18653/v1/2024.acl-long.10 → acl 2024.acl-long.10): a paper
    from an Anthology volume recorded before its DOIs were (or without them) holds that id, not the DOI."""
    if key.field != "ids.dois" or not key.value.startswith(ANTHOLOGY_DOI_PREFIX):
        return None
    try:
        return _acl_key(key.value.removeprefix(ANTHOLOGY_DOI_PREFIX))
    except NotAPaperId:
        return None


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
