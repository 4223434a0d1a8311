"""The forms of the ids papers carry (arXiv ids, DOIs, ACL Anthology ids), shared by the harvester, the
normalizer's parsers and the query service's id lookup. Pure."""

import re

ARXIV_NEW_ID = re.compile(r"^\d{4}\.\d{4,5}$")  # 2401.12345, since April 2007
ARXIV_OLD_ID = re.compile(r"^[a-z\-]+(\.[A-Z]{2})?/\d{7}$")  # hep-th/9901001, math.GT/0309136
ARXIV_VERSION = re.compile(r"v\d+$", re.IGNORECASE)  # 2401.12345v2: one paper, whatever its version
ARXIV_OWN_DOI = re.compile(r"^10\.48550/arxiv\.", re.IGNORECASE)  # the DOI arXiv registers for every paper


def is_arxiv_id(value: str) -> bool:
    """Whether the text is an arXiv id without version, new style or old."""
    return bool(ARXIV_NEW_ID.match(value) or ARXIV_OLD_ID.match(value))


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
