"""Institutions over the real query service (Kafka, MongoDB, Meilisearch): two genuine ACL 2024 papers whose authors'
affiliations (the Anthology's XML) carry the ROR records a reader matched them to, published on papers.enriched.v1
as the summarizer publishes them. Cards and paper pages show "机构 Tsinghua University（清华大学）；…" in Chinese and
the English names in English, per author on the paper page, the model's names where no author has one; the
institution page lists its papers newest first with its Chinese name; `institution=` filters the API, the home page
and the Atom search feed, with facet counts; /api/institutions lists and finds them; unknown and malformed ids are
a 404 and a 422. Headless Chromium shows a card and a paper page at desktop and phone width."""

import asyncio
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaProducer
from lxml import etree, html

from schemas import topics
from schemas.events import PaperEnriched
from tests.support.browsing import ARTIFACTS, launch_chromium, needs_chromium, signed_in
from tests.support.institutions import MODEL_ONLY, NOW, acl_paper, enriched
from tests.support.reader_site import Site, query_service, reader_database
from tests.support.servers import Servers
from tests.support.services import create_user
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
SHOTS = ARTIFACTS.parent / "institutions"  # what the pages looked like, for a person to look at

CHECKING = "acl:2024.acl-long.469"  # Tsinghua, Baidu, Sun Yat-sen (authors 5, 8, 10, 11)
INTENT = "acl:2024.acl-long.2"  # Tsinghua, Hebei University of Science and Technology


PAPERS = [
    acl_paper(CHECKING.removeprefix("acl:"), NOW - timedelta(days=1)),
    acl_paper(INTENT.removeprefix("acl:"), NOW - timedelta(days=2)),
    acl_paper(MODEL_ONLY.removeprefix("acl:"), NOW - timedelta(days=3), matched=False),
]


async def _publish(servers: Servers, events: list[PaperEnriched]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers)
    await producer.start()
    try:
        for event in events:
            topic = servers.topic(topics.PAPERS_ENRICHED)
            await producer.send_and_wait(topic, event.model_dump_json().encode(), key=event.paper.id.encode())
    finally:
        await producer.stop()


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with reader_database(servers, PAPERS) as (env, db):
        with query_service(env, db, tmp_path_factory.mktemp("institutions"), {}) as site:
            asyncio.run(_publish(servers, [enriched(p) for p in PAPERS]))
            wait_until(lambda: get(site, "/api/papers")["total"] == len(PAPERS), timeout=90, what="papers indexed")
            yield site


def get(site: Site, path: str, status: int = 200, **params: Any) -> Any:
    response = httpx.get(site.url(path), params=params, timeout=10)
    assert response.status_code == status, response.text
    return response.json()


def page(site: Site, path: str, status: int = 200, **params: Any) -> Any:
    response = httpx.get(site.url(path), params=params, timeout=10)
    assert response.status_code == status, response.text
    return html.fromstring(response.text)


def words(node: Any) -> str:
    return " ".join(node.text_content().split())


def card(tree: Any, paper_id: str) -> Any:
    return tree.xpath(f'//article[@data-paper-id="{paper_id}"]')[0]


def test_cards_show_the_institutions_deduplicated_in_author_order_in_the_readers_language(site: Site) -> None:
    zh = words(card(page(site, "/"), CHECKING).find_class("insts")[0])
    assert zh == "机构 Tsinghua University（清华大学） ； Baidu（百度） ； Sun Yat-sen University（中山大学） 纠错"
    en = words(card(page(site, "/", lang="en"), CHECKING).find_class("insts")[0])
    assert en.startswith("Institutions Tsinghua University; Baidu; Sun Yat-sen University") and "清华" not in en
    links = card(page(site, "/"), CHECKING).xpath('.//p[@class="insts"]//a/@href')
    assert links == ["/institutions/03cve4549", "/institutions/03vs3wt56", "/institutions/0064kty71",
                     f"/papers/{CHECKING}/correct?field=institutions"]  # fmt: skip
    # no author of this one has a matched institution: the model's names, without a link
    model = card(page(site, "/"), MODEL_ONLY).find_class("insts")[0]
    assert words(model) == "机构 Tsinghua University（清华大学） 纠错"
    assert not model.xpath('.//a[starts-with(@href, "/institutions/")]')


