"""Formulas in titles and abstracts on the pages, over the normalizer, summarizer and query services: the source's
text without JavaScript; KaTeX (served by the query service from the npm package) in headless Chromium; and the
source kept as written where KaTeX cannot parse a formula. Two real papers of the corpus."""

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from lxml import html

from schemas import topics
from services.query.web.render import KATEX_DIR
from tests.conftest import Servers, wait_until
from tests.integration.services import running_services
from tests.normalizer.kafka_tools import publish_raw
from tests.normalizer.sources import corpus_records
from tests.query.test_pages import ARTIFACTS, CHROMIUM, launch_chromium

pytestmark = pytest.mark.integration
EPSILON = "2605.19742"  # "… engines with $\varepsilon$-differentially-private direction disclosure …"
UNPARSED = "2605.11831"  # "\(\Prob(X_n=0) = \Prob(X_n=2) = w/2\)": \Prob is the authors' own macro
UNPARSED_SOURCE = r"\(\Prob(X_n=0) = \Prob(X_n=2) = w/2\)"


@pytest.fixture(scope="module")
def query_url(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    assert (KATEX_DIR / "katex.min.js").is_file(), "KaTeX is not installed: run `make install` (papertrail assets)"
    records = [r for r in corpus_records() if r.record_id in (EPSILON, UNPARSED)]
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_math_{run}",
        "INDEX_NAME": f"papers_math_{run}",
        "TOPIC_PARTITIONS": "1",
    }
    with running_services(["normalizer", "summarizer", "query"], env, tmp_path_factory.mktemp("math")) as ports:
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, topics.HARVEST_RAW, records))
        url = f"http://127.0.0.1:{ports['query']}"
        wait_until(
            lambda: httpx.get(f"{url}/api/papers", params={"size": 1}, timeout=10).json()["total"] == 2,
            timeout=120,
            what="both papers indexed",
        )
        yield url


def test_without_javascript_a_formula_reads_as_the_source_wrote_it(query_url: str) -> None:
    response = httpx.get(f"{query_url}/papers/arxiv:{EPSILON}", timeout=10)
    tree = html.fromstring(response.text)
    abstract = tree.find_class("abstract-full")[0].find_class("tex")[0].text_content()
    assert r"with $\varepsilon$-differentially-private direction disclosure" in abstract
    assert {s.get("src") for s in tree.iter("script")} == {
        "/static/katex/katex.min.js",
        "/static/katex/contrib/auto-render.min.js",
        "/static/math.js",
        "/static/cite.js",  # the 引用 box's format switch and copy
    }
    assert all(s.get("defer") is not None for s in tree.iter("script"))  # the page is read before they run
    for path, kind in [
        ("/static/katex/katex.min.css", "text/css"),
        ("/static/katex/katex.min.js", "javascript"),
        ("/static/katex/contrib/auto-render.min.js", "javascript"),
        ("/static/katex/fonts/KaTeX_Main-Regular.woff2", "font/woff2"),
        ("/static/math.js", "javascript"),
    ]:
        served = httpx.get(f"{query_url}{path}", timeout=10)
        assert served.status_code == 200 and kind in served.headers["content-type"], path


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: install Debian's chromium (apt-get install -y chromium)"
)
def test_in_headless_chromium_formulas_are_rendered_and_a_broken_one_stays_source(
    query_url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=True)
        try:
            tab = browser.new_page()
            tab.goto(f"{query_url}/papers/arxiv:{EPSILON}?lang=en")
            abstract = tab.locator(".abstract-full p.tex")
            abstract.locator(".katex").first.wait_for(timeout=10_000)
            rendered = abstract.locator(".katex-html").all_inner_texts()
            assert "ε" in rendered and "η" in rendered  # $\varepsilon$ and $η$
            assert "$" not in (abstract.text_content() or "")  # every formula rendered (KaTeX keeps TeX without $)
            tab.locator(".abstract-full").screenshot(path=ARTIFACTS / "10-math-epsilon.png")
            tab.screenshot(path=ARTIFACTS / "10-math-paper.png", full_page=True)

            tab.goto(f"{query_url}/papers/arxiv:{UNPARSED}?lang=en")
            abstract = tab.locator(".abstract-full p.tex")
            abstract.locator(".katex").first.wait_for(timeout=10_000)
            assert abstract.locator(".katex").count() >= 5  # X_1,\ldots,X_n and the other formulas
            source = abstract.evaluate(
                "e => Array.from(e.childNodes).filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.data).join('')"
            )
            assert UNPARSED_SOURCE in source  # put back as the source wrote it, not a red error
            tab.locator(".abstract-full").screenshot(path=ARTIFACTS / "11-math-unparsed.png")

            tab.goto(f"{query_url}/?lang=en")
            tab.locator(f'article[data-paper-id="arxiv:{EPSILON}"] .katex').first.wait_for(timeout=10_000)
            tab.screenshot(path=ARTIFACTS / "12-math-cards.png", full_page=True)
        finally:
            browser.close()
