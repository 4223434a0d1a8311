"""为你推荐 over the real query service: the May 2026 arXiv papers with vectors from the real local model (written to
paper_vectors as the summarizer writes them), a reader's saves and dismissals training their model in the background,
the ranked feed with scores and reasons a page at a time; no feedback, the follows-based feed; readers apart."""

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId
from lxml import html

from papertrail.domain.text import paper_digest
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import EmbeddingSettings, embedding_text
from papertrail.runtime.collections import MATCHES, PAPER_VECTORS
from papertrail.runtime.collections import PAPERS as PAPERS_COLLECTION
from schemas.paper import Paper
from tests.support.library_papers import corpus_days
from tests.support.reader_site import Site, browser
from tests.support.waiting import wait_until

pytestmark = [
    pytest.mark.integration,
    pytest.mark.reader_site(readers=("ana", "bo", "cy"), FEED_RETRAIN_DEBOUNCE_S="0", FEED_RETRAIN_POLL_S="0.3"),
]
PAPERS = list(corpus_days())
SETTINGS = EmbeddingSettings()
SINCE = "2026-11-01T00:00:00Z"  # the papers were stored on 2026-11-30 (tests/support/library_papers.py)


def vector_documents(papers: list[Paper]) -> list[dict[str, Any]]:
    """paper_vectors as the summarizer writes them (docs: prompts/VECTORS.md), from the real local model."""

    async def embed() -> list[Any]:
        embedder = open_embedder(SETTINGS)
        try:
            return await embedder.embed([embedding_text(p.title, p.abstract) for p in papers])
        finally:
            await embedder.close()

    now = datetime.now(UTC)
    return [
        {
            "_id": paper.id,
            "model": SETTINGS.model_key,
            "content_hash": paper_digest(paper),
            "state": "embedded",
            "vector": [float(x) for x in outcome.vector],
            "updated_at": now,
        }
        for paper, outcome in zip(papers, asyncio.run(embed()), strict=True)
        if outcome.vector is not None
    ]


@pytest.fixture(scope="module")
def site(site: Site) -> Site:
    """The readers' site (tests/query/accounts/conftest.py), its papers embedded and changed today, as a harvest would
    leave them: the digest's picks rank the last day's papers."""
    site.db[PAPER_VECTORS.name].insert_many(vector_documents(PAPERS))
    site.db[PAPERS_COLLECTION.name].update_many({}, {"$set": {"updated_at": datetime.now(UTC)}})
    return site


def primary(paper: Paper) -> str:
    return paper.categories[0] if paper.categories else ""


def ranked(site: Site, reader: str, **params: Any) -> dict[str, Any]:
    answer = site.call("GET", "/api/feed", reader=reader, params={"sort": "relevance", "since": SINCE, **params})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_reader_without_feedback_gets_the_follows_based_feed(site: Site) -> None:
    page = ranked(site, "bo")
    assert page["sort"] == "newest" and page["total"] == 0 and page["items"] == [] and page["next_cursor"] is None


def test_saves_and_dismissals_train_a_model_that_ranks_recent_papers_with_reasons(site: Site) -> None:
    counts = Counter(primary(p) for p in PAPERS)
    liked, disliked = (name for name, _ in counts.most_common(2))
    saved = [p for p in PAPERS if primary(p) == liked][:6]
    dismissed = [p for p in PAPERS if primary(p) == disliked][:6]
    for paper in saved:
        assert site.call("PUT", f"/api/me/feedback/{paper.id}", reader="ana", json={"mark": "save"}).status_code == 200
    for paper in dismissed:
        site.call("PUT", f"/api/me/feedback/{paper.id}", reader="ana", json={"mark": "not_relevant"})
    user_id = site.db["users"].find_one({"name": "ana"})["_id"]
    wait_until(
        lambda: (
            (doc := site.db["reader_models"].find_one({"_id": user_id})) and doc.get("weights") and not doc["pending"]
        ),
        timeout=60,
        what="a model trained on all the feedback",
    )
    first = ranked(site, "ana")
    assert first["sort"] == "relevance"
    marked = {p.id for p in [*saved, *dismissed]}
    assert first["total"] == len(PAPERS) - len(marked)  # every recent paper with a vector but those marked
    items, cursor = list(first["items"]), first["next_cursor"]
    while cursor:
        page = ranked(site, "ana", cursor=cursor)
        items += page["items"]
        cursor = page["next_cursor"]
    assert len(items) == first["total"] and not {i["paper_id"] for i in items} & marked
    scores = [i["score"] for i in items]
    assert scores == sorted(scores, reverse=True)
    saved_titles = {p.id: p.title for p in saved}
    for item in items[:10]:
        closest = item["closest_saved"]
        assert closest["paper_id"] in saved_titles and item["reason"] == f"close to your saved '{closest['title']}'"
    by_id = {p.id: p for p in PAPERS}
    top = [primary(by_id[i["paper_id"]]) for i in items[:20]]
    bottom = [primary(by_id[i["paper_id"]]) for i in items[-20:]]
    assert top.count(liked) > bottom.count(liked) and bottom.count(disliked) > top.count(disliked)
    picks = wait_until(
        lambda: (doc := site.db["reader_picks"].find_one({"_id": user_id})) and doc["picks"], timeout=30, what="picks"
    )
    assert {p["paper_id"] for p in picks} == {i["paper_id"] for i in items[:10]}  # the digest's top 10 are the feed's
    assert all(p["title"] == by_id[p["paper_id"]].title for p in picks)
    model = site.db["reader_models"].find_one({"user_id": site.db["users"].find_one({"name": "ana"})["_id"]})
    assert len(model["weights"]) == SETTINGS.embedding_dimensions and model["pending"] is False
    assert all(isinstance(w, float) for w in model["weights"][:5])


