"""Search parameters become Meilisearch filters with every value quoted, never pasted raw."""

from papertrail.search import quote
from services.query.search import PaperQuery


def test_quote_escapes_quotes_and_backslashes() -> None:
    assert quote('cs.CL" OR user = "x') == '"cs.CL\\" OR user = \\"x"'
    assert quote("a\\b") == '"a\\\\b"'


def test_filters_combine_any_of_lists_and_single_values() -> None:
    query = PaperQuery(
        categories=["cs.CL", "cs.LG"], status="published", ai_related=True, since_ts=100, sort="published"
    )
    assert query.filters() == [
        ['categories = "cs.CL"', 'categories = "cs.LG"'],
        'status = "published"',
        "ai_related = true",
        "published_ts >= 100",
    ]
    assert query.sort_by() == ["published_ts:desc"]


def test_no_filters_by_default() -> None:
    assert PaperQuery().filters() == []


def test_atom_feed_drops_characters_xml_forbids() -> None:
    from lxml import etree

    from services.query.atom import render_atom

    paper = {"paper_id": "arxiv:1", "title": "Bad\x0ctitle\x00", "authors": ["A\x1b B"], "abstract": "x\x08y"}
    xml = render_atom(
        feed_id="urn:x", title="search \x0c", self_url="http://h/feeds?q=%0C", site_url="http://h", papers=[paper]
    )
    entry = etree.fromstring(xml).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None and entry.findtext("{http://www.w3.org/2005/Atom}title") == "Badtitle"


def test_atom_entries_link_papers_by_escaped_ids() -> None:
    """A DOI may carry `<`, `#` or `;`: the entry's link escapes them so it points at the paper, whole."""
    from lxml import etree

    from services.query.atom import render_atom

    paper = {"paper_id": "doi:10.1002/(SICI)1097-4571<3::AID#1>", "title": "t"}
    xml = render_atom(feed_id="urn:x", title="t", self_url="http://h/f", site_url="http://h/", papers=[paper])
    entry = etree.fromstring(xml).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None
    link = entry.find("{http://www.w3.org/2005/Atom}link").get("href")  # type: ignore[union-attr]
    assert link == "http://h/papers/doi:10.1002/%28SICI%291097-4571%3C3::AID%231%3E"


def test_has_code_is_one_of_two_fixed_clauses_on_the_code_link() -> None:
    assert PaperQuery(has_code=True).filters() == ["links.code EXISTS"]
    assert PaperQuery(has_code=False).filters() == ["NOT links.code EXISTS"]
