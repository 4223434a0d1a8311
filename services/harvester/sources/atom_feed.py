"""arXiv's announcement feed (rss.arxiv.org/atom/<category>) → its build time and one entry per announced paper.
No I/O. Elements as arXiv documents them (arXiv/arxiv-docs source/help/atom_specifications.md)."""

import re

from lxml import etree

from services.harvester.announcements import Feed, FeedEntry

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
ANNOUNCE_TYPES = frozenset({"new", "cross", "replace", "replace-cross"})
# <id>oai:arXiv.org:2203.01250v3</id>: the canonical name, with its version
_ENTRY_ID = re.compile(r"^oai:arXiv\.org:(?P<id>.+?)(?P<version>v\d+)$")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


class MalformedFeed(Exception):
    """The body is not an Atom feed of arXiv announcements."""


def parse_feed(body: bytes, category: str) -> Feed:
    """The feed's `<updated>` and its entries; an entry without an arXiv id or announce type fails the feed, as
    it means the format changed and nothing of it can be trusted."""
    try:
        root = etree.fromstring(body, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise MalformedFeed(f"not XML: {exc}") from exc
    if root.tag != f"{ATOM}feed":
        raise MalformedFeed(f"expected an Atom <feed>, got <{etree.QName(root).localname}>")
    entries = []
    for position, element in enumerate(root.iterfind(f"{ATOM}entry")):
        found = _ENTRY_ID.match((element.findtext(f"{ATOM}id") or "").strip())
        announce_type = (element.findtext(f"{ARXIV}announce_type") or "").strip()
        if found is None or announce_type not in ANNOUNCE_TYPES:
            raise MalformedFeed(f"entry {position}: no oai:arXiv.org id with a version, or no known announce_type")
        entries.append(
            FeedEntry(
                arxiv_id=found["id"],
                version=found["version"],
                announce_type=announce_type,
                published=(element.findtext(f"{ATOM}published") or "").strip() or None,
                content=etree.tostring(element, encoding="unicode"),
            )
        )
    updated = (root.findtext(f"{ATOM}updated") or "").strip() or None
    return Feed(category=category, updated=updated, entries=entries)