def test_the_paper_page_shows_each_authors_institutions(site: Site) -> None:
    tree = page(site, f"/papers/{CHECKING}")
    authors = {words(a.xpath("./a")[0]): a for a in tree.find_class("author")}
    assert words(authors["Yangning Li"].find_class("author-insts")[0]) == "Tsinghua University（清华大学）"
    assert words(authors["Zhongli Li"].find_class("author-insts")[0]) == "Baidu（百度）"
    assert not authors["Yinghui Li"].find_class("author-insts")  # no affiliation given
    assert words(tree.find_class("insts")[0]).startswith("机构 Tsinghua University（清华大学） ； Baidu（百度）")
    english = page(site, f"/papers/{CHECKING}", lang="en")
    assert "Sun Yat-sen University" in words(english.find_class("insts")[0])
    assert "中山大学" not in words(english.find_class("insts")[0])


def test_the_institution_page_lists_its_papers_newest_first_with_its_chinese_name(site: Site) -> None:
    tree = page(site, "/institutions/03cve4549")
    assert words(tree.xpath("//h1")[0]) == "Tsinghua University（清华大学）"
    assert [c.get("data-paper-id") for c in tree.find_class("card")] == [CHECKING, INTENT]
    assert "2 篇论文" in words(tree.find_class("institution-head")[0])
    assert words(page(site, "/institutions/03cve4549", lang="en").xpath("//h1")[0]) == "Tsinghua University"
    hebei = page(site, "/institutions/05h3pkk68")
    assert [c.get("data-paper-id") for c in hebei.find_class("card")] == [INTENT]
    page(site, "/institutions/0aaaaaa00", 404)  # well formed, no paper names it
    page(site, "/institutions/tsinghua", 422)


def test_the_api_filters_counts_and_lists_institutions(site: Site) -> None:
    found = get(site, "/api/papers", institution="03cve4549")
    assert [h["paper_id"] for h in found["hits"]] == [CHECKING, INTENT]  # newest version first
    assert found["hits"][0]["institution_ids"] == ["03cve4549", "03vs3wt56", "0064kty71"]
    # the facet counts every institution of the papers without this filter (another can be chosen)
    assert found["facets"]["institution"] == {"03cve4549": 2, "03vs3wt56": 1, "0064kty71": 1, "05h3pkk68": 1}
    assert found["institution_names"]["03vs3wt56"] == {"name": "Baidu (China)", "name_zh": "百度", "country": "CN"}
    assert [h["paper_id"] for h in get(site, "/api/papers", institution="05h3pkk68")["hits"]] == [INTENT]
    bad = get(site, "/api/papers", 422, institution="Tsinghua University")
    assert bad["errors"][0]["location"] == ["query", "institution"]
    listed = get(site, "/api/institutions")
    assert (listed["institutions"][0]["ror"], listed["institutions"][0]["papers"]) == ("03cve4549", 2)
    assert listed["total"] == 4
    for q in ("tsinghua", "清华", "03cve4549"):
        assert [i["ror"] for i in get(site, "/api/institutions", q=q)["institutions"]] == ["03cve4549"], q
    one = get(site, "/api/institutions/03cve4549", size=1)
    assert (one["name"], one["name_zh"], one["papers"], [h["paper_id"] for h in one["hits"]]) == (
        "Tsinghua University", "清华大学", 2, [CHECKING])  # fmt: skip
    assert get(site, "/api/institutions/0aaaaaa00", 404)["status"] == 404
    get(site, "/api/institutions/not-a-ror", 422)


