"""Atom feeds of papers: a topic's papers, a venue's, a search's, newest first (a follow's:
readers/accounts/follows.py)."""

from papertrail.domain.follows.catalogue import topic_title
from papertrail.domain.follows.compiled import VenueRule
from papertrail.domain.follows.reasons import reason_text
from papertrail.domain.search_document import PaperFilter
from papertrail.domain.venues.accepted import PaperVenues, accepted_venues
from papertrail.domain.venues.catalogue import Venue
from schemas.paper import ClaimTrack
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.atom import FEED_SIZE, FEED_WORDING, render_atom
from services.query.catalogue.reads.papers import find_papers
from services.query.catalogue.reads.search import PaperQuery


async def topic_feed(index: PaperIndex, site: str, topic_id: str, self_url: str) -> bytes:
    """The latest papers hitting a catalogue topic."""
    results = await index.search(PaperQuery(filter=PaperFilter(topic_id=topic_id), sort="ingested", size=FEED_SIZE))
    return render_atom(
        site_url=site,
        path=f"/feeds/topics/{topic_id}",
        title=topic_title(topic_id),
        self_url=self_url,
        papers=results.hits,
    )


async def search_feed(index: PaperIndex, site: str, query: PaperQuery, query_string: str, self_url: str) -> bytes:
    """The latest papers of a search, for a feed reader: the papers the page lists for it (find_papers, so Chinese
    words no paper holds are searched by meaning here too, and those few hold are followed by the closest in meaning),
    newest first."""
    results = await find_papers(index, query)
    path, title = f"/feeds/search?{query_string}", query.q or FEED_WORDING.gettext("all papers")
    papers = [*results["hits"], *results["more_by_meaning"]]
    return render_atom(site_url=site, path=path, title=title, self_url=self_url, papers=papers)


async def venue_feed(
    index: PaperIndex, site: str, venue: Venue, year: int | None, track: ClaimTrack | None, self_url: str
) -> bytes:
    """The latest papers accepted at a venue (an edition, a track), each saying where it was read; a workshop at the
    venue only when the track asked is `workshop`, as for a venue follow."""
    rule = VenueRule(venue.key, year, track, None, None)
    wanted = PaperFilter(venue=venue.acronym, venue_year=year, track=track, accepted=True)
    # twice the feed's size: the index's venue filter also takes the venue's workshops, which the rule leaves out
    results = await index.search(PaperQuery(filter=wanted, sort="ingested", size=2 * FEED_SIZE))
    papers, why = [], {}
    for doc in results.hits:
        held = [v for v in accepted_venues(PaperVenues.of_document(doc)) if rule.holds(v)]
        if held:
            papers.append(doc)
            why[doc["paper_id"]] = "; ".join(
                reason_text(
                    {"field": "venue", "term": v.label, "evidence": v.evidence, "source_version": v.source_version},
                    FEED_WORDING,
                )
                for v in held
            )
    edition = " ".join(str(part) for part in (venue.acronym, year, track) if part)
    path = f"/feeds/venues/{venue.key}.atom"
    return render_atom(site_url=site, path=path, title=edition, self_url=self_url, papers=papers[:FEED_SIZE], why=why)
