"""Formulas in titles and abstracts on the pages, over the normalizer, summarizer and query services: the source's
text without JavaScript; KaTeX (served by the query service from the npm package) in headless Chromium; and the
source kept as written where KaTeX cannot parse a formula. Text-mode LaTeX as the author meant it: the pages show
`\\textbf{2.8\\%}` as bold "2.8%" and `\\texttt{…}` as code, the API keeps the abstract as written, and a search finds
the words the markup split (`\\textbf{I}nference`). Real papers of the corpus (tests/fixtures/corpus)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from lxml import html

from services.query.web.render import KATEX_DIR
from tests.support.browsing import ARTIFACTS, CHROMIUM, launch_chromium
from tests.support.pipelines import indexed_records
from tests.support.servers import Servers
from tests.support.sources import corpus_records

pytestmark = pytest.mark.integration
EPSILON = "2605.19742"  # "… engines with $\varepsilon$-differentially-private direction disclosure …"
UNPARSED = "2605.11831"  # "\(\Prob(X_n=0) = \Prob(X_n=2) = w/2\)": \Prob is the authors' own macro
UNPARSED_SOURCE = r"\(\Prob(X_n=0) = \Prob(X_n=2) = w/2\)"
CURVEBENCH = "2605.14068"  # "… improves over \texttt{Qwen-3-VL-8B-Thinking} from \textbf{2.8\%} to \textbf{33.3\%} …"
TEXT_TO_SQL = "2605.22843"  # "… high-quality annotated \texttt{<question, SQL>} pairs are scarce …"
VEROIC = "2604.27536"  # "… \textbf{O}bservations for Risk-aware \textbf{I}nference \textbf{C}ontrol …"
PAPERS = (EPSILON, UNPARSED, CURVEBENCH, TEXT_TO_SQL, VEROIC)


@pytest.fixture(scope="module")
def query_url(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    assert (KATEX_DIR / "katex.min.js").is_file(), "KaTeX is not installed: run `make install` (papertrail assets)"
    records = [r for r in corpus_records() if r.record_id in PAPERS]
    with indexed_records(servers, records, tmp_path_factory.mktemp("math")) as url:
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


def _abstract_of_card(tree: Any, paper_id: str) -> Any:
    card = tree.xpath(f'//article[@data-paper-id="{paper_id}"]')[0]
    return card.find_class("abstract")[0].find_class("tex")[0]


def test_home_page_cards_show_percent_bold_and_code_not_the_commands(query_url: str) -> None:
    tree = html.fromstring(httpx.get(f"{query_url}/", timeout=10).text)
    abstract = _abstract_of_card(tree, f"arxiv:{CURVEBENCH}")
    text = " ".join(abstract.text_content().split())
    assert "improves over Qwen-3-VL-8B-Thinking from 2.8% to 33.3% tree-generation accuracy" in text
    assert "\\" not in text  # no \textbf, \texttt, \% left
    assert "Qwen-3-VL-8B-Thinking" in [code.text for code in abstract.iter("code")]
    assert {"2.8%", "33.3%", "756 images"} <= {b.text for b in abstract.iter("b")}


def test_paper_page_shows_code_escaped_and_the_api_keeps_the_abstract_as_written(query_url: str) -> None:
    response = httpx.get(f"{query_url}/papers/arxiv:{TEXT_TO_SQL}", timeout=10)
    abstract = html.fromstring(response.text).find_class("abstract-full")[0].find_class("tex")[0]
    assert [code.text for code in abstract.iter("code")] == ["<question, SQL>"]
    assert "<code>&lt;question, SQL&gt;</code>" in response.text
    held = httpx.get(f"{query_url}/api/papers/arxiv:{TEXT_TO_SQL}", timeout=10).json()
    assert r"annotated \texttt{<question, SQL>} pairs" in held["abstract"]
    assert r"annotated \texttt{<question, SQL>} pairs" in held["paper"]["abstract"]


@pytest.mark.parametrize(
    ("phrase", "paper_id"),
    [('"Risk-aware Inference Control"', VEROIC), ('"Thinking from 2.8% to 33.3%"', CURVEBENCH)],
)
def test_search_finds_the_words_the_markup_split(query_url: str, phrase: str, paper_id: str) -> None:
    found = httpx.get(f"{query_url}/api/papers", params={"q": phrase}, timeout=10).json()
    assert [hit["paper_id"] for hit in found["hits"]] == [f"arxiv:{paper_id}"]
