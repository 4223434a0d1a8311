"""关注 from where the reader is (issue 38 §4), rendered by the pages' own templates: the author, search, paper,
本周录用 and deadline pages each offer a one-click follow form (the page's CSRF token, the follow's fields, the page
to come back to), 已关注 with an unfollow when the reader follows the same thing, and a sign-in link back to the page
when signed out; in Chinese and in English."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from lxml import html
from starlette.requests import Request

from papertrail.domain.names import display_name_key
from papertrail.domain.venues.catalogue import default_index
from papertrail.runtime.wording import Translator
from schemas.events import Follow, SeedPaper
from services.query.catalogue.reads.overview import Figure, Overview
from services.query.catalogue.reads.search import PaperListing
from services.query.catalogue.reads.venues import DeadlineQuery, awaited, deadlines
from services.query.web import follow_offers
from services.query.web import format as fmt
from services.query.web.follow_offers import FollowsHere
from services.query.web.render import gettext_functions, templates
from tests.support.browsing import launch_chromium, needs_chromium
from tests.support.page_details import acl_paper, detail

NOW = datetime(2026, 12, 7, 3, 0, tzinfo=UTC)
USER = {"_id": "u1", "name": "cy"}
LABELS = {
    "zh": ("关注", "已关注", "取消关注", "登录后关注"),
    "en": ("Follow", "Following", "Unfollow", "Sign in to follow"),
}


def request_for(path: str, query: str = "") -> Request:
    return Request({"type": "http", "method": "GET", "path": path, "query_string": query.encode(), "headers": []})


def render(template: str, lang: str, path: str, query_string: str = "", **context: Any) -> Any:
    return html.fromstring(page_html(template, lang, path, query_string, **context))


def page_html(template: str, lang: str, path: str, query_string: str = "", **context: Any) -> str:
    t = Translator(lang)
    page = templates.get_template(template).render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone="Asia/Shanghai", zone_label=fmt.zone_label("Asia/Shanghai", t),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p),
        request=request_for(path, query_string), csrf="the-csrf-token", **{"user": USER, **context},
    )  # fmt: skip
    return page


def follow(kind: str, **fields: Any) -> Follow:
    return Follow(id="f" * 32, user_id="u1", kind=kind, name="x", created_at=NOW, **fields)


def offered(tree: Any, kind: str) -> list[Any]:
    return tree.xpath(f'.//span[@class="follow-here"][@data-kind="{kind}"]')


def form_of(button: Any) -> dict[str, str]:
    """The follow form's action and fields (what one click posts)."""
    form = button.xpath(".//form")[0]
    return {"action": form.get("action"), **{i.get("name"): i.get("value") for i in form.xpath(".//input")}}


# --- the author page ---------------------------------------------------------------------------------------------
AUTHOR = "Yinghui Li"
AUTHOR_KEY = display_name_key(AUTHOR)


def author_page(lang: str, **context: Any) -> Any:
    paper = detail(acl_paper())
    author = {"key": AUTHOR_KEY, "names": [AUTHOR], "total": 1, "hits": [paper], "initial_key": "li y",
              "initials_only": False, "candidates": []}  # fmt: skip
    return render("author.html", lang, f"/authors/{AUTHOR_KEY}", author=author, **context)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_author_page_offers_an_author_follow_of_its_name_back_to_the_page(lang: str) -> None:
    button = offered(author_page(lang, here=FollowsHere()), "author")
    assert len(button) == 1
    assert button[0].xpath(".//button")[0].text_content() == LABELS[lang][0]
    assert form_of(button[0]) == {
        "action": "/follow", "csrf": "the-csrf-token", "next": f"/authors/{AUTHOR_KEY}",
        "kind": "author", "author": AUTHOR, "name": AUTHOR,
    }  # fmt: skip


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_author_the_reader_follows_shows_following_with_an_unfollow_back_to_the_page(lang: str) -> None:
    here = FollowsHere((follow("author", author="yinghui li"),))
    button = offered(author_page(lang, here=here), "author")[0]
    assert LABELS[lang][1] in button.text_content() and not button.xpath('.//form[@action="/follow"]')
    assert form_of(button) == {"action": f"/me/follows/{'f' * 32}/delete", "csrf": "the-csrf-token",
                               "next": f"/authors/{AUTHOR_KEY}"}  # fmt: skip
    assert button.xpath(".//button")[0].text_content() == LABELS[lang][2]


