"""The web pages over a real pipeline: numbers equal the API's, cards show the fixture's papers, the English
switch, paper / topic / author / sources pages, sign-in and per-user pages, similar papers and the search by meaning
once the summarizer's sweep embedded the papers; and headless Chromium walks."""

import asyncio
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from aiokafka import AIOKafkaConsumer
from lxml import etree

from papertrail.domain.names import display_name_key
from schemas import topics
from schemas.events import PaperEnriched
from tests.support.browsing import (
    ARTIFACTS,
    csrf_of,
    doc,
    launch_chromium,
    needs_chromium,
    signed_in,
    text,
)
from tests.support.pipelines import Pipeline
from tests.support.query import ArxivPageSite
from tests.support.query_api import RECORDS, expected_topic_hits
from tests.support.services import create_user
from tests.support.waiting import wait_until, wait_until_async

pytestmark = pytest.mark.integration
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def site(arxiv_page_site: ArxivPageSite) -> tuple[Pipeline, dict[str, str]]:
    """The shared pipeline over the recorded arXiv page, and this module's readers."""
    return arxiv_page_site.pipeline, arxiv_page_site.readers["pages"]


def api(pipeline: Pipeline, path: str, **params: Any) -> Any:
    response = httpx.get(pipeline.url("query", path), params=params, timeout=10)
    response.raise_for_status()
    return response.json()


def page(pipeline: Pipeline, path: str, cookies: dict[str, str] | None = None, **params: Any) -> httpx.Response:
    return httpx.get(pipeline.url("query", path), params=params or None, cookies=cookies, timeout=10)


