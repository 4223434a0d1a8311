"""关注 from where the reader is (issue 38 §4) over the real pipeline: each page's follow form, posted as a browser
posts it (the session cookie, the page's CSRF token), creates the follow the API then lists and comes back to the
page, which shows 已关注; a `next` that is no path of this site is refused and nothing is followed; and headless
Chromium clicks 关注 on an author page at desktop and phone width."""

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from papertrail.domain.names import display_name_key
from tests.support.browsing import ARTIFACTS, doc, launch_chromium, needs_chromium, signed_in, text
from tests.support.pipelines import Pipeline
from tests.support.query import ArxivPageSite
from tests.support.query_api import RECORDS
from tests.support.services import create_user

pytestmark = pytest.mark.integration
SHOTS = ARTIFACTS.parent / "follow-here"


@pytest.fixture(scope="module")
def pipeline(arxiv_page_site: ArxivPageSite) -> Pipeline:
    return arxiv_page_site.pipeline


@pytest.fixture(scope="module")
def signed_in_reader(pipeline: Pipeline) -> Iterator[tuple[Any, str]]:
    """One reader of this module, signed in once through the login form (sign-ins per address are limited, and the
    pipeline is shared with test_pages): the browser and the reader's API token."""
    token = create_user(pipeline.env, f"follow-here-{uuid.uuid4().hex[:12]}")
    with signed_in(pipeline, token) as client:
        yield client, token


@pytest.fixture
def reader(pipeline: Pipeline, signed_in_reader: tuple[Any, str]) -> Iterator[tuple[Any, str]]:
    """The module's reader, with no follows when each test starts and ends."""
    yield signed_in_reader
    _, token = signed_in_reader
    for made in follows_of(pipeline, token):
        gone = httpx.delete(
            pipeline.url("query", f"/api/follows/{made['id']}"), headers={"Authorization": f"Bearer {token}"}
        )
        assert gone.status_code == 204, gone.text


def follows_of(pipeline: Pipeline, token: str) -> list[dict[str, Any]]:
    answer = httpx.get(pipeline.url("query", "/api/follows"), headers={"Authorization": f"Bearer {token}"}, timeout=10)
    answer.raise_for_status()
    return answer.json()


def click_follow(client: Any, path: str, kind: str, **params: str) -> tuple[httpx.Response, dict[str, str]]:
    """Open the page and post its follow form of this kind as it stands: the answer and the fields posted."""
    tree = doc(client.get(path, params=params or None))
    form = tree.xpath(f'//span[@class="follow-here"][@data-kind="{kind}"]//form[@action="/follow"]')[0]
    fields = {i.get("name"): i.get("value") for i in form.xpath(".//input")}
    return client.post("/follow", data=fields), fields


def following_here(client: Any, path: str, kind: str, **params: str) -> bool:
    spans = doc(client.get(path, params=params or None)).xpath(f'//span[@class="follow-here"][@data-kind="{kind}"]')
    return "已关注" in text(spans[0])


def test_an_author_follow_from_the_author_page_comes_back_to_it_followed(
    pipeline: Pipeline, reader: tuple[Any, str]
) -> None:
    client, token = reader
    name = RECORDS[0].authors[0].name
    key = display_name_key(name)
    answer, _ = click_follow(client, f"/authors/{key}", "author")
    assert answer.status_code == 303 and answer.headers["location"] == f"/authors/{quote(key)}"
    [made] = follows_of(pipeline, token)
    assert (made["kind"], made["author"]) == ("author", name)
    assert following_here(client, f"/authors/{key}", "author")
    unfollow = doc(client.get(f"/authors/{key}")).xpath('//form[contains(@class, "unfollow")]')[0]
    undone = client.post(
        unfollow.get("action"), data={i.get("name"): i.get("value") for i in unfollow.xpath(".//input")}
    )
    assert undone.status_code == 303 and undone.headers["location"] == f"/authors/{quote(key)}"
    assert follows_of(pipeline, token) == [] and not following_here(client, f"/authors/{key}", "author")


def test_a_search_is_followed_as_a_keyword_follow_of_its_words(pipeline: Pipeline, reader: tuple[Any, str]) -> None:
    client, token = reader
    answer, _ = click_follow(client, "/", "keyword", q="Banach")
    assert answer.status_code == 303 and answer.headers["location"] == "/?q=Banach"
    [made] = follows_of(pipeline, token)
    assert (made["kind"], made["query"], made["fields"]) == ("keyword", "Banach", "both")
    assert following_here(client, "/", "keyword", q="Banach")


def test_a_chinese_search_that_cannot_match_yet_goes_to_the_follows_page_saying_why(
    pipeline: Pipeline, reader: tuple[Any, str]
) -> None:
    client, token = reader  # this site has no summary model: no paper holds Chinese words
    answer, _ = click_follow(client, "/", "keyword", q="大模型推理")
    assert answer.status_code == 303 and answer.headers["location"].startswith("/me/follows?")
    assert doc(client.get(answer.headers["location"])).get_element_by_id("follow-cannot-match") is not None
    [made] = follows_of(pipeline, token)
    assert made["query"] == "大模型推理"


def test_papers_like_this_one_is_a_similar_follow_seeded_by_the_paper(
    pipeline: Pipeline, reader: tuple[Any, str]
) -> None:
    client, token = reader
    paper_id = f"arxiv:{RECORDS[0].record_id}"
    answer, _ = click_follow(client, f"/papers/{paper_id}", "similar")
    assert answer.status_code == 303 and answer.headers["location"] == f"/papers/{paper_id}"
    [made] = follows_of(pipeline, token)
    assert made["kind"] == "similar" and [seed["paper_id"] for seed in made["seeds"]] == [paper_id]
    assert following_here(client, f"/papers/{paper_id}", "similar")


