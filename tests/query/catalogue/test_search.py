"""Search queries and the Atom feeds of search results."""

from datetime import UTC, date, datetime

import pytest
from pydantic import ValidationError

from papertrail.domain.search_document import PaperFilter, venue_fields
from services.query.catalogue.reads.search import (
    MORE_BY_MEANING,
    PaperListing,
    PaperQuery,
    PaperSearch,
    SimilarSearch,
    also_by_meaning,
)


def test_a_query_sorts_newest_first_by_its_time_and_filters_by_its_filter() -> None:
    query = PaperQuery(filter=PaperFilter(status="published"), sort="published")
    assert query.sort_by() == ["published_ts:desc"]
    assert query.filters() == ['status = "published"']


def test_one_model_of_search_parameters_makes_the_query_and_the_links() -> None:
    listing = PaperListing(q="graph", category=["cs.LG"], since=date(2026, 5, 1), sort="published", page=2)
    query = listing.query()
    assert (query.q, query.sort, query.page, query.size) == ("graph", "published", 2, 20)
    assert query.filters() == [
        ['categories = "cs.LG"'],
        f"published_ts >= {int(datetime(2026, 5, 1, tzinfo=UTC).timestamp())}",
    ]
    assert listing.url(sort="updated") == "/?q=graph&category=cs.LG&since=2026-05-01&sort=updated"
    # the feed's search: the same filters, on its own sort and size
    feed = PaperSearch(q="graph", category=["cs.LG"]).paper_query(sort="ingested", page=1, size=50)
    assert (feed.sort, feed.size, feed.filters()) == ("ingested", 50, [['categories = "cs.LG"']])
    with pytest.raises(ValidationError, match=r"category\.0\n  String should match pattern"):
        PaperSearch(category=["cs.LG OR 1"])


def test_days_at_the_ends_of_the_calendar_are_utc_days_not_a_conversion_error() -> None:
    """A naive day's timestamp is taken in the server's zone, and fails for year 1 (a 500 before)."""
    first, last = datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
    listing = PaperListing(since="0001-01-01", until="9999-12-31").query()
    assert (listing.filter.since_ts, listing.filter.until_ts) == (int(first.timestamp()), int(last.timestamp()))
    assert PaperListing(until="0001-01-01").query().filter.until_ts == int(first.timestamp()) + 86_399
    assert PaperSearch(summarized_since="0001-01-01").paper_query("updated", 1, 20).filter.summarized_since_ts
    assert SimilarSearch(since="0001-01-01").paper_filter().since_ts == int(first.timestamp())


def test_a_time_is_written_as_the_document_says() -> None:
    """A date or an RFC 3339 date-time with its offset; not a number of seconds, nor a time in no zone."""
    assert PaperSearch.model_validate({"until": "2026-05-01", "since": "2026-05-01T08:00:00+08:00"}).since
    for written in ("0.5", "1700000000", "2026-05-01T08:00:00"):
        with pytest.raises(ValidationError):
            PaperSearch.model_validate({"until": written})


def test_atom_feed_drops_characters_xml_forbids() -> None:
    from lxml import etree

    from services.query.catalogue.reads.atom import render_atom

    paper = {"paper_id": "arxiv:1", "title": "Bad\x0ctitle\x00", "authors": ["A\x1b B"], "abstract": "x\x08y"}
    xml = render_atom(
        site_url="http://h", path="/feeds/search", title="search \x0c", self_url="http://h/feeds?q=%0C", papers=[paper]
    )
    entry = etree.fromstring(xml).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None and entry.findtext("{http://www.w3.org/2005/Atom}title") == "Badtitle"


def test_atom_entries_link_papers_by_escaped_ids() -> None:
    """A DOI may carry `<`, `#` or `;`: the entry's link escapes them so it points at the paper, whole."""
    from lxml import etree

    from services.query.catalogue.reads.atom import render_atom

    paper = {"paper_id": "doi:10.1002/(SICI)1097-4571<3::AID#1>", "title": "t"}
    xml = render_atom(site_url="http://h/", path="feeds/x", title="t", self_url="http://h/f", papers=[paper])
    entry = etree.fromstring(xml).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None
    link = entry.find("{http://www.w3.org/2005/Atom}link").get("href")  # type: ignore[union-attr]
    assert link == "http://h/papers/doi:10.1002/%28SICI%291097-4571%3C3::AID%231%3E"