def test_a_pinned_author_follow_is_not_the_page_authors_plain_follow() -> None:
    here = FollowsHere((follow("author", author=AUTHOR, affiliation="Tsinghua"),))
    assert form_of(offered(author_page("zh", here=here), "author")[0])["action"] == "/follow"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_signed_out_the_author_page_links_to_sign_in_and_back(lang: str) -> None:
    button = offered(author_page(lang, user=None), "author")[0]
    link = button.xpath(".//a")[0]
    assert link.text_content() == LABELS[lang][3] and not button.xpath(".//form")
    target = urlsplit(link.get("href"))
    assert target.path == "/login" and parse_qs(target.query)["next"] == [f"/authors/{AUTHOR_KEY}"]


# --- the paper page: papers like this one -----------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_paper_page_offers_a_similar_follow_seeded_by_the_paper(lang: str) -> None:
    paper = detail(acl_paper())
    similar = {"vector": "embedded", "hits": []}
    path = f"/papers/{paper['paper']['id']}"
    tree = render("paper.html", lang, path, paper=paper, topic_hits=[], similar=similar, here=FollowsHere())
    fields = form_of(offered(tree, "similar")[0])
    assert (fields["kind"], fields["seeds"], fields["next"]) == ("similar", paper["paper"]["id"], path)
    assert fields["name"] == "≈ " + paper["paper"]["title"]
    seeded = follow("similar", seeds=[SeedPaper(paper_id=paper["paper"]["id"], title="t")], threshold=0.6)
    again = render("paper.html", lang, path, paper=paper, topic_hits=[], similar=similar, here=FollowsHere((seeded,)))
    assert LABELS[lang][1] in offered(again, "similar")[0].text_content()


# --- the home page: a search, and 本周录用's venues ------------------------------------------------------------------
def home(lang: str, q: str, accepted: list[tuple[str, int, str]], here: FollowsHere, **context: Any) -> Any:
    return html.fromstring(home_html(lang, q, accepted, here, **context))


def home_html(lang: str, q: str, accepted: list[tuple[str, int, str]], here: FollowsHere, **context: Any) -> str:
    figure = Figure(value=1, query="/api/papers")
    overview = Overview(
        window_start=NOW, window_end=NOW, display_timezone="Asia/Shanghai", new_papers=figure, new_ai_related=figure,
        revisions=figure, new_summaries=Figure(value=0), total_papers=figure, total_ai_related=figure,
        total_with_revisions=figure, total_hf_picks=figure, sources=[], any_source_failing=False,
    )  # fmt: skip
    query = f"q={q}&category=cs.CL" if q else ""
    browse = PaperListing.model_validate({"q": q, "category": ["cs.CL"]} if q else {})
    return page_html(
        "home.html", lang, "/", query, overview=overview, links={}, browse=browse, accepted=accepted,
        sorts=("updated",), results={"total": 0, "hits": [], "facets": {}}, problem=None, pages=[1], here=here,
        **context,
    )  # fmt: skip


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_search_offers_a_keyword_follow_of_its_words_beside_its_atom_feed(lang: str) -> None:
    tree = home(lang, "retrieval", [], FollowsHere())
    line = tree.get_element_by_id("follow-search")
    fields = form_of(offered(line, "keyword")[0])
    assert (fields["kind"], fields["query"], fields["next"]) == ("keyword", "retrieval", "/?q=retrieval&category=cs.CL")
    feed = line.xpath('.//a[@class="feed"]/@href')[0]
    assert urlsplit(feed).path == "/feeds/search.atom"
    assert parse_qs(urlsplit(feed).query) == {"q": ["retrieval"], "category": ["cs.CL"]}
    following = home(lang, "retrieval", [], FollowsHere((follow("keyword", query="retrieval"),)))
    assert LABELS[lang][1] in following.get_element_by_id("follow-search").text_content()
    assert not home(lang, "", [], FollowsHere()).xpath('//*[@id="follow-search"]')  # no search, no search follow


