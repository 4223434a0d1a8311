"""Atom feeds of papers: a follow's matches, a topic's papers, a search's papers, newest first."""

from papertrail.follows.reasons import reason_text
from papertrail.search_document import PaperFilter
from services.query.index import PaperIndex
from services.query.reads.atom import render_atom
from services.query.reads.search import PaperQuery
from services.query.store import QueryStore

FEED_SIZE = 50


async def follow_feed(
    store: QueryStore, index: PaperIndex, site: str, follow_id: str, key: str, self_url: str
) -> bytes | None:
    """The latest papers matching one follow; None when the follow id and its feed key do not go together."""
    follow = await store.follow_by_feed_key(follow_id, key)
    if follow is None:
        return None
    matches = await store.matches_for(follow.user_id, follow_id=follow_id, limit=FEED_SIZE)
    papers = await index.by_ids([m["paper_id"] for m in matches])
    ordered = [papers[m["paper_id"]] for m in matches if m["paper_id"] in papers]
    updated = {m["paper_id"]: m["matched_at"] for m in matches}
    why = {m["paper_id"]: "; ".join(map(reason_text, m.get("reasons", []))) for m in matches}
    return render_atom(
        site_url=site,
        path=f"/feeds/follows/{follow_id}",
        title=follow.name,
        self_url=self_url,
        papers=ordered,
        updated=updated,
        why=why,
    )


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
