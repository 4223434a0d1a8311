"""The forms of the ids papers carry (arXiv ids, DOIs), shared by the normalizer's parsers and the query service's
id lookup. Pure."""

import re

ARXIV_NEW_ID = re.compile(r"^\d{4}\.\d{4,5}$")  # 2401.12345, since April 2007
ARXIV_OLD_ID = re.compile(r"^[a-z\-]+(\.[A-Z]{2})?/\d{7}$")  # hep-th/9901001, math.GT/0309136
ARXIV_VERSION = re.compile(r"v\d+$", re.IGNORECASE)  # 2401.12345v2: one paper, whatever its version
ARXIV_OWN_DOI = re.compile(r"^10\.48550/arxiv\.", re.IGNORECASE)  # the DOI arXiv registers for every paper


def is_arxiv_id(value: str) -> bool:
    """Whether the text is an arXiv id without version, new style or old."""
    return bool(ARXIV_NEW_ID.match(value) or ARXIV_OLD_ID.match(value))
