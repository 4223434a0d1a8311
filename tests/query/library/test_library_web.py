"""The library page and the 收藏 / 不相关 / 已读 buttons over the real query service, without JavaScript (forms that
redirect back) and as the page's script posts them (JSON); each form carries the CSRF token field."""

import base64
import json
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from lxml import html

from services.query.library.citations import export
from tests.support.browsing import ARTIFACTS, launch_chromium, needs_chromium
from tests.support.library_papers import arxiv_oai
from tests.support.reader_site import Browser, Site, browser

pytestmark = [pytest.mark.integration, pytest.mark.reader_site(readers=("ana", "bo", "cy", "dee"))]
PAPERS = list(arxiv_oai())


def buttons(page: str, paper_id: str) -> dict[str, tuple[str, str]]:
    """The mark buttons of a paper on a page: class → (value, aria-pressed)."""
    tree = html.fromstring(page)
    [form] = tree.xpath(f'//form[@data-marks][input[@name="paper_id"][@value="{paper_id}"]]')
    assert form.xpath('input[@name="csrf"]')  # filled once web accounts set a session's token
    return {b.get("class").split()[-1]: (b.get("value"), b.get("aria-pressed")) for b in form.xpath("button")}


def test_the_buttons_work_without_javascript_and_show_the_marks(site: Site) -> None:
    paper = PAPERS[5]
    with browser(site, "ana") as ana:
        page = ana.get(f"/papers/{paper.id}")
        assert buttons(page.text, paper.id)["mark-save"] == ("save", "false")
        back = ana.post("/me/marks", data={"paper_id": paper.id, "mark": "save", "next": f"/papers/{paper.id}"})
        assert back.status_code == 303 and back.headers["location"] == f"/papers/{paper.id}"
        state = buttons(ana.get(f"/papers/{paper.id}").text, paper.id)
        assert state["mark-save"] == ("remove", "true") and state["mark-read"] == ("read", "false")
        ana.post("/me/marks", data={"paper_id": paper.id, "mark": "read", "next": "https://evil.example/"})
        assert buttons(ana.get(f"/papers/{paper.id}").text, paper.id)["mark-read"] == ("unread", "true")
        library = ana.get("/me/library")
        assert library.status_code == 200 and paper.title.split()[0] in library.text
        assert buttons(library.text, paper.id)["mark-save"] == ("remove", "true")


def test_the_script_posts_the_same_form_for_json(site: Site) -> None:
    paper = PAPERS[6]
    with browser(site, "ana") as ana:
        answer = ana.post(
            "/me/marks",
            data={"paper_id": paper.ids.arxiv, "mark": "not_relevant"},
            headers={"Accept": "application/json"},
        )
        assert answer.status_code == 200
        assert answer.json() == {"paper_id": paper.id, "saved": False, "label": "negative", "read": False}
        unknown = ana.post("/me/marks", data={"paper_id": paper.id, "mark": "love"})
        assert unknown.status_code == 422
    forged = httpx.post(f"{site.base}/me/marks", data={"paper_id": paper.id, "mark": "save"})
    assert forged.status_code == 403  # no CSRF token of this browser: refused before anything else
    with Browser(base_url=site.base, timeout=30) as anyone:  # a browser of the site, signed in to nothing
        anyone.csrf = str(html.fromstring(anyone.get("/login").text).xpath('//input[@name="csrf"]/@value')[0])
        signed_out = anyone.post(
            "/me/marks", data={"paper_id": paper.id, "mark": "save"}, headers={"Accept": "application/json"}
        )
    assert signed_out.status_code == 401


def test_tags_and_notes_are_edited_on_the_page_and_filter_it(site: Site) -> None:
    first, second = PAPERS[7], PAPERS[8]
    with browser(site, "bo") as bo:
        for paper, tags in [(first, "graphs， theory"), (second, "theory")]:
            edited = bo.post(
                "/me/library/entry", data={"paper_id": paper.id, "tags": tags, "note": f"about {paper.id}"}
            )
            assert edited.status_code == 303
        entry = site.call("GET", f"/api/me/library/{first.id}", reader="bo").json()
        assert entry["tags"] == ["graphs", "theory"] and entry["note"] == f"about {first.id}"
        graphs = html.fromstring(bo.get("/me/library", params={"tag": "graphs"}).text)
        assert graphs.xpath("//article[@data-paper-id]/@data-paper-id") == [first.id]
        by_note = html.fromstring(bo.get("/me/library", params={"q": f"about {second.id}"}).text)
        assert by_note.xpath("//article[@data-paper-id]/@data-paper-id") == [second.id]
        assert bo.get("/me/library", params={"since": "yesterday"}).status_code == 422
    with browser(site, "ana") as ana:  # another reader's page shows none of it
        assert first.id not in ana.get("/me/library").text
    assert httpx.get(f"{site.base}/me/library").status_code == 401