@needs_chromium
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_in_headless_chromium_the_search_follow_form_stays_on_its_line(lang: str, tmp_path: Path) -> None:
    """A browser's HTML parser ends a <p> where a <form> starts: the search's follow form must sit in a block that
    may hold it, or it is moved out of its line, away from the Atom link beside it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=False)
        try:
            tab = browser.new_page()
            tab.set_content(home_html(lang, "retrieval", [], FollowsHere()))
            line = tab.locator("#follow-search")
            assert line.locator("form.follow-here-form").count() == 1
            assert line.locator("a.feed").count() == 1
        finally:
            browser.close()


def test_a_search_that_is_no_keyword_expression_offers_no_follow() -> None:
    assert not offered(home("zh", '"unclosed', [], FollowsHere()), "keyword")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_this_weeks_accepted_venues_offer_a_venue_follow_of_the_catalogue_venue(lang: str) -> None:
    accepted = [("ICML", 3, "/?venue=ICML"), ("Workshop of Nowhere", 1, "/?venue=Workshop+of+Nowhere")]
    week = home(lang, "", accepted, FollowsHere()).get_element_by_id("accepted-this-week")
    buttons = offered(week, "venue")
    assert len(buttons) == 1  # a venue the catalogue does not know is no venue follow
    assert {k: v for k, v in form_of(buttons[0]).items() if k != "csrf"} == {
        "action": "/follow", "next": "/", "kind": "venue", "venue": "AI/icml", "name": "ICML",
    }  # fmt: skip
    held = FollowsHere((follow("venue", venue_key="AI/icml"),))
    assert LABELS[lang][1] in offered(home(lang, "", accepted, held), "venue")[0].text_content()
    an_edition = FollowsHere((follow("venue", venue_key="AI/icml", venue_year=2026),))  # another follow
    assert form_of(offered(home(lang, "", accepted, an_edition), "venue")[0])["action"] == "/follow"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_signed_out_this_weeks_venues_ask_to_sign_in_once_not_beside_each(lang: str) -> None:
    accepted = [("ICML", 3, "/?venue=ICML"), ("ACL", 2, "/?venue=ACL"), ("CVPR", 8, "/?venue=CVPR")]
    week = home(lang, "", accepted, FollowsHere(), user=None).get_element_by_id("accepted-this-week")
    sign_in = week.xpath('.//a[starts-with(@href, "/login")]')
    assert len(sign_in) == 1 and sign_in[0].get("href") == "/login?next=/"
    assert [a.text_content().split()[0] for a in week.xpath('.//a[starts-with(@href, "/?venue=")]')] == [
        "ICML", "ACL", "CVPR",
    ]  # fmt: skip


def test_a_venue_offer_names_its_edition_when_given_one() -> None:
    assert follow_offers.venue("ICML", 2026) == {"kind": "venue", "venue": "AI/icml", "venue_year": "2026",
                                                  "name": "ICML 2026"}  # fmt: skip


# --- the deadlines page --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_deadline_offers_a_venue_follow_of_its_venue(lang: str) -> None:
    venues = list(default_index().venues.values())
    rows, waiting = deadlines(DeadlineQuery(), NOW, venues), awaited(DeadlineQuery(), NOW, venues, set())
    assert rows and waiting, "the venue catalogue holds deadlines after the test's date, and CCF-A venues awaited"
    tree = render(
        "deadlines.html", lang, "/deadlines", query=DeadlineQuery(), rows=rows, awaited=waiting, now=NOW,
        shown_zone="Asia/Shanghai", fields={}, problem=None, local=lambda moment: moment.isoformat(),
        here=FollowsHere(),
    )  # fmt: skip
    for row in tree.find_class("deadline") + tree.find_class("awaited-edition"):
        fields = form_of(offered(row, "venue")[0])
        assert (fields["venue"], fields["next"]) == (row.get("data-venue"), "/deadlines")
        assert "venue_year" not in fields
