"""Atom feeds of papers (per follow, per topic, per search), rendered with feedgen. No I/O."""

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from feedgen.feed import FeedGenerator

from papertrail.domain.tex import tex_plain
from papertrail.runtime.wording import Translator

# XML 1.0 forbids these control characters; a search term or a title may carry them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


FEED_SIZE = 50  # entries in every feed: a follow's, a topic's, a search's
# A feed reader asks in no reader's language: the feeds' own words (a match's reason, a search of everything) are
# English, the summaries the Chinese TL;DR where there is one.
FEED_WORDING = Translator("en")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("", text)


def render_atom(
    *,
    site_url: str,
    path: str,
    title: str,
    self_url: str,
    papers: list[dict[str, Any]],
    updated: dict[str, datetime] | None = None,
    why: dict[str, str] | None = None,
) -> bytes:
    """An Atom document with one entry per paper document (newest first as given): the feed of the site at `path`
    (its id is that address), titled after the site's name; `why` (paper id → why it is here) heads a summary."""
    feed = FeedGenerator()
    feed.id(f"{site_url}{path}")
    feed.title(xml_safe(f"PaperTrail · {title}"))
    feed.link(href=xml_safe(self_url), rel="self")
    feed.link(href=site_url, rel="alternate")
    feed.language("zh-CN")
    times = updated or {}
    newest = datetime.fromtimestamp(0, UTC)
    for paper in reversed(papers):  # feedgen prepends entries
        entry = feed.add_entry()
        # a DOI may hold characters a URL must escape (`<`, `#`, `;`…)
        paper_url = f"{site_url.rstrip('/')}/papers/{quote(paper['paper_id'], safe='/:')}"
        entry.id(paper_url)
        entry.title(xml_safe(paper.get("title") or paper["paper_id"]))
        entry.link(href=paper_url)
        if paper.get("links", {}).get("abs"):
            entry.link(href=paper["links"]["abs"], rel="related")
        when = times.get(paper["paper_id"]) or _from_ts(paper.get("updated_ts")) or datetime.now(UTC)
        newest = max(newest, when)
        entry.updated(when)
        for name in paper.get("authors", [])[:20]:
            entry.author(name=xml_safe(name))
        for category in paper.get("categories", []):
            entry.category(term=category)
        # a feed reader shows the summary as plain text: the abstract as read (`30\%` → `30%`), formulas as written
        summary = paper.get("tldr_zh") or tex_plain(paper.get("abstract"))
        if reason := (why or {}).get(paper["paper_id"]):
            summary = f"[{reason}] {summary}"
        entry.summary(xml_safe(summary))
    feed.updated(newest if papers else datetime.now(UTC))
    xml: bytes = feed.atom_str(pretty=True)
    return xml


def _from_ts(value: int | None) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if value else None
