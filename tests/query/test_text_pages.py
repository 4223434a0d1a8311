"""Abstracts as their authors meant them, over the normalizer, summarizer and query services: the pages show
`\\textbf{2.8\\%}` as bold "2.8%" and `\\texttt{…}` as code, the API keeps the abstract as written, and a search finds
the words the markup split (`\\textbf{I}nference`). Three real papers of the corpus (tests/fixtures/corpus)."""

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from lxml import html

from schemas import topics
from tests.conftest import Servers, wait_until
from tests.integration.services import running_services
from tests.normalizer.kafka_tools import publish_raw
from tests.normalizer.sources import corpus_records

pytestmark = pytest.mark.integration
CURVEBENCH = "2605.14068"  # "… improves over \texttt{Qwen-3-VL-8B-Thinking} from \textbf{2.8\%} to \textbf{33.3\%} …"
TEXT_TO_SQL = "2605.22843"  # "… high-quality annotated \texttt{<question, SQL>} pairs are scarce …"
VEROIC = "2604.27536"  # "… \textbf{O}bservations for Risk-aware \textbf{I}nference \textbf{C}ontrol …"


@pytest.fixture(scope="module")
def query_url(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    wanted = (CURVEBENCH, TEXT_TO_SQL, VEROIC)
    records = list({r.record_id: r for r in corpus_records() if r.record_id in wanted}.values())
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_text_{run}",
        "INDEX_NAME": f"papers_text_{run}",
        "TOPIC_PARTITIONS": "1",
    }
    with running_services(["normalizer", "summarizer", "query"], env, tmp_path_factory.mktemp("text")) as ports:
        asyncio.run(publish_raw(servers.kafka_bootstrap_servers, topics.HARVEST_RAW, records))
        url = f"http://127.0.0.1:{ports['query']}"
        wait_until(
            lambda: httpx.get(f"{url}/api/papers", params={"size": 1}, timeout=10).json()["total"] == len(wanted),
            timeout=120,
            what="the three papers indexed",
        )
        yield url


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