def test_atom_summary_is_the_abstract_as_read() -> None:
    """A paper with no Chinese TL;DR yet: its entry's summary is the abstract as plain text (2605.14068, corpus)."""
    from lxml import etree

    from services.query.catalogue.reads.atom import render_atom

    written = r"improves over \texttt{Qwen-3-VL-8B-Thinking} from \textbf{2.8\%} to $x$"
    paper = {"paper_id": "arxiv:2605.14068", "title": "CurveBench", "abstract": written}
    xml = render_atom(site_url="http://h", path="/feeds/x", title="t", self_url="http://h/f", papers=[paper])
    entry = etree.fromstring(xml).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None
    assert (
        entry.findtext("{http://www.w3.org/2005/Atom}summary") == "improves over Qwen-3-VL-8B-Thinking from 2.8% to $x$"
    )


def test_venue_filters_ask_one_accepted_claim_to_meet_them_all() -> None:
    """ICML 2025 and NeurIPS 2026 claimed by one paper: venue=ICML&venue_year=2026 must not find it; a submission is
    never counted; the venue's names are one."""
    from schemas.paper import Paper, PaperIds, VenueClaim

    claims = [
        VenueClaim(venue="ICML", venue_key="AI/icml", year=2025, status="accepted", ccf_rank="A", source="comment",
                   text="ICML 2025"),
        VenueClaim(venue="NeurIPS", year=2026, status="accepted", track="workshop", source="comment",
                   text="NeurIPS 2026 workshop"),
        VenueClaim(venue="CVPR", year=2026, status="submitted", ccf_rank="A", source="comment", text="Submitted"),
    ]  # fmt: skip
    moment = datetime(2026, 1, 2, tzinfo=UTC)
    paper = Paper(id="arxiv:2601.00001", ids=PaperIds(arxiv="2601.00001"), title="t", venue_claims=claims,
                  first_seen=moment, updated_at=moment)  # fmt: skip
    fields = venue_fields(paper)
    assert (fields["accepted"], fields["accepted_venues"], fields["ccf_ranks"]) == (True, ["ICML", "NeurIPS"], ["A"])
    assert fields["venue_tracks"] == ["main", "workshop"] and fields["venue_years"] == [2025, 2026]

    def finds(**wanted: object) -> bool:
        (clause,) = PaperFilter(**wanted).clauses()  # type: ignore[arg-type]
        values = [c.split(" = ", 1)[1] for c in (clause if isinstance(clause, list) else [clause])]
        return any(v.strip('"') in fields["venue_tags"] for v in values)

    assert finds(venue="International Conference on Machine Learning", venue_year=2025, ccf_rank="A")
    assert not finds(venue="ICML", venue_year=2026) and not finds(venue="NeurIPS", track="main")
    assert (
        finds(venue="neurips", track="workshop")
        and not finds(venue="CVPR")
        and not finds(ccf_rank="A", venue_year=2026)
    )
    assert PaperFilter(venue='x" OR 1').clauses() == [['venue_tags = "v=x or 1"', 'venue = "x\\" OR 1"']]
    assert PaperFilter(accepted=False).clauses() == ["NOT accepted = true"]  # documents from before have no field
    assert venue_fields(paper.model_copy(update={"venue_claims": [], "status": "published"}))["accepted"] is True


def test_a_published_record_without_claims_is_found_by_its_venue_year_and_rank() -> None:
    """A PMLR paper: published at "ICML 2025" (the source's name), no claim of its own; the filters read the record."""
    from schemas.paper import Paper, PaperIds

    moment = datetime(2026, 1, 2, tzinfo=UTC)
    paper = Paper(id="openreview:QY7Au9nZwp", ids=PaperIds(openreview="QY7Au9nZwp"), title="t", venue="ICML 2025",
                  year=2025, status="published", first_seen=moment, updated_at=moment)  # fmt: skip
    fields = venue_fields(paper)
    assert (fields["accepted"], fields["accepted_venues"], fields["venue_years"]) == (True, ["ICML"], [2025])
    assert (fields["ccf_ranks"], fields["venue_tracks"], fields["venue_claims"]) == (["A"], ["main"], [])
    assert {"v=icml", "v=icml|y=2025|r=A", "r=A"} <= set(fields["venue_tags"])
    # a preprint with the same venue text is not published: nothing is read from it
    assert venue_fields(paper.model_copy(update={"status": "preprint"}))["venue_tags"] == []


