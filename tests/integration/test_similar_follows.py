"""Follows of kind `similar` over the real pipeline (Kafka, MongoDB, Meilisearch, the five services) and the real local
model: made through the API with seeds written in any id form, waiting while their seeds have no vector, matching a
paper their reader's keyword rule misses, a description alone, one reader's follows never in another's feed, an
unfollow stopping matches, a redelivered paper matched once, the reason in the feed and the Atom feed, and bad input
refused with a 4xx naming the problem.

The vectors are the pipeline's own: the summarizer embeds every paper with the real local model. To see a follow wait,
the test takes its seeds' and the new paper's vectors away, then sends those papers again on papers.normalized.v1 (a
metadata update, as a replay would): the summarizer's cache misses, its sweep embeds them, and it emits them on
papers.enriched.v1 with `embedding.state = "embedded"`. A redelivery is the test's own copy of that event.

The fixture papers were picked by reading them: two papers on spreading over social networks (influential spreaders,
epidemic prevalence) seed the follow; "Asynchronous Rumour Spreading in Social and Signed Topologies" is a third on
the subject, which a keyword rule on the seeds' own words (`epidemic OR "influential spreaders"`) misses.
"""

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaProducer
from lxml import etree
from pymongo import MongoClient

from papertrail.domain.follows.checks import MAX_SEEDS
from papertrail.embedding.embedder import EmbeddingSettings
from papertrail.embedding.similarity import DEFAULT_THRESHOLD
from schemas.events import PaperEmbedding, PaperEnriched, PaperNormalized
from schemas.paper import Paper, PaperVersion
from schemas.summary import Summary
from services.harvester.sources.oai import parse_oai_page
from services.normalizer.parsers.arxiv_oai import parse_arxiv
from tests.support.browsing import ARTIFACTS, CHROMIUM, launch_chromium
from tests.support.pipelines import ARXIV_CS_PAGE, Pipeline, running_pipeline
from tests.support.query_api import api_get, bearer
from tests.support.receivers import Receiver
from tests.support.servers import Servers
from tests.support.services import create_user
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

RECORDS = [parse_arxiv(r.content) for r in parse_oai_page(ARXIV_CS_PAGE.read_bytes()).records]
SEEDS = ["arXiv:1306.5042", "https://arxiv.org/abs/1311.5932v1"]  # two of the forms a reader may write
SEED_IDS = ["arxiv:1306.5042", "arxiv:1311.5932"]
NEW = "arxiv:1310.6119"  # rumour spreading: like the seeds, without their words
KEYWORDS = 'epidemic OR "influential spreaders"'
CODES = "Error-correcting codes for noisy communication channels: LDPC, polar and convolutional codes, and decoding."
CODE_PAPERS = {"arxiv:1309.7543", "arxiv:1501.03737"}  # spatially-coupled LDPC codes; polar codes
SETTINGS = EmbeddingSettings()


@pytest.fixture(scope="module")
def pipeline(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Pipeline, dict[str, str]]]:
    # the follow's webhook receiver is on 127.0.0.1, which an operator has to allow
    with running_pipeline(servers, tmp_path_factory.mktemp("similar"), WEBHOOK_ALLOWED_HOSTS="127.0.0.1") as pipe:
        wait_until(
            lambda: api_get(pipe, "/api/papers", size=1)["total"] == len(RECORDS),
            timeout=120,
            what="every paper indexed",
        )
        with MongoClient[dict[str, Any]](servers.mongodb_url) as client:
            vectors = client[pipe.env["MONGODB_DATABASE"]].paper_vectors
            wait_until(
                lambda: vectors.count_documents({"state": "embedded"}) == len(RECORDS),
                timeout=180,
                what="the summarizer's vector of every paper",
            )
        yield pipe, {"ana": create_user(pipe.env, "ana"), "bo": create_user(pipe.env, "bo")}


