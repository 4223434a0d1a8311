"""Search queries and the Atom feeds of search results."""

from papertrail.search_document import PaperFilter
from services.query.reads.search import PaperQuery


def test_a_query_sorts_newest_first_by_its_time_and_filters_by_its_filter() -> None:
    query = PaperQuery(filter=PaperFilter(status="published"), sort="published")
    assert query.sort_by() == ["published_ts:desc"]
    assert query.filters() == ['status = "published"']


def test_atom_feed_drops_characters_xml_forbids() -> None:
    from lxml import etree

    from services.query.reads.atom import render_atom

    paper = {"paper_id": "arxiv:1", "title": "Bad\x0ctitle\x00", "authors": ["A\x1b B"], "abstract": "x\x08y"}
    xml = render_atom(
        feed_id="urn:x", title="search \x0c", self_url="http://h/feeds?q=%0C", site_url="http://h", papers=[paper]
    )
    entry = etree.fromstring(xml).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None and entry.findtext("{http://www.w3.org/2005/Atom}title") == "Badtitle"


def test_atom_entries_link_papers_by_escaped_ids() -> None:
    """A DOI may carry `<`, `#` or `;`: the entry's link escapes them so it points at the paper, whole."""
    from lxml import etree

    from services.query.reads.atom import render_atom

    paper = {"paper_id": "doi:10.1002/(SICI)1097-4571<3::AID#1>", "title": "t"}
    xml = render_atom(feed_id="urn:x", title="t", self_url="http://h/f", site_url="http://h/", papers=[paper])
    entry = etree.fromstring(xml).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None
    link = entry.find("{http://www.w3.org/2005/Atom}link").get("href")  # type: ignore[union-attr]
    assert link == "http://h/papers/doi:10.1002/%28SICI%291097-4571%3C3::AID%231%3E"