def test_a_journal_paper_is_found_by_the_journals_names_rank_and_track() -> None:
    """arXiv 2605.13202's comment (May 2026 corpus): "Accepted for publication in IEEE Transactions on Circuits and
    Systems for Video Technology (TCSVT)". Its claim is the journal's, ranked B on the CCF list, track journal."""
    from papertrail.domain.venues.claims import venue_claims
    from schemas.paper import Paper, PaperIds
    from tests.support.sources import corpus_comments

    moment = datetime(2026, 5, 20, tzinfo=UTC)
    claims = venue_claims(corpus_comments()["2605.13202"], None, [])
    paper = Paper(id="arxiv:2605.13202", ids=PaperIds(arxiv="2605.13202"), title="t", venue_claims=claims,
                  first_seen=moment, updated_at=moment)  # fmt: skip
    fields = venue_fields(paper)
    assert (fields["accepted_venues"], fields["ccf_ranks"], fields["venue_tracks"]) == (["TCSVT"], ["B"], ["journal"])

    def finds(**wanted: object) -> bool:
        (clause,) = PaperFilter(**wanted).clauses()  # type: ignore[arg-type]
        values = [c.split(" = ", 1)[1] for c in (clause if isinstance(clause, list) else [clause])]
        return any(v.strip('"') in fields["venue_tags"] for v in values)

    assert finds(venue="IEEE Transactions on Circuits and Systems for Video Technology", ccf_rank="B")
    assert finds(venue="IEEE TCSVT", track="journal") and finds(ccf_rank="B", track="journal")
    assert not finds(track="main") and not finds(ccf_rank="A")


@pytest.mark.parametrize(
    ("q", "semantic", "page", "found", "searches_chinese", "more"),
    [
        ("隐式评价", 0.0, 1, 1, True, True),  # one paper holds the words: the closest in meaning follow
        ("隐式评价", 0.0, 1, 9, True, True),
        ("隐式评价", 0.0, 1, 10, True, False),  # a page's worth by words: they stand alone
        ("隐式评价", 0.0, 1, 0, True, False),  # none: answered by meaning instead (by_meaning_instead)
        ("隐式评价", 0.0, 2, 3, True, False),  # only below the first page
        ("隐式评价", 1.0, 1, 3, True, False),  # already by meaning
        ("隐式评价", 0.0, 1, 3, False, False),  # no multilingual search vectors
        ("implicit evaluation", 0.0, 1, 3, True, False),  # English words: the papers hold them
    ],
)
def test_a_chinese_search_by_words_that_finds_few_is_followed_by_the_closest_in_meaning(
    q: str, semantic: float, page: int, found: int, searches_chinese: bool, more: bool
) -> None:
    query = PaperQuery(q=q, semantic=semantic, page=page, sort="updated")
    also = also_by_meaning(query, found, searches_chinese)
    assert (also is not None) == more
    if also is not None:  # the closest first, enough to leave out those the words found
        assert (also.mode, also.sort, also.page, also.size) == ("semantic", "relevance", 1, found + MORE_BY_MEANING)


def test_the_citation_sorts_order_by_their_fields_and_date_by_first_publication() -> None:
    listing = PaperListing(sort="hot", min_citations=10, since=date(2026, 5, 1))
    query = listing.query()
    assert query.sort_by() == ["citations_per_month:desc"]
    assert query.filters() == [
        "citation_count >= 10",
        f"published_ts >= {int(datetime(2026, 5, 1, tzinfo=UTC).timestamp())}",
    ]
    assert PaperListing(sort="cited").query().sort_by() == ["citation_count:desc"]
    with pytest.raises(ValidationError, match="min_citations"):
        PaperSearch(min_citations=-1)