def _follow(pipeline: Pipeline, token: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(pipeline.url("query", "/api/follows"), headers=bearer(token), json=body, timeout=10)


def _made(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def _feed(pipeline: Pipeline, token: str) -> list[dict[str, Any]]:
    feed: list[dict[str, Any]] = api_get(pipeline, "/api/feed", token, limit=200)["items"]
    return feed


def _similar_follows_in_matcher(pipeline: Pipeline) -> float:
    text = httpx.get(pipeline.url("matcher", "/metrics"), timeout=5).text
    found = re.search(r'^papertrail_matcher_follows\{kind="similar"\} ([0-9.e+]+)$', text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def _papers_matched(pipeline: Pipeline) -> float:
    text = httpx.get(pipeline.url("matcher", "/metrics"), timeout=5).text
    found = re.search(r"^papertrail_matcher_papers_total ([0-9.e+]+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


async def _emit_embedded(pipeline: Pipeline, db: Any, paper_ids: list[str]) -> None:
    """papers.enriched.v1 again for these papers, now embedded, as the summarizer emits it."""
    producer = AIOKafkaProducer(bootstrap_servers=pipeline.env["KAFKA_BOOTSTRAP_SERVERS"])
    await producer.start()
    try:
        for doc in db.papers.find({"_id": {"$in": paper_ids}}):
            paper = Paper.model_validate({"id": doc["_id"]} | {k: v for k, v in doc.items() if k in Paper.model_fields})
            event = PaperEnriched(
                kind="new",
                paper=paper,
                version=PaperVersion.model_validate(doc["last_versions"][-1]),
                summary=Summary(status="pending"),
                embedding=PaperEmbedding(model=SETTINGS.model_key, state="embedded"),
            )
            await producer.send_and_wait(
                pipeline.topic("papers.enriched.v1"), event.model_dump_json().encode(), key=paper.id.encode()
            )
    finally:
        await producer.stop()


async def _renormalized(pipeline: Pipeline, db: Any, paper_ids: list[str]) -> None:
    """papers.normalized.v1 again for these papers, as a metadata update (what a replay of their records sends)."""
    producer = AIOKafkaProducer(bootstrap_servers=pipeline.env["KAFKA_BOOTSTRAP_SERVERS"])
    await producer.start()
    try:
        for doc in db.papers.find({"_id": {"$in": paper_ids}}):
            paper = Paper.model_validate({"id": doc["_id"]} | {k: v for k, v in doc.items() if k in Paper.model_fields})
            event = PaperNormalized(
                kind="updated", paper=paper, version=PaperVersion.model_validate(doc["last_versions"][-1])
            )
            await producer.send_and_wait(
                pipeline.topic("papers.normalized.v1"), event.model_dump_json().encode(), key=paper.id.encode()
            )
    finally:
        await producer.stop()


def test_bad_similar_follows_are_4xx_naming_the_problem(pipeline: tuple[Pipeline, dict[str, str]]) -> None:
    pipe, tokens = pipeline
    held = [f"arxiv:{r.record_id}" for r in RECORDS]
    too_many = _follow(pipe, tokens["bo"], {"kind": "similar", "name": "x", "seeds": held[: MAX_SEEDS + 1]})
    assert too_many.status_code == 422 and "seeds" in str(too_many.json()["detail"])
    unknown = _follow(pipe, tokens["bo"], {"kind": "similar", "name": "x", "seeds": [SEEDS[0], "2605.99999"]})
    assert unknown.status_code == 400
    assert unknown.json()["detail"] == "seeds[1]: no paper '2605.99999' is held here"
    not_an_id = _follow(pipe, tokens["bo"], {"kind": "similar", "name": "x", "seeds": ["rumour spreading"]})
    assert not_an_id.status_code == 400 and not_an_id.json()["detail"].startswith("seeds[0]: ")
    empty = _follow(pipe, tokens["bo"], {"kind": "similar", "name": "x", "seeds": [], "description": "  "})
    assert empty.status_code == 400 and "needs `seeds`" in empty.json()["detail"]
    loose = _follow(pipe, tokens["bo"], {"kind": "similar", "name": "x", "seeds": SEEDS, "threshold": 0.1})
    assert loose.status_code == 422 and "threshold" in str(loose.json()["detail"])
    assert api_get(pipe, "/api/follows", tokens["bo"]) == []  # nothing stored


def test_similar_follows_wait_for_vectors_then_match_what_keywords_miss(
    pipeline: tuple[Pipeline, dict[str, str]], servers: Servers
) -> None:
    pipe, tokens = pipeline
    with Receiver([200]) as receiver:
        _wait_for_vectors_then_match(pipe, tokens, servers, receiver)


def _wait_for_vectors_then_match(pipe: Pipeline, tokens: dict[str, str], servers: Servers, receiver: Receiver) -> None:
    ana, bo = tokens["ana"], tokens["bo"]
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    db = client[pipe.env["MONGODB_DATABASE"]]
    # the seeds and the new paper lose their vectors: the follow waits until the summarizer's sweep is back
    db.paper_vectors.delete_many({"_id": {"$in": [*SEED_IDS, NEW]}})
    body = {"kind": "similar", "name": "spreading", "seeds": SEEDS, "webhook_url": receiver.url}
    like = _made(_follow(pipe, ana, body))
    assert [s["paper_id"] for s in like["seeds"]] == SEED_IDS
    assert like["seeds"][1]["title"].startswith("Strong ties promote the epidemic prevalence")
    assert like["threshold"] == DEFAULT_THRESHOLD
    assert like["state"] == "waiting for vectors" and like["seeds_without_vectors"] == SEED_IDS
    keywords = _made(_follow(pipe, ana, {"kind": "keyword", "name": "spreading words", "query": KEYWORDS}))
    gone = _made(_follow(pipe, ana, {"kind": "similar", "name": "unfollowed", "seeds": SEEDS}))
    codes = _made(_follow(pipe, ana, {"kind": "similar", "name": "codes", "description": CODES, "threshold": 0.5}))
    assert "seeds" not in codes and codes["description"] == CODES and codes["state"] == "active"
    theirs = _made(_follow(pipe, bo, {"kind": "similar", "name": "bo's spreading", "seeds": SEED_IDS}))
    assert httpx.delete(pipe.url("query", f"/api/follows/{gone['id']}"), headers=bearer(ana)).status_code == 204
    try:
        asyncio.run(_renormalized(pipe, db, [*SEED_IDS, NEW]))
        wait_until(
            lambda: api_get(pipe, f"/api/follows/{like['id']}", ana)["state"] == "active",
            timeout=120,
            what="the seeds embedded again by the summarizer",
        )

        def ana_matches() -> dict[str, set[str]]:
            found: dict[str, set[str]] = {}
            for item in _feed(pipe, ana):
                found.setdefault(item["follow_id"], set()).add(item["paper_id"])
            return found

        # the description alone finds the papers on codes
        wait_until(lambda: ana_matches().get(codes["id"]) == CODE_PAPERS, timeout=90, what="the description's matches")
        feed = {(i["follow_id"], i["paper_id"]): i for i in _feed(pipe, ana)}
        reason = feed[(codes["id"], "arxiv:1309.7543")]["reasons"][0]
        assert reason["field"] == "similar" and reason["term"] == "description" and "seed_id" not in reason
        assert reason["score"] >= 0.5
        # the keyword rule takes the seeds themselves; the similar follow takes no seed (no news to its reader)
        wait_until(
            lambda: ana_matches().get(keywords["id"]) == set(SEED_IDS), timeout=60, what="the keyword follow's backfill"
        )
        assert not ana_matches().get(like["id"], set()) & set(SEED_IDS)

        wait_until(lambda: _similar_follows_in_matcher(pipe) == 3, timeout=60, what="the unfollow in the matcher")

        # the new paper, embedded again: like the seeds, without the keyword rule's words
        wait_until(lambda: NEW in ana_matches().get(like["id"], set()), timeout=90, what="the similar follow's match")
        match = next(i for i in _feed(pipe, ana) if i["follow_id"] == like["id"] and i["paper_id"] == NEW)
        [reason] = match["reasons"]
        assert reason["field"] == "similar" and reason["seed_id"] in SEED_IDS and reason["score"] >= DEFAULT_THRESHOLD
        closest = next(s for s in like["seeds"] if s["paper_id"] == reason["seed_id"])
        assert reason["term"] == closest["title"]
        assert match["follow_kind"] == "similar" and match["paper"]["title"].startswith("Asynchronous Rumour")
        assert NEW not in ana_matches().get(keywords["id"], set())  # the words missed it
        assert gone["id"] not in ana_matches()  # unfollowed before its seeds had vectors

        # bo's follow took it too, and each reader sees only their own follows
        wait_until(lambda: any(i["follow_id"] == theirs["id"] for i in _feed(pipe, bo)), timeout=60, what="bo's match")
        assert {i["follow_id"] for i in _feed(pipe, bo)} == {theirs["id"]}
        assert theirs["id"] not in ana_matches()

        # the same paper again: still one match
        before = _papers_matched(pipe)
        asyncio.run(_emit_embedded(pipe, db, [NEW]))
        wait_until(lambda: _papers_matched(pipe) > before, timeout=60, what="the redelivered paper matched")
        assert db.matches.count_documents({"follow_id": like["id"], "paper_id": NEW}) == 1

        # the follow's webhook told of the match once: its own POST with its reason when it was matched as a new
        # paper, or, when the follow's backfill (run again as its seeds gained vectors) found it first, within that
        # backfill's one summary ("N earlier papers match"), never a POST per backfilled match
        [recorded] = db.matches.find({"follow_id": like["id"], "paper_id": NEW})

        def posted() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            bodies = [json.loads(body) for _, body in receiver.requests]
            assert all(b["event"] in ("follow.matched", "follow.backfilled") for b in bodies)
            summaries = [b["backfill"] for b in bodies if b["event"] == "follow.backfilled"]
            return [b["match"] for b in bodies if b["event"] == "follow.matched"], summaries

        if recorded.get("backfill"):
            wait_until(lambda: posted()[1], timeout=60, what="the backfill's summary POST")
            assert all(m["paper_id"] != NEW for m in posted()[0])
        else:
            wait_until(lambda: posted()[0], timeout=60, what="the webhook's POST of the match")
            [delivered] = posted()[0]
            assert delivered["paper_id"] == NEW and delivered["follow_kind"] == "similar"
            assert delivered["reasons"] == [reason | {"categories": [], "subtopic": None, "subtopic_id": None}]

        # the Atom feed says why
        atom = httpx.get(pipe.url("query", like["feed_url"]), timeout=10)
        summaries = etree.fromstring(atom.content).findall(".//{http://www.w3.org/2005/Atom}summary")
        expected = f'[similar to "{closest["title"]}" ({reason["score"]:.2f})]'
        assert [s.text.startswith(expected) for s in summaries] == [True]
    finally:
        client.close()


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: install Debian's chromium")
def test_in_headless_chromium_a_similar_follow_is_made_by_form_and_its_reasons_read(
    pipeline: tuple[Pipeline, dict[str, str]], tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    pipe, tokens = pipeline
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=False)
        try:
            tab = browser.new_page()
            tab.goto(pipe.url("query", "/login?next=/me/follows"))
            tab.locator("details.token-login summary").click()  # the API token sign-in, folded away
            tab.locator("input[name=token]").fill(tokens["ana"])
            tab.locator("details.token-login").get_by_role("button", name="登录").click()
            tab.wait_for_url("**/me/follows")
            form = tab.locator("form.follow-form", has=tab.locator("input[name=kind][value=similar]"))
            assert form.locator("input[name=threshold]").input_value() == str(DEFAULT_THRESHOLD)
            form.locator("textarea[name=seeds]").fill("2605.99999")  # held nowhere: refused, named
            form.get_by_role("button", name="关注").click()
            assert "第 1 篇种子论文「2605.99999」本站没有收录" in tab.locator(".banner-error").inner_text()
            form = tab.locator("form.follow-form", has=tab.locator("input[name=kind][value=similar]"))
            # arXiv's own DOI of one paper, and the other by its abstract page
            form.locator("textarea[name=seeds]").fill("10.48550/arXiv.1309.7543\nhttps://arxiv.org/abs/1501.03737")
            form.locator("input[name=name]").fill("codes, by example")
            form.get_by_role("button", name="关注").click()
            made = tab.locator(".follow", has_text="codes, by example")
            assert "Threshold Saturation for Spatially-Coupled LDPC" in made.inner_text()
            assert "Polar codes in quantum information theory" in made.inner_text()
            tab.screenshot(path=ARTIFACTS / "10-similar-follows.png", full_page=True)

            tab.goto(pipe.url("query", "/me/feed"))
            entry = tab.locator(f'article[data-paper-id="{NEW}"]', has_text="spreading")
            assert re.search(
                r"与「Strong ties promote the epidemic prevalence[^」]*」相似\(0\.\d\d\)", entry.inner_text()
            )
            tab.screenshot(path=ARTIFACTS / "11-similar-feed.png", full_page=True)
        finally:
            browser.close()