def test_new_feedback_retrains_and_the_last_model_serves_meanwhile(site: Site) -> None:
    before = ranked(site, "ana")
    assert before["sort"] == "relevance"
    user_id = site.db["users"].find_one({"name": "ana"})["_id"]
    trained_at = site.db["reader_models"].find_one({"_id": user_id})["trained_at"]
    top = before["items"][0]["paper_id"]
    site.call("PUT", f"/api/me/feedback/{top}", reader="ana", json={"mark": "not_relevant"})
    assert ranked(site, "ana")["sort"] == "relevance"  # the last model answers while the new one trains
    wait_until(
        lambda: site.db["reader_models"].find_one({"_id": user_id})["trained_at"] > trained_at,
        timeout=60,
        what="the model trained again",
    )
    assert top not in {i["paper_id"] for i in ranked(site, "ana", limit=200)["items"]}
    assert ranked(site, "bo")["sort"] == "newest"  # ana's model is not bo's
    assert site.call("GET", "/api/feed", reader="ana", params={"cursor": "x!"}).status_code == 422


def test_the_feed_page_has_a_for_you_tab(site: Site) -> None:
    with browser(site, "ana") as ana:
        page = html.fromstring(ana.get("/me/feed", params={"sort": "relevance"}).text)
        assert page.xpath('//nav[@class="tabs"]/a[@aria-current="page"]/@href') == ["/me/feed?sort=relevance"]
        scored = page.xpath("//article[@data-score]")
        assert scored and "与你收藏的「" in scored[0].text_content()
        assert scored[0].xpath('.//form[@data-marks]/input[@name="csrf"]')
    with browser(site, "bo") as bo:
        fallback = html.fromstring(bo.get("/me/feed", params={"sort": "relevance"}).text)
        assert fallback.xpath('//p[@class="banner"]') and not fallback.xpath("//article[@data-score]")


def test_the_newest_feed_pages_by_any_cursor_of_the_documented_forms(site: Site) -> None:
    """cy's matches (as the matcher records them): new papers, three matched at one moment, one by two follows, then
    two a backfill found. The newest feed pages through the papers after each page's last, each once, none twice,
    across from the new to the backfilled; `<n>` skips n; and once cy has a model, a cursor after a paper still
    continues the newest feed, whatever `sort` asks."""
    user_id = site.db["users"].find_one({"name": "cy"})["_id"]
    moment = datetime(2026, 11, 30, 8, tzinfo=UTC)
    times = [moment, moment, moment, *(moment - timedelta(minutes=n) for n in range(1, 5))]
    matched = [(paper.id, at, n >= 5) for n, (paper, at) in enumerate(zip(PAPERS, times, strict=False))]
    matched.append((PAPERS[3].id, moment - timedelta(hours=1), False))  # a second follow's older match
    site.db[MATCHES.name].insert_many(
        [
            {"_id": ObjectId(), "user_id": user_id, "follow_id": f"{n % 2:x}" * 32, "follow_kind": "keyword",
             "paper_id": paper_id, "reasons": [], "matched_at": at, "backfill": backfill, "announced": True}
            for n, (paper_id, at, backfill) in enumerate(matched)
        ]
    )  # fmt: skip
    # the feed's order: new before backfilled, newest match first, then the greater paper id
    papers = {paper_id: (backfill, at) for paper_id, at, backfill in matched[:7]}  # the extra match is older
    newest = sorted(
        sorted(papers, reverse=True), key=lambda paper_id: (papers[paper_id][0], -papers[paper_id][1].timestamp())
    )

    def feed(**params: Any) -> dict[str, Any]:
        answer = site.call("GET", "/api/feed", reader="cy", params={"limit": 2, **params})
        assert answer.status_code == 200, answer.text
        return answer.json()

    seen, cursors, page = [], [], feed(sort="newest")
    while True:
        seen += [item["paper_id"] for item in page["items"]]
        if not page["next_cursor"]:
            break
        cursors.append(page["next_cursor"])
        page = feed(sort="newest", cursor=page["next_cursor"])
    assert seen == newest and [c[:2] for c in cursors] == ["0.", "0.", "1."] and page["total"] == 7
    assert [item["paper_id"] for item in feed(sort="newest", cursor="3")["items"]] == newest[3:5]
    assert feed(sort="newest", cursor="9999")["items"] == []
    for paper in PAPERS[:3]:
        site.call("PUT", f"/api/me/feedback/{paper.id}", reader="cy", json={"mark": "save"})
    for paper in PAPERS[-3:]:
        site.call("PUT", f"/api/me/feedback/{paper.id}", reader="cy", json={"mark": "not_relevant"})
    wait_until(lambda: ranked(site, "cy")["sort"] == "relevance", timeout=60, what="cy's model trained")
    after_first_page = feed(sort="relevance", since=SINCE, cursor=cursors[0])
    assert after_first_page["sort"] == "newest" and [i["paper_id"] for i in after_first_page["items"]] == newest[2:4]