def test_home_numbers_equal_the_api_overview(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    overview = api(pipeline, "/api/overview")
    tree = doc(page(pipeline, "/"))
    for name in ("new_papers", "new_ai_related", "revisions", "new_summaries"):
        shown = text(tree.get_element_by_id(f"figure-{name}"))
        assert shown.startswith(f"+{overview[name]['value']:,}"), (name, shown)
    for name in ("total_papers", "total_ai_related", "total_with_revisions", "total_hf_picks"):
        assert text(tree.get_element_by_id(f"figure-{name}")).startswith(f"{overview[name]['value']:,}")
    assert "新增论文" in text(tree) and "arXiv 最近完成扫描" in text(tree)
    assert "部分采集异常" not in text(tree)  # no source failing in this run
    # each number links to the list behind it, and that list has as many papers
    link = tree.get_element_by_id("figure-new_ai_related").find("a").get("href")
    listed = doc(page(pipeline, link.split("#")[0]))
    found = text(listed.get_element_by_id("found"))
    assert found.startswith(f"找到 {overview['new_ai_related']['value']:,} 篇论文")


def test_cards_show_the_papers_in_the_api_order(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    expected = api(pipeline, "/api/papers", sort="published", size=20)
    tree = doc(page(pipeline, "/", sort="published"))
    cards = tree.find_class("card")
    assert [c.get("data-paper-id") for c in cards] == [h["paper_id"] for h in expected["hits"]]
    assert [text(c.find_class("title")[0]) for c in cards] == [h["title"] for h in expected["hits"]]
    assert text(tree.get_element_by_id("found")).startswith(f"找到 {len(RECORDS)} 篇论文 · 按首次发表时间排序")
    first = cards[0]
    status = {"published": "正式发表", "preprint": "预印本"}[expected["hits"][0]["status"]]
    assert "首次观测 · 记录 #1" in text(first) and "原文摘要" in text(first) and status in text(first)
    assert expected["hits"][0]["paper_id"] in text(first)
    report_link = first.xpath('.//a[@class="correct-link"]')[0]  # 纠错 beside the institutions, else "other"
    field = "institutions" if first.find_class("insts") else "other"
    assert report_link.get("href") == f"/papers/{expected['hits'][0]['paper_id']}/correct?field={field}"
    # the second page continues where the first stopped
    second = doc(page(pipeline, "/", sort="published", page=2)).find_class("card")
    assert (
        second[0].get("data-paper-id") == api(pipeline, "/api/papers", sort="published", page=2)["hits"][0]["paper_id"]
    )


def test_search_and_filters_find_what_the_api_finds(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    tree = doc(page(pipeline, "/", q="Banach"))
    assert RECORDS[0].title in [text(t) for t in tree.find_class("title")]
    cases: list[dict[str, Any]] = [
        {"category": "cs.LG"},
        {"ai_related": "true", "status": "preprint"},
        {"q": "graph", "sort": "ingested"},
    ]
    for params in cases:
        total = api(pipeline, "/api/papers", **params)["total"]
        found = text(doc(page(pipeline, "/", **params)).get_element_by_id("found"))
        assert found.startswith(f"找到 {total:,} 篇论文"), (params, found)
    bad = page(pipeline, "/", sort="random", category="cs.CL")
    assert bad.status_code == 422 and "排序:不是可选的值「random」" in text(doc(bad).find_class("banner-error")[0])
    injected = page(pipeline, "/", category='cs.CL" OR ai_related = true')
    assert injected.status_code == 422 and "category" in injected.text


def test_a_querys_sort_is_what_the_page_says_and_relevance_is_its_own_choice(
    site: tuple[Pipeline, dict[str, str]],
) -> None:
    pipeline, _ = site
    q = "proposed algorithm"  # words of several of the fixture's abstracts
    default = doc(page(pipeline, "/", q=q))
    assert text(default.get_element_by_id("found")).endswith("按相关度排序")  # relevance, the default with a query
    assert text(default.find_class("current")[0]) == "相关度"
    by_published = page(pipeline, "/", q=q, sort="published", lang="en")
    found = text(doc(by_published).get_element_by_id("found"))
    assert found.endswith("sorted by First published time") and "most relevant" not in found
    listed = api(pipeline, "/api/papers", q=q, sort="updated")
    times = [hit["updated_ts"] for hit in listed["hits"]]
    assert listed["sort"] == "updated" and len(set(times)) > 1 and times == sorted(times, reverse=True)
    relevant = api(pipeline, "/api/papers", q=q)
    assert relevant["sort"] == "relevance" and relevant["total"] >= listed["total"]
    assert "相关度" not in text(doc(page(pipeline, "/")).find_class("sorts")[0])  # no query: nothing to be relevant to


def test_a_chinese_search_that_finds_nothing_says_why_and_what_would_find_it(
    site: tuple[Pipeline, dict[str, str]],
) -> None:
    """The pipeline runs the default model (MiniLM, English only) and no summary endpoint: a Chinese query finds
    none of the English papers, and the page says so instead of a bare "0 papers"."""
    pipeline, _ = site
    for semantic in ("0", "1.0"):
        chinese = doc(page(pipeline, "/", q="大模型推理的奖励设计", semantic=semantic))
        assert text(chinese.get_element_by_id("found")).startswith("找到 0 篇论文")
        assert "SEARCH_EMBEDDING_MODEL=multilingual-e5-small-q4" in text(chinese.get_element_by_id("chinese-hint"))
    english = doc(page(pipeline, "/", q="a query of words no paper holds xqzv", lang="en"))
    assert not english.xpath('//*[@id="chinese-hint"]')  # only a Chinese query is told about Chinese


def test_a_search_and_a_paper_have_their_own_page_title_and_english_text_is_marked_english(
    site: tuple[Pipeline, dict[str, str]],
) -> None:
    pipeline, _ = site
    searched = doc(page(pipeline, "/", q="proposed algorithm"))
    assert searched.findtext(".//title") == "proposed algorithm · 搜索 · 研踪 PaperTrail"
    card = searched.find_class("card")[0]
    assert card.find_class("title")[0].get("lang") == "en"
    paper_id = api(pipeline, "/api/papers", q="proposed algorithm")["hits"][0]["paper_id"]
    paper = doc(page(pipeline, f"/papers/{paper_id}"))
    title = paper.find_class("paper-title")[0]
    assert title.get("lang") == "en" and paper.findtext(".//title").startswith(text(title))
    english = doc(page(pipeline, f"/papers/{paper_id}", lang="en"))
    assert english.find_class("paper-title")[0].get("lang") is None  # the page's own language already


def test_english_switch_is_remembered(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    with httpx.Client(base_url=pipeline.url("query", ""), timeout=10) as client:
        english = client.get("/", params={"lang": "en"})
        assert "New papers" in english.text and "新增论文" not in english.text
        assert client.cookies.get("lang") == "en"
        assert "Found 46 papers" in client.get("/").text.replace(",", "")  # the cookie keeps English
        assert "Version history" in client.get(f"/papers/arxiv:{RECORDS[0].record_id}").text
        assert "新增论文" in client.get("/", params={"lang": "zh"}).text
        assert "新增论文" in client.get("/").text


OPERATOR_WORDS = ("OPENAI_BASE_URL", "OPENAI_MODEL", "make llm", "docs/", "summarizer", "运维", "排队中", "pending")


def test_paper_page_shows_ids_history_links_and_summary_status(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    record = RECORDS[0]
    detail = api(pipeline, f"/api/papers/arxiv:{record.record_id}")
    tree = doc(page(pipeline, f"/papers/arxiv:{record.record_id}"))
    assert text(tree.find_class("paper-title")[0]) == record.title
    authors = text(tree.find_class("authors")[0])
    assert all(a.name in authors for a in record.authors)
    history = tree.get_element_by_id("history").findall(".//tbody/tr")
    assert len(history) == len(detail["history"]) == 1
    assert [text(td) for td in history[0].findall("td")][:3] == ["#1", "首次观测", f"arXiv {record.record_id}"]
    hrefs = [a.get("href") for a in tree.get_element_by_id("ids").iter("a")]
    assert f"https://arxiv.org/abs/{record.record_id}" in hrefs
    assert any(h.startswith("https://arxiv.org/pdf/") for h in hrefs)
    # no endpoint in this pipeline: the reader is told there is no summary, in their words; how to get summaries is
    # the operator's business (/sources, docs/operations.md)
    summary = text(tree.get_element_by_id("summary"))
    english = text(doc(page(pipeline, f"/papers/arxiv:{record.record_id}?lang=en")).get_element_by_id("summary"))
    assert summary == "AI 导读 暂无 AI 导读" and english == "AI summary No AI summary yet"
    for words in OPERATOR_WORDS:
        assert words not in summary and words not in english
    assert "OPENAI_BASE_URL" in text(doc(page(pipeline, "/sources")).get_element_by_id("summary-progress"))
    assert page(pipeline, "/papers/arxiv:0000.00000").status_code == 404


def test_topic_pages_show_hits_with_reasons(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    catalogue = api(pipeline, "/api/topics")
    listing = text(doc(page(pipeline, "/topics")))
    assert all(t["name_zh"] in listing for t in catalogue)
    expected = expected_topic_hits()
    topic_id, paper_ids = max(expected.items(), key=lambda item: len(item[1]))
    wait_until(
        lambda: api(pipeline, f"/api/topics/{topic_id}/papers")["total"] == len(paper_ids),
        timeout=60,
        what="topic hits indexed",
    )
    tree = doc(page(pipeline, f"/topics/{topic_id}"))
    entries = tree.find_class("entry")
    assert {e.get("data-paper-id") for e in entries} == paper_ids
    for entry in entries:
        assert re.search(r"专题命中 [^:]+: [^(]+\((标题|摘要)\)", text(entry)), text(entry)
    assert tree.xpath(f'//a[@href="/feeds/topics/{topic_id}.atom"]')
    assert page(pipeline, "/topics/no-such-topic").status_code == 404


def test_author_page_lists_the_authors_papers(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    name = RECORDS[0].authors[0].name
    key = display_name_key(name)
    expected = {f"arxiv:{r.record_id}" for r in RECORDS if key in {display_name_key(a.name) for a in r.authors}}
    tree = doc(page(pipeline, f"/authors/{key}"))
    assert {e.get("data-paper-id") for e in tree.find_class("entry")} == expected
    assert name in text(tree.find(".//h1"))
    # a paper's authors link to their full-name pages
    paper = doc(page(pipeline, f"/papers/arxiv:{RECORDS[0].record_id}"))
    assert paper.xpath(f'//a[@href="/authors/{quote(key)}"]')


def test_an_old_initial_author_url_keeps_working(site: tuple[Pipeline, dict[str, str]]) -> None:
    """/authors/song%20g (the key pages had before full names) goes to the one name it stands for; /authors/zhang%20h
    (Hui Zhang and Haizhang Zhang) lists both, each linked to its page."""
    pipeline, _ = site
    moved = page(pipeline, "/authors/song g")
    assert moved.status_code == 307 and moved.headers["location"] == "/authors/song%20guohui"
    tree = doc(page(pipeline, "/authors/zhang h"))
    links = {a.get("href"): text(a) for a in tree.find_class("author-candidates")[0].iter("a")}
    assert links == {"/authors/zhang%20hui": "Hui Zhang", "/authors/zhang%20haizhang": "Haizhang Zhang"}


def test_sources_page_shows_state_and_runs(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    runs = api(pipeline, "/api/sources")[0]["recent_runs"]
    section = doc(page(pipeline, "/sources")).get_element_by_id("source-arxiv")
    assert "正常" in text(section.find(".//h2"))
    rows = section.findall(".//tbody/tr")
    assert len(rows) == len(runs) and str(len(RECORDS)) in [text(td) for td in rows[0].findall("td")]
    # the AI summaries' progress, from the summarizer's collections, on the page as the API gives it
    progress = api(pipeline, "/api/summaries/progress")
    assert [rank["priority"] for rank in progress["by_priority"]] == ["readers", "community", "newest"]
    summaries = doc(page(pipeline, "/sources")).get_element_by_id("summary-progress")
    assert text(summaries.find_class("summary-waiting")[0]) == f"{progress['waiting']} 篇论文"


def test_the_menu_marks_the_current_page_and_the_site_has_a_favicon(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, tokens = site

    def marked(tree: Any) -> list[str]:
        return [a.get("href") for a in tree.find_class("nav")[0].iter("a") if a.get("aria-current") == "page"]

    topic_id = api(pipeline, "/api/topics")[0]["id"]
    for path, current in [
        ("/", "/"),
        ("/sources", "/sources"),
        ("/topics", "/topics"),
        (f"/topics/{topic_id}", "/topics"),
    ]:
        assert marked(doc(page(pipeline, path))) == [current], path
    assert marked(doc(page(pipeline, f"/papers/arxiv:{RECORDS[0].record_id}"))) == []  # no menu entry is a paper
    with signed_in(pipeline, tokens["ana"]) as ana:
        assert marked(doc(ana.get("/me/library"))) == ["/me/library"]
    icon = doc(page(pipeline, "/")).xpath('//link[@rel="icon"]')[0]
    served = page(pipeline, icon.get("href"))
    assert icon.get("type") == "image/svg+xml" and served.status_code == 200
    assert served.headers["content-type"].startswith("image/svg+xml") and "<svg" in served.text


def test_per_user_pages_refuse_without_a_valid_cookie(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    for path in ("/me/follows", "/me/feed"):
        refused = page(pipeline, path)
        assert refused.status_code == 401 and 'action="/login"' in refused.text
        assert page(pipeline, path, cookies={"pt_session": "forged"}).status_code == 401
    with httpx.Client(base_url=pipeline.url("query", ""), timeout=10) as client:
        csrf = csrf_of(client.get("/login"))
        post = client.post("/me/follows", data={"kind": "keyword", "query": "x", "csrf": csrf})
        assert post.status_code == 401
        bad_login = client.post("/login", data={"token": "pt_guess", "csrf": csrf})
        assert bad_login.status_code == 401 and "令牌无效" in bad_login.text
    assert httpx.get(pipeline.url("query", "/logout"), timeout=10).status_code == 405  # no GET changes state


def test_follows_are_added_checked_and_removed_through_forms(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, tokens = site
    with signed_in(pipeline, tokens["bo"]) as bo, signed_in(pipeline, tokens["ana"]) as ana:
        cookie = next(c for c in ana.cookies.jar if c.name == "pt_session")
        assert cookie.has_nonstandard_attr("HttpOnly") and cookie.get_nonstandard_attr("SameSite") == "lax"
        broken = ana.post("/me/follows", data={"csrf": ana.csrf, "kind": "keyword", "query": '(retrieval AND "LLM"'})
        assert broken.status_code == 400 and "关键词表达式有误" in text(doc(broken).find_class("banner-error")[0])
        unknown = ana.post("/me/follows", data={"csrf": ana.csrf, "kind": "topic", "topic_id": "astrology"})
        assert unknown.status_code == 400 and "astrology" in unknown.text
        # the seed form's example of old ("2605.01234") is no paper held here: said so in words, the seeds kept
        unheld = ana.post("/me/follows", data={"csrf": ana.csrf, "kind": "similar", "seeds": "2605.01234"})
        said = text(doc(unheld).find_class("banner-error")[0])
        assert (
            unheld.status_code == 400 and "第 1 篇种子论文「2605.01234」本站没有收录" in said and "seeds[0]" not in said
        )
        assert doc(unheld).xpath('//textarea[@name="seeds"]')[0].text == "2605.01234"
        added = ana.post(
            "/me/follows", data={"csrf": ana.csrf, "kind": "keyword", "query": "spectral", "name": "spectral graphs"}
        )
        assert added.status_code == 303
        follows = api_as(pipeline, tokens["ana"], "/api/follows")
        assert [(f["name"], f["query"]) for f in follows] == [("spectral graphs", "spectral")]
        listed = doc(ana.get(added.headers["location"]))
        assert [li.get("data-follow-id") for li in listed.find_class("follow")] == [follows[0]["id"]]
        assert "spectral graphs" not in bo.get("/me/follows").text  # bo never sees ana's follows
        not_bos = bo.post(f"/me/follows/{follows[0]['id']}/delete", data={"csrf": bo.csrf})
        assert not_bos.status_code == 404 and "没有这个关注" in not_bos.text
        assert ana.post(f"/me/follows/{follows[0]['id']}/delete", data={"csrf": ana.csrf}).status_code == 303
        assert api_as(pipeline, tokens["ana"], "/api/follows") == []
        assert (
            ana.post("/logout", data={"csrf": ana.csrf}).status_code == 303
            and ana.get("/me/follows").status_code == 401
        )


def test_a_bad_date_is_said_to_be_bad_keeps_what_was_typed_and_lists_nothing(
    site: tuple[Pipeline, dict[str, str]],
) -> None:
    pipeline, _ = site
    response = page(pipeline, "/", q="graph", since="2026-13-45")
    tree = doc(response)
    since = tree.xpath('//input[@name="since"]')[0]
    assert response.status_code == 422 and since.get("value") == "2026-13-45" and since.get("aria-invalid") == "true"
    assert tree.xpath('//input[@name="q"]/@value') == ["graph"]
    refused = text(tree.get_element_by_id("refused"))
    assert "起始日期:「2026-13-45」不是有效日期" in refused and "Value error" not in refused
    assert not tree.find_class("card") and not tree.xpath('//*[@id="found"]')  # not the whole collection
    english = text(doc(page(pipeline, "/", since="2026-13-45", lang="en")).get_element_by_id("refused"))
    assert "From date: “2026-13-45” is not a date" in english


def test_a_topic_is_followed_from_its_page_and_named_in_the_readers_language(
    site: tuple[Pipeline, dict[str, str]],
) -> None:
    pipeline, tokens = site
    signed_out = doc(page(pipeline, "/topics/llm-reasoning")).get_element_by_id("topic-follow")
    assert signed_out.xpath(".//a/@href") == ["/login?next=/topics/llm-reasoning"]
    with signed_in(pipeline, tokens["cy"]) as cy:
        form = doc(cy.get("/topics/llm-reasoning")).get_element_by_id("topic-follow").xpath(".//form")[0]
        added = cy.post(form.get("action"), data={i.get("name"): i.get("value") for i in form.xpath(".//input")})
        assert added.status_code == 303
        listed = doc(cy.get(added.headers["location"]))
        assert "已添加关注「大模型推理」" in text(listed.find_class("banner-ok")[0])
        row = listed.find_class("follow")[0]
        assert "大模型推理" in text(row) and "llm-reasoning" not in text(row)
        english = text(doc(cy.get("/me/follows", params={"lang": "en"})).find_class("follow")[0])
        assert "LLM reasoning" in english and "llm-reasoning" not in english
        again = doc(cy.get("/topics/llm-reasoning", params={"lang": "zh"})).get_element_by_id("topic-follow")
        assert "已关注" in text(again) and not again.xpath(".//form")
        feed_url = row.xpath('.//a[contains(@href, "/feeds/follows/")]/@href')[0]
        follow_atom = etree.fromstring(cy.get(feed_url).content)
        assert follow_atom.findtext(f"{ATOM}title") == "PaperTrail · 大模型推理 · LLM reasoning"
    topic_atom = etree.fromstring(page(pipeline, "/feeds/topics/llm-reasoning.atom").content)
    assert topic_atom.findtext(f"{ATOM}title") == "PaperTrail · 大模型推理 · LLM reasoning"


def test_feed_page_shows_matches_with_reasons(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, tokens = site
    with signed_in(pipeline, tokens["bo"]) as bo:
        assert bo.post("/me/follows", data={"csrf": bo.csrf, "kind": "keyword", "query": "Banach"}).status_code == 303
        feed = wait_until(
            lambda: (f := api_as(pipeline, tokens["bo"], "/api/feed")["items"]) and f,
            timeout=60,
            what="a backfilled match",
        )
        tree = doc(bo.get("/me/feed"))
        entries = tree.find_class("entry")
        assert {e.get("data-paper-id") for e in entries} == {item["paper_id"] for item in feed}
        assert f"arxiv:{RECORDS[0].record_id}" in {e.get("data-paper-id") for e in entries}
        assert "banach(" in text(entries[0]).lower() and "命中「Banach」" in text(entries[0])


def api_as(pipeline: Pipeline, token: str, path: str) -> Any:
    response = httpx.get(pipeline.url("query", path), headers={"Authorization": f"Bearer {token}"}, timeout=10)
    response.raise_for_status()
    return response.json()


@needs_chromium
def test_in_headless_chromium_search_open_sign_in_follow_and_see_the_feed(
    site: tuple[Pipeline, dict[str, str]], tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    pipeline, _ = site
    token = create_user(pipeline.env, "cy")
    target = RECORDS[0]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=False)  # pages work without it
        try:
            tab = browser.new_page()
            tab.goto(pipeline.url("query", "/"))
            assert tab.locator("#figure-new_papers").inner_text().startswith(f"+{len(RECORDS)}")
            tab.screenshot(path=ARTIFACTS / "01-home.png", full_page=True)

            tab.get_by_role("searchbox").fill("Banach")
            tab.get_by_role("button", name="搜索").click()
            tab.wait_for_url("**q=Banach**")
            tab.screenshot(path=ARTIFACTS / "02-search.png", full_page=True)

            tab.get_by_role("link", name=target.title).click()
            tab.wait_for_url(f"**/papers/arxiv:{target.record_id}")
            assert tab.locator("h1.paper-title").inner_text() == target.title
            tab.screenshot(path=ARTIFACTS / "03-paper.png", full_page=True)

            tab.get_by_role("link", name="纠错").click()  # report an error, then back on the paper with a thank-you
            tab.locator("select[name=field]").select_option("title_zh")
            tab.locator("textarea[name=message]").fill("中文标题缺失")
            tab.get_by_role("button", name="提交纠错").click()
            tab.wait_for_url(re.compile(re.escape(f"/papers/arxiv:{target.record_id}?reported=1")))
            assert "感谢纠错" in tab.locator("#reported").inner_text()
            tab.screenshot(path=ARTIFACTS / "03b-reported.png", full_page=True)

            tab.get_by_role("link", name="English").click()
            assert "Version history" in tab.locator("#history h2").inner_text()
            tab.screenshot(path=ARTIFACTS / "04-paper-en.png", full_page=True)
            tab.get_by_role("link", name="中文").click()

            tab.goto(pipeline.url("query", "/login?next=/me/follows"))
            tab.screenshot(path=ARTIFACTS / "05a-login.png", full_page=True)
            tab.locator("details.token-login summary").click()  # the API token sign-in, folded away
            tab.locator("input[name=token]").fill(token)
            tab.locator("details.token-login").get_by_role("button", name="登录").click()
            tab.wait_for_url("**/me/follows")
            tab.locator("form.follow-form input[name=query]").fill("kernel")
            tab.locator("form.follow-form:has(input[name=query])").first.get_by_role("button", name="关注").click()
            assert "kernel" in tab.locator(".follow").first.inner_text()
            tab.screenshot(path=ARTIFACTS / "05-follows.png", full_page=True)

            tab.goto(pipeline.url("query", "/me/feed"))

            def feed_lists_the_paper() -> bool:
                tab.reload()
                return tab.locator(f'article[data-paper-id="arxiv:{target.record_id}"]').count() == 1

            wait_until(feed_lists_the_paper, timeout=60, interval=0.5, what="the followed paper in the feed")
            assert "kernel(" in tab.locator(f'article[data-paper-id="arxiv:{target.record_id}"]').inner_text().lower()
            tab.screenshot(path=ARTIFACTS / "06-feed.png", full_page=True)
            assert tab.goto(pipeline.url("query", "/me/account")).status == 200  # type: ignore[union-attr]
            # an operator-made account (no confirmed address) lists its token and may not mint another here
            assert tab.locator("tr.token").count() == 1 and tab.locator("#tokens-unconfirmed").count() == 1
            tab.screenshot(path=ARTIFACTS / "06a-account.png", full_page=True)
            tab.goto(pipeline.url("query", "/signup?lang=en"))
            tab.screenshot(path=ARTIFACTS / "06b-signup-en.png", full_page=True)
            tab.goto(pipeline.url("query", "/me/feed?lang=zh"))

            topic_id = max(expected_topic_hits().items(), key=lambda item: len(item[1]))[0]
            for name, path in [
                ("07-topic", f"/topics/{topic_id}"),
                ("08-author", f"/authors/{quote(display_name_key(target.authors[0].name))}"),
                ("09-sources", "/sources"),
            ]:
                assert tab.goto(pipeline.url("query", path)).status == 200  # type: ignore[union-attr]
                tab.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)
        finally:
            browser.close()


def _enriched_states(pipeline: Pipeline, paper_id: str) -> list[str]:
    """The embedding states papers.enriched.v1 carried for a paper, in order, once one says embedded."""

    async def read() -> list[str]:
        consumer = AIOKafkaConsumer(
            pipeline.topic(topics.PAPERS_ENRICHED),
            bootstrap_servers=pipeline.env["KAFKA_BOOTSTRAP_SERVERS"],
            auto_offset_reset="earliest",
            group_id=None,
        )
        await consumer.start()
        states: list[str] = []
        try:

            async def embedded() -> bool:
                for records in (await consumer.getmany(timeout_ms=500)).values():
                    for record in records:
                        event = PaperEnriched.model_validate_json(record.value or b"")
                        if event.paper.id == paper_id and event.embedding is not None:
                            states.append(event.embedding.state)
                return "embedded" in states

            await wait_until_async(embedded, 120, f"{paper_id} emitted again with its vector")
            return states
        finally:
            await consumer.stop()

    return asyncio.run(read())


def test_a_paper_indexed_before_its_vector_is_found_by_meaning_after_the_sweep(
    site: tuple[Pipeline, dict[str, str]],
) -> None:
    pipeline, _ = site
    target = RECORDS[0]  # "Reproducing Kernel Banach Spaces with the l1 Norm"
    paper_id = f"arxiv:{target.record_id}"
    states = _enriched_states(pipeline, paper_id)
    assert states[0] == "pending" and states[-1] == "embedded"  # indexed first, its vector after the sweep

    question = "function spaces for learning with sparse regularisation"  # none of the title's words

    def found_by_meaning() -> bool:
        answer = api(pipeline, "/api/papers", q=question, semantic=1)
        assert answer["mode"] == "semantic"
        return paper_id in [hit["paper_id"] for hit in answer["hits"][:3]]

    wait_until(found_by_meaning, timeout=60, what="the paper among the first three found by meaning")
    hybrid = api(pipeline, "/api/papers", q=question, semantic=0.5, category=target.categories[0])
    assert hybrid["mode"] == "hybrid" and all(target.categories[0] in h["categories"] for h in hybrid["hits"])
    assert api(pipeline, "/api/papers", q=question)["mode"] == "keyword"

    similar = api(pipeline, f"/api/papers/{paper_id}/similar", size=5)
    assert similar["vector"] == "embedded" and len(similar["hits"]) == 5
    assert paper_id not in [hit["paper_id"] for hit in similar["hits"]]
    scores = [hit["score"] for hit in similar["hits"]]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)


def test_similar_papers_answer_bad_requests_clearly(site: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = site
    paper_id = f"arxiv:{RECORDS[1].record_id}"
    assert httpx.get(pipeline.url("query", "/api/papers/arxiv:0000.00000/similar"), timeout=10).status_code == 404
    bad = httpx.get(pipeline.url("query", f"/api/papers/{paper_id}/similar"), params={"category": "a b"}, timeout=10)
    assert bad.status_code == 422 and "category" in bad.text
    too_many = httpx.get(pipeline.url("query", f"/api/papers/{paper_id}/similar"), params={"size": 51}, timeout=10)
    assert too_many.status_code == 422
    out_of_range = httpx.get(pipeline.url("query", "/api/papers"), params={"q": "x", "semantic": 2}, timeout=10)
    assert out_of_range.status_code == 422


@needs_chromium
def test_in_headless_chromium_similar_papers_and_the_search_by_meaning(
    site: tuple[Pipeline, dict[str, str]], tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    pipeline, _ = site
    target = RECORDS[2]
    paper_id = f"arxiv:{target.record_id}"
    # the paper's own vector is not enough: its similar papers are listed once theirs are attached to the index too
    wait_until(
        lambda: len(api(pipeline, f"/api/papers/{paper_id}/similar")["hits"]) == 10,
        timeout=120,
        what="the paper's vector and ten similar papers' in the index",
    )
    similar = api(pipeline, f"/api/papers/{paper_id}/similar")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=False)
        try:
            tab = browser.new_page()
            tab.goto(pipeline.url("query", f"/papers/{paper_id}"))
            assert tab.locator("#similar h2").inner_text() == "相似论文"
            rows = tab.locator("#similar .similar-list li")
            assert rows.count() == len(similar["hits"]) == 10
            assert rows.first.locator("a").inner_text() == similar["hits"][0]["title"]
            assert rows.first.locator(".score").inner_text() == f"{similar['hits'][0]['score']:.2f}"
            tab.locator("#similar").screenshot(path=ARTIFACTS / "13-similar.png")
            tab.get_by_role("link", name="English").click()
            assert tab.locator("#similar h2").inner_text() == "Similar papers"
            tab.get_by_role("link", name="中文").click()

            tab.goto(pipeline.url("query", "/"))
            tab.get_by_role("searchbox").fill("function spaces for learning with sparse regularisation")
            tab.locator("select[name=semantic]").select_option(label="语义")
            tab.get_by_role("button", name="搜索").click()
            tab.wait_for_url("**semantic=1.0**")
            found = tab.locator("#found").inner_text()
            assert "按语义最相近的 50 篇以内(相近度 ≥" in found and "按相关度排序" in found, found
            assert tab.locator("select[name=semantic]").input_value() == "1.0"
            tab.screenshot(path=ARTIFACTS / "14-search-by-meaning.png", full_page=True)
        finally:
            browser.close()


# The layout measured in the browser: the document no wider than the viewport, each menu label on one line, and at
# desktop width the account row on the menu's line (issue 27: 论/文/库 one character a line at 1,400 px, the home
# page 494 px wide at 390 px with 搜索 off-screen, the version table out of its card).
LAYOUT = """() => {
  const width = window.innerWidth;
  const wider = [...document.querySelectorAll('body *')]
    .filter(el => el.getBoundingClientRect().right > width + 0.5 && el.getClientRects().length)
    .slice(0, 5).map(el => el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''));
  const lineHeight = parseFloat(getComputedStyle(document.querySelector('.nav a')).lineHeight);
  const box = el => { const r = el.getBoundingClientRect(); return {
    text: el.textContent.trim(), height: r.height, middle: r.top + r.height / 2,
    current: el.getAttribute('aria-current') === 'page',
    look: getComputedStyle(el).color + ' ' + getComputedStyle(el).boxShadow }; };
  return { scrollWidth: document.documentElement.scrollWidth, width, wider, lineHeight,
    links: [...document.querySelectorAll('.nav a')].map(box),
    account: [...document.querySelectorAll('.account > *')].map(box) };
}"""


def _layout_faults(layout: dict[str, Any], desktop: bool) -> list[str]:
    faults = []
    if layout["scrollWidth"] > layout["width"]:
        faults.append(f"{layout['scrollWidth']} px wide in {layout['width']} px ({', '.join(layout['wider'])})")
    line = layout["lineHeight"]
    faults += [f"{a['text']!r} wraps ({a['height']:.0f} px)" for a in layout["links"] if a["height"] >= 1.6 * line]
    for current in (a for a in layout["links"] if a["current"]):  # the current page's link looks unlike the rest
        faults += [
            f"{current['text']!r} unmarked"
            for a in layout["links"]
            if not a["current"] and a["look"] == current["look"]
        ][:1]
    if desktop:  # one row: every link and the account row on the first link's middle line
        middle = layout["links"][0]["middle"]
        off = [a["text"] for a in layout["links"] + layout["account"] if abs(a["middle"] - middle) > line / 2]
        faults += [f"{text!r} off the menu's line" for text in off]
    return faults


@needs_chromium
def test_in_headless_chromium_pages_fit_at_desktop_and_phone_width(
    site: tuple[Pipeline, dict[str, str]], tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    pipeline, _ = site
    token = create_user(pipeline.env, "dana.zhang@example.edu")  # named by an e-mail, as a signed-up reader is
    paper_id = f"arxiv:{RECORDS[0].record_id}"
    saved = httpx.put(
        pipeline.url("query", f"/api/me/library/{paper_id}"),
        json={"tags": ["banach-spaces"], "note": "read §3 on the representer theorem"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    saved.raise_for_status()
    pages = {
        "home": "/",
        "paper": f"/papers/{paper_id}",
        "library": "/me/library",
        "follows": "/me/follows",
        "sources": "/sources",
        "deadlines": "/deadlines",
        "feed": "/me/feed",
        "topics": "/topics",
        "topic": "/topics/llm-reasoning",
        "author": doc(page(pipeline, f"/papers/{paper_id}")).xpath('//a[starts-with(@href, "/authors/")]/@href')[0],
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    faults: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=False)
        try:
            tab = browser.new_page()
            tab.goto(pipeline.url("query", "/login?next=/me/follows"))
            tab.locator("details.token-login summary").click()
            tab.locator("input[name=token]").fill(token)
            tab.locator("details.token-login").get_by_role("button", name="登录").click()
            tab.wait_for_url("**/me/follows")
            tab.locator("form.follow-form input[name=query]").fill("kernel")  # a follow listed on the page
            tab.locator("form.follow-form:has(input[name=query])").first.get_by_role("button", name="关注").click()
            for lang in ("zh", "en"):
                for width in (1400, 390):
                    tab.set_viewport_size({"width": width, "height": 900})
                    for name, path in pages.items():
                        response = tab.goto(pipeline.url("query", path) + f"?lang={lang}")
                        assert response is not None and response.status == 200, (name, lang)
                        tab.screenshot(path=ARTIFACTS / f"layout-{width}-{lang}-{name}.png", full_page=True)
                        found = _layout_faults(tab.evaluate(LAYOUT), desktop=width == 1400)
                        if found:
                            faults[f"{name} {width} px {lang}"] = found
                    # each deadline's venue on screen, not in a column scrolled out of a phone's view
                    tab.goto(pipeline.url("query", f"/deadlines?lang={lang}"))
                    venues = tab.locator("tr.deadline td.venue")
                    off = [box for box in (venues.nth(n).bounding_box() for n in range(min(venues.count(), 5)))
                           if box is None or box["x"] + box["width"] > width]  # fmt: skip
                    if off:
                        faults[f"deadlines {width} px {lang}"] = [f"venue off-screen: {off[0]}"]
                    tab.goto(pipeline.url("query", f"/?lang={lang}"))
                    search = tab.get_by_role("button", name="搜索" if lang == "zh" else "Search").bounding_box()
                    if search is None or search["x"] + search["width"] > width:
                        faults[f"search button {width} px {lang}"] = [f"off-screen: {search}"]
        finally:
            browser.close()
    assert not faults, "\n".join(f"{where}: {'; '.join(found)}" for where, found in faults.items())
