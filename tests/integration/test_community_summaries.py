"""A community summary through the real services over real Kafka, MongoDB and Meilisearch: daily-arXiv-ai-enhanced's
day file harvested from the replay server (its raw.githubusercontent.com path; six genuine lines of 2026-05-05's
file) gives each paper its Chinese 导读 with its provenance, without a summary model; a paper without one says so in
the reader's words, and its place in the queue once summaries are being written; a summary of ours replaces the
community one when written."""

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from lxml import html

from schemas import topics
from tests.support.fake_openai import running_fake_openai
from tests.support.kafka import publish_raw
from tests.support.paths import FIXTURES
from tests.support.replay import replay_server
from tests.support.servers import Servers
from tests.support.services import papertrail_cli, running_service, running_services
from tests.support.sources import raw_record
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

DAY = "2026-05-05"
LINES = [json.loads(line) for line in (FIXTURES / "summarizer" / "corpus-2026-05-05.jsonl").read_text().splitlines()]
CADFIT = next(line for line in LINES if line["id"] == "2605.01171")
# a paper of another day, listed without a community summary (its corpus line sent as `papertrail import` does)
ALONE = json.loads((FIXTURES / "summarizer" / "checks-corpus.jsonl").read_text().splitlines()[1])
PROVENANCE = f"社区导读:daily-arXiv-ai-enhanced 于 {DAY} 发布,由 deepseek-chat 生成"


def _page(port: int, paper_id: str, **params: str) -> tuple[str, Any]:
    response = httpx.get(f"http://127.0.0.1:{port}/papers/{paper_id}", params=params, timeout=10)
    response.raise_for_status()
    section = html.fromstring(response.text).get_element_by_id("summary")
    return " ".join(section.text_content().split()), section


def _showing(port: int, paper_id: str, words: str) -> str | None:
    """The paper page's summary section once it shows `words`."""
    text = _page(port, paper_id)[0]
    return text if words in text else None


def _detail(port: int, paper_id: str) -> dict[str, Any]:
    response = httpx.get(f"http://127.0.0.1:{port}/api/papers/{paper_id}", timeout=10)
    response.raise_for_status()
    return dict(response.json())


@pytest.fixture(scope="module")
def env(servers: Servers) -> Iterator[dict[str, str]]:
    run = uuid.uuid4().hex[:8]
    with replay_server() as replay:
        yield servers.environment() | {
            "MONGODB_DATABASE": f"papertrail_community_{run}",
            "INDEX_NAME": f"papers_community_{run}",
            "SWEEP_INTERVAL_S": "1",
            "DAILY_ARXIV_URL": f"{replay.url}/dw-dengwei/daily-arXiv-ai-enhanced/data",
            "DAILY_ARXIV_MIN_REQUEST_INTERVAL_S": "0",
        }


def test_a_community_summary_is_the_papers_guide_until_ours_is_written(
    env: dict[str, str], servers: Servers, tmp_path: Path
) -> None:
    with running_services(["query", "normalizer"], env, tmp_path) as ports:
        query = ports["query"]
        with running_service("summarizer", env, tmp_path):  # no model configured
            done = papertrail_cli(env, "harvest", "daily_arxiv", "--from", DAY, "--until", DAY)
            assert "daily_arxiv: 6 records" in done.stderr, done.stderr
            raw = raw_record("corpus", ALONE["id"], "corpus_json", json.dumps(ALONE, ensure_ascii=False), DAY)
            asyncio.run(publish_raw(servers.kafka_bootstrap_servers, servers.topic(topics.HARVEST_RAW), [raw]))

            paper_id = f"arxiv:{CADFIT['id']}"
            shown = wait_until(
                lambda: _showing(query, paper_id, PROVENANCE),
                timeout=90,
                what="the community summary on the paper page",
            )
            assert CADFIT["AI"]["tldr"] in shown and CADFIT["AI"]["method"] in shown
            english = _page(query, paper_id, lang="en")[0]
            assert (
                f"Community summary: published by daily-arXiv-ai-enhanced on {DAY}, written by deepseek-chat" in english
            )
            summary = _detail(query, paper_id)["summary"]
            assert (summary["publisher"], summary["model"], summary["published_on"]) == (
                "daily-arXiv-ai-enhanced", "deepseek-chat", DAY
            )  # fmt: skip
            for line in LINES:  # every genuine line passes the checks: each paper shows its own
                tldr, line_id = line["AI"]["tldr"], line["id"]

                def shows_its_own(tldr: str = tldr, line_id: str = line_id) -> bool:
                    return tldr in _page(query, f"arxiv:{line_id}")[0]

                wait_until(shows_its_own, timeout=60, what=f"{line_id}'s community summary")
            alone = f"arxiv:{ALONE['id']}"
            wait_until(lambda: _detail(query, alone)["searchable"], timeout=60, what="the paper without one indexed")
            assert (
                _page(query, alone)[0] == "AI 导读 暂无 AI 导读"
                and _detail(query, alone)["summary_queue_place"] is None
            )

        with running_fake_openai() as (fake, openai_url):
            fake.down = True  # summaries are being written, but the endpoint is away: the papers wait in the queue
            model = {"OPENAI_BASE_URL": openai_url, "OPENAI_MODEL": "fake-deepseek", "OPENAI_API_KEY": "k"}
            with running_service("summarizer", env | model | {"OPENAI_ATTEMPTS": "1"}, tmp_path):
                queued = wait_until(
                    lambda: re.fullmatch(r"AI 导读 AI 导读生成中 · 队列第 (\d+) 位", _page(query, alone)[0]),
                    timeout=60,
                    what="the queued paper's place",
                )
                assert int(queued.group(1)) == _detail(query, alone)["summary_queue_place"] <= 1 + len(LINES)
                assert PROVENANCE in _page(query, paper_id)[0]  # meanwhile the community summary stays
                fake.down = False
                ours = wait_until(
                    lambda: _showing(query, paper_id, "fake-deepseek"),
                    timeout=90,
                    what="our summary replacing the community one",
                )
                assert "社区导读" not in ours and CADFIT["AI"]["tldr"] in ours  # the fake answers with the same words
                assert "publisher" not in _detail(query, paper_id)["summary"]