@pytest.mark.parametrize(
    "params",
    [
        {"since": "0001-01-01"},  # the day's start in the pages' zone (UTC+8) is in year 0 in UTC
        {"cursor": base64.urlsafe_b64encode(json.dumps(["0001-01-01T00:00:00+14:00", "x"]).encode()).decode()},
    ],
)
def test_a_day_or_cursor_beyond_the_years_utc_holds_is_refused_on_the_library_page(
    site: Site, params: dict[str, str]
) -> None:
    """The page says the filter is not valid (422), as for any other, rather than failing (500)."""
    with browser(site, "cy") as cy:
        page = cy.get("/me/library", params=params)
        assert page.status_code == 422, page.text[:500]
        assert "筛选条件无效" in page.text
        home = cy.get("/", params={"since": "0001-01-01T00:00:00+14:00"})  # the papers' browser says it too
        assert home.status_code == 422 and "起始日期" in home.text


def test_the_paper_page_cites_it_in_the_chosen_format_and_the_library_page_exports(site: Site) -> None:
    paper = PAPERS[9]
    page = html.fromstring(httpx.get(f"{site.base}/papers/{paper.id}", timeout=30).text)  # signed out too
    [box] = page.xpath('//details[@id="cite"]')
    assert box.get("open") is None and box.xpath('.//textarea[@class="cite-text"]')[0].text == export([paper], "bibtex")
    ris = html.fromstring(httpx.get(f"{site.base}/papers/{paper.id}", params={"cite": "ris"}, timeout=30).text)
    [box] = ris.xpath('//details[@id="cite"]')
    assert box.get("open") is not None and box.xpath(".//textarea")[0].text == export([paper], "ris")
    assert box.xpath('.//a[@aria-current="true"]/@data-format') == ["ris"]
    with browser(site, "cy") as cy:
        cy.post("/me/marks", data={"paper_id": paper.id, "mark": "save"})
        library = html.fromstring(cy.get("/me/library").text)
        [link] = library.xpath('//p[@class="export"]/a[contains(@href, "format=csl-json")]/@href')
        exported = cy.get(link)
        assert exported.status_code == 200 and json.loads(exported.text) == json.loads(export([paper], "csl-json"))


def test_a_saved_paper_with_a_newer_version_says_updated_to_it(site: Site) -> None:
    paper = PAPERS[9]
    saved = site.call("PUT", f"/api/me/library/{paper.id}", reader="cy", json={"tags": []})
    assert saved.status_code == 200, saved.text

    def updated_to() -> tuple[list[str], str | None]:
        with browser(site, "cy") as cy:
            page = html.fromstring(cy.get("/me/library").text)
        [entry] = site.call("GET", "/api/me/library", reader="cy").json()["items"]
        return [a.text_content() for a in page.xpath('//a[contains(@class, "updated-to")]')], entry["updated_to"]

    assert updated_to() == ([], None)  # its versions are all older than the save
    saved_at = datetime.fromisoformat(saved.json()["saved_at"])
    site.db.papers.update_one(
        {"_id": paper.id},
        {
            "$push": {"versions": {"source": "arxiv", "label": "v3", "date": saved_at + timedelta(days=2)}},
            "$set": {"current_version": "v3"},
        },
    )  # as the normalizer stores arXiv's v3 announced two days later
    assert updated_to() == (["已更新到 v3"], "v3")


@needs_chromium
def test_in_headless_chromium_a_dismissed_entry_leaves_the_library_and_its_count_at_once(
    site: Site, tmp_path: Path
) -> None:
    """不相关 on the library page takes the paper out of the library: the script's background post takes its entry
    off the page and one off the count, as the page reloaded (or posted without JavaScript) shows it."""
    from playwright.sync_api import sync_playwright

    kept, dismissed = PAPERS[10], PAPERS[11]
    for paper in (kept, dismissed):
        assert site.call("PUT", f"/api/me/library/{paper.id}", reader="dee", json={"tags": []}).status_code == 200
    shots = ARTIFACTS / "library"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright, tmp_path / "profile", javascript=True)
        try:
            tab = chromium.new_page()
            tab.goto(f"{site.base}/login?next=/me/library")
            tab.locator("details.token-login summary").click()  # the API token sign-in, folded away
            tab.locator("input[name=token]").fill(site.tokens["dee"])
            tab.locator("details.token-login").get_by_role("button", name="登录").click()
            tab.wait_for_url(f"{site.base}/me/library")
            assert tab.locator("h1 .count").inner_text() == "共 2 篇"
            tab.evaluate("window.stillHere = true")  # gone if the click reloaded the page
            entry = tab.locator(f'article[data-paper-id="{dismissed.id}"]')
            entry.get_by_role("button", name="不相关").click()
            entry.wait_for(state="detached")
            assert tab.locator("h1 .count").inner_text() == "共 1 篇"
            assert tab.locator("article[data-paper-id]").evaluate_all("all => all.map(a => a.dataset.paperId)") == [
                kept.id
            ]
            assert tab.evaluate("window.stillHere") is True
            tab.screenshot(path=shots / "06-dismissed-left-the-library.png", full_page=True)
            tab.reload()  # what the server says is what the page said
            assert tab.locator("h1 .count").inner_text() == "共 1 篇"
        finally:
            chromium.close()
    ids = [item["paper_id"] for item in site.call("GET", "/api/me/library", reader="dee").json()["items"]]
    assert ids == [kept.id]
