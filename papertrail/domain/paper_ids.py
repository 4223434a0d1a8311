"""The forms of the ids papers carry (arXiv ids, DOIs, ACL Anthology ids) and the title + first-author fingerprint
a paper without a shared id is known by, shared by the harvester, the normalizer and the query service's id lookup
and library import. Pure."""

import hashlib
import re
from datetime import UTC, datetime
from functools import lru_cache

from papertrail.domain.names import surname_key
from papertrail.domain.text import title_key

# The forms as regular expressions without anchors, ASCII digits only, written so that ECMAScript reads them as
# Python does: the query API states them in its OpenAPI document (services/query/catalogue/reads/paper_lookup.py).
ARXIV_NEW_FORM = r"[0-9]{4}\.[0-9]{4,5}"  # 2401.12345, since April 2007
ARXIV_OLD_FORM = r"[a-z-]+(?:\.[A-Z]{2})?/[0-9]{7}"  # hep-th/9901001, math.GT/0309136
ARXIV_VERSION_FORM = r"[Vv][0-9]+"  # 2401.12345v2: one paper, whatever its version
ARXIV_NEW_ID = re.compile(f"^{ARXIV_NEW_FORM}$")
ARXIV_OLD_ID = re.compile(f"^{ARXIV_OLD_FORM}$")
ARXIV_VERSION = re.compile(f"{ARXIV_VERSION_FORM}$")
# The DOI the ACL Anthology registers for a paper is this prefix and the paper's Anthology id (2024.acl-long.10).
ANTHOLOGY_DOI_PREFIX = "10.18653/v1/"
ARXIV_OWN_DOI = re.compile(r"^10\.48550/arxiv\.", re.IGNORECASE)  # the DOI arXiv registers for every paper


def is_arxiv_id(value: str) -> bool:
    """Whether the text is an arXiv id without version, new style or old."""
    return bool(ARXIV_NEW_ID.match(value) or ARXIV_OLD_ID.match(value))


def arxiv_id_month(identifier: str) -> datetime | None:
    """The month an arXiv id was given (its yymm: the first version's month), as that month's first day (UTC)."""
    digits = identifier.split("/")[-1][:4] if is_arxiv_id(identifier) else ""
    if not digits.isdigit() or not 1 <= int(digits[2:]) <= 12:
        return None
    year = int(digits[:2])
    return datetime(year + (1900 if year >= 91 else 2000), int(digits[2:]), 1, tzinfo=UTC)  # arXiv began 1991


def anthology_id(collection: str, volume: str, paper: str) -> str:
    """The ACL Anthology id of paper `paper` (0 = front matter) of a volume, by the Anthology's own rule.

    Collections since 2020 are `<year>.<venue>`: `2024.acl` volume `long` paper 1 is `2024.acl-long.1`. Older
    collections are a letter and two digits, and their ids pack volume and paper into digits: `P19` volume 1
    paper 1 is `P19-1001` (workshops, `W…`, and `C69` use two digits each: `W19-0101`).
    """
    if collection[:1].isdigit():
        return f"{collection}-{volume}.{paper}"
    if collection.startswith("W") or collection == "C69":
        return f"{collection}-{int(volume):02d}{int(paper):02d}"
    return f"{collection}-{int(volume):01d}{int(paper):03d}"


# Which fingerprint() the stored papers' fingerprints were computed by; bump it whenever fingerprint() changes,
# and the normalizer's next start gives every paper stored before the fingerprints of the new one.
# 2: LaTeX markup folded in titles, the first author cut to the last word of the family name and the initial.
FINGERPRINT_SCHEME = 2


@lru_cache(maxsize=8192)  # a record's is read by the store's lookup and twice by the planner
def fingerprint(title: str, first_author_key: str | None) -> str:
    """Folded title (LaTeX, HTML and punctuation folded) + the first author's surname key: what a record with no
    shared id joins a paper by, and what a library entry with no id is found by."""
    basis = f"{title_key(title)}|{surname_key(first_author_key or '')}"
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:32]
