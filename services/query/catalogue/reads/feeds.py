"""Atom feeds of papers: a topic's papers, a search's papers, newest first (a follow's: readers/accounts/follows.py)."""

from papertrail.search_document import PaperFilter
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.atom import FEED_SIZE, render_atom
from services.query.catalogue.reads.search import PaperQuery


async def topic_feed(index: PaperIndex, site: str, topic_id: str, self_url: str) -> bytes:
    """The latest papers hitting a catalogue topic."""
    results = await index.search(PaperQuery(filter=PaperFilter(topic_id=topic_id), sort="ingested", size=FEED_SIZE))
    return render_atom(
        site_url=site, path=f"/feeds/topics/{topic_id}", title=topic_id, self_url=self_url, papers=results.hits
    )


async def search_feed(index: PaperIndex, site: str, query: PaperQuery, query_string: str, self_url: str) -> bytes:
    """The latest papers of a search, for a feed reader."""
    results = await index.search(query)
    path, title = f"/feeds/search?{query_string}", query.q or "all papers"
    return render_atom(site_url=site, path=path, title=title, self_url=self_url, papers=results.hits)