def test_a_deadline_is_followed_as_a_venue_follow_of_its_venue(pipeline: Pipeline, reader: tuple[Any, str]) -> None:
    client, token = reader
    answer, fields = click_follow(client, "/deadlines", "venue")
    assert answer.status_code == 303 and answer.headers["location"] == "/deadlines"
    [made] = follows_of(pipeline, token)
    assert (made["kind"], made["venue_key"], made.get("venue_year")) == ("venue", fields["venue"], None)
    row = doc(client.get("/deadlines")).xpath(f'//tr[@data-venue="{fields["venue"]}"]')[0]
    assert "已关注" in text(row)


def test_a_followed_venue_whose_next_deadline_is_not_announced_is_listed(
    pipeline: Pipeline, reader: tuple[Any, str]
) -> None:
    """A CCF-B or C venue with no deadline ahead is listed as awaited only once the reader follows it."""
    from datetime import UTC, datetime

    from papertrail.domain.venues.catalogue import default_index
    from papertrail.domain.venues.deadlines import awaited_editions

    client, _ = reader
    venues = [v for v in default_index().venues.values() if v.ccf_rank in ("B", "C")]
    awaited = awaited_editions(venues, datetime.now(UTC), followed=[v.key for v in venues])[0]  # the site's clock
    listed = f'//li[@data-venue="{awaited.venue.key}"]'
    assert not doc(client.get("/deadlines")).xpath(listed)  # not followed, not CCF-A: not listed
    fields = {"kind": "venue", "venue": awaited.venue.key, "name": awaited.venue.acronym, "next": "/deadlines"}
    assert client.post("/follow", data={"csrf": client.csrf, **fields}).status_code == 303
    [line] = doc(client.get("/deadlines")).xpath(listed)
    assert text(line).startswith(f"{awaited.venue.acronym} {awaited.year}: 尚未公布 (上届截稿 ") and "已关注" in text(
        line
    )


def test_a_venue_edition_is_followed_as_its_link_names_it(pipeline: Pipeline, reader: tuple[Any, str]) -> None:
    client, token = reader
    fields = {"kind": "venue", "venue": "AI/icml", "venue_year": "2026", "name": "ICML 2026", "next": "/"}
    answer = client.post("/follow", data={"csrf": client.csrf, **fields})
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    [made] = follows_of(pipeline, token)
    assert (made["venue_key"], made["venue_year"]) == ("AI/icml", 2026)


@pytest.mark.parametrize("elsewhere", ["https://evil.example/", "//evil.example/x", "/\\evil.example", ""])
def test_a_next_that_is_no_path_of_this_site_is_refused_and_nothing_followed(
    pipeline: Pipeline, reader: tuple[Any, str], elsewhere: str
) -> None:
    client, token = reader
    fields = {"kind": "keyword", "query": "kernel", "name": "kernel", "next": elsewhere}
    answer = client.post("/follow", data={"csrf": client.csrf, **fields})
    assert answer.status_code == 400 and "不是本站的页面" in answer.text
    assert follows_of(pipeline, token) == []


def test_a_follow_without_this_browsers_csrf_token_is_refused(pipeline: Pipeline, reader: tuple[Any, str]) -> None:
    client, token = reader
    answer = client.post("/follow", data={"kind": "keyword", "query": "kernel", "name": "k", "next": "/"})
    assert answer.status_code == 403 and follows_of(pipeline, token) == []


@needs_chromium
def test_in_headless_chromium_follow_an_author_at_desktop_and_phone_width(
    pipeline: Pipeline, reader: tuple[Any, str], tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    client, token = reader
    key = display_name_key(RECORDS[0].authors[0].name)
    author_page = pipeline.url("query", f"/authors/{quote(key)}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=False)  # the pages work without it
        try:
            tab = browser.new_page()
            tab.goto(author_page)
            sign_in = tab.get_by_role("link", name="登录后关注")  # signed out: to sign in, and back to the author
            assert sign_in.get_attribute("href") == f"/login?next={quote(f'/authors/{key}')}"
            tab.screenshot(path=SHOTS / "author-signed-out.png", full_page=True)
            # the module's reader's session (its sign-in through the form is test_pages' and the fixture's)
            cookies = [
                {"name": c.name, "value": c.value, "url": pipeline.url("query", "/")} for c in client.cookies.jar
            ]
            browser.add_cookies(cookies)
            for width in (1400, 390):
                tab.set_viewport_size({"width": width, "height": 900})
                tab.goto(author_page)
                button = tab.get_by_role("button", name="关注这位作者")
                box = button.bounding_box()
                assert box is not None and box["x"] + box["width"] <= width, (width, box)
                ink, paper = button.evaluate("b => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]")
                assert ink != paper, f"the button's text is the colour of its background: {ink}"
                tab.screenshot(path=SHOTS / f"author-{width}-before.png", full_page=True)
                button.click()
                expect(tab.locator(".follow-here .following")).to_have_text("已关注")  # back on the page, followed
                assert tab.url == author_page
                assert [f["kind"] for f in follows_of(pipeline, token)] == ["author"]
                tab.screenshot(path=SHOTS / f"author-{width}-following.png", full_page=True)
                tab.get_by_role("button", name="取消关注").click()  # for the next width's click
                expect(tab.get_by_role("button", name="关注这位作者")).to_be_visible()
        finally:
            browser.close()
    assert follows_of(pipeline, token) == []