def test_words_find_papers_by_their_institutions_names(site: Site) -> None:
    assert {h["paper_id"] for h in get(site, "/api/papers", q="中山大学")["hits"]} == {CHECKING}
    assert {h["paper_id"] for h in get(site, "/api/papers", q="Hebei")["hits"]} == {INTENT}


def test_the_home_page_and_the_search_feed_filter_by_institution(site: Site) -> None:
    tree = page(site, "/", institution="0064kty71")
    assert [c.get("data-paper-id") for c in tree.find_class("card")] == [CHECKING]
    chosen = tree.xpath('//select[@name="institution"]/option[@selected]')[0]
    assert words(chosen) == "Sun Yat-sen University（中山大学） (1)"
    feed = etree.fromstring(httpx.get(site.url("/feeds/search.atom"), params={"institution": "05h3pkk68"}).content)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    assert [e.findtext("a:title", namespaces=ns) for e in feed.findall("a:entry", ns)] == [PAPERS[1].title]


@needs_chromium
def test_in_headless_chromium_a_card_and_a_paper_page_show_institutions(site: Site, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=False)
        try:
            tab = browser.new_page()
            for width, height in ((1400, 900), (390, 844)):
                tab.set_viewport_size({"width": width, "height": height})
                for lang, shown in (("zh", "Tsinghua University（清华大学）"), ("en", "Tsinghua University")):
                    tab.goto(site.url(f"/?lang={lang}"))
                    line = tab.locator(f'article[data-paper-id="{CHECKING}"] .insts')
                    assert shown in line.inner_text() and line.is_visible()
                    box = line.bounding_box()
                    assert box is not None and box["x"] + box["width"] <= width  # within the screen
                    tab.goto(site.url(f"/papers/{CHECKING}?lang={lang}"))
                    own = tab.locator(".author-insts").first
                    assert own.inner_text() == shown and own.is_visible()
                    own.locator("a").click()
                    tab.wait_for_url("**/institutions/03cve4549*")
                    assert tab.locator("h1").inner_text() == shown
                    tab.screenshot(path=str(SHOTS / f"institution-{lang}-{width}.png"), full_page=True)
        finally:
            browser.close()


class _OnSite:
    """The site as test_pages' sign-in helper addresses a pipeline's query service."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def url(self, service: str, path: str) -> str:
        return self.site.url(path)


def test_an_institution_is_followed_in_one_click_from_its_page(site: Site) -> None:
    token = create_user(site.env, f"institutions-{uuid.uuid4().hex[:10]}")
    with signed_in(_OnSite(site), token) as client:  # type: ignore[arg-type]
        tree = html.fromstring(client.get("/institutions/03cve4549").text)
        form = tree.xpath('//span[@class="follow-here"][@data-kind="institution"]//form[@action="/follow"]')[0]
        answer = client.post("/follow", data={i.get("name"): i.get("value") for i in form.xpath(".//input")})
        assert answer.status_code == 303 and answer.headers["location"] == "/institutions/03cve4549"
        followed = html.fromstring(client.get("/institutions/03cve4549").text)
        assert "已关注" in words(followed.xpath('//span[@class="follow-here"]')[0])
        listed = words(html.fromstring(client.get("/me/follows").text).find_class("follow")[0])
        assert listed.startswith("机构 Tsinghua University") and "03cve4549" in listed
    made = httpx.get(site.url("/api/follows"), headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    assert [(f["kind"], f["institution"], f["name"]) for f in made] == [
        ("institution", "03cve4549", "Tsinghua University")]  # fmt: skip
    refused = httpx.post(site.url("/api/follows"), headers={"Authorization": f"Bearer {token}"}, timeout=10,
                         json={"kind": "institution", "name": "THU"})  # fmt: skip
    assert refused.status_code == 400 and "ROR id" in refused.json()["detail"]
