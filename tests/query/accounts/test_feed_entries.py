"""The follows feed over the real query service (issue 38 §3): matches written as the matcher writes them, the API
and the pages reading them. One entry per paper with every follow's reasons; one follow's matches (`follow_id`) on
the API and the page; each follow's count on 我的关注 linking to them; backfilled matches (回溯) after new ones;
entries matched after the reader's previous visit marked new."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from lxml import html

from papertrail.runtime.collections import MATCHES, USERS
from schemas.events import FollowMatched, MatchReason
from tests.support.library_papers import corpus_days
from tests.support.reader_site import Site, browser

pytestmark = [pytest.mark.integration, pytest.mark.reader_site(readers=("ana", "bo"))]
PAPERS = list(corpus_days(1))[:6]
NOW = datetime.now(UTC)


def follow(site: Site, name: str, query: str) -> str:
    made = site.call("POST", "/api/follows", json={"kind": "keyword", "name": name, "query": query})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def matched(site: Site, follow_id: str, name: str, paper: int, at: datetime, *, backfill: bool = False) -> dict:
    """A match as the matcher's store writes it (services/matcher/store.py: record_many)."""
    user = site.db[USERS.name].find_one({"name": "ana"})
    event = FollowMatched(
        user_id=user["_id"], follow_id=follow_id, follow_kind="keyword", paper_id=PAPERS[paper].id,
        reasons=[MatchReason(field="title", term=name)], matched_at=at, follow_name=name,
        paper_title=PAPERS[paper].title, backfill=backfill,
    )  # fmt: skip
    return {**event.model_dump(mode="python"), "announced": True}


@pytest.fixture(scope="module")
def follows(site: Site) -> dict[str, str]:
    """Two follows: `old`, live, matching papers 0–2; `acl`, new, whose backfill found papers 1–5, then a live
    match of paper 0 (so paper 0 and 1 each match both follows; 3–5 only by the backfill)."""
    ids = {"old": follow(site, "old", "language"), "acl": follow(site, "acl", "model")}
    day = timedelta(days=1)
    docs = [matched(site, ids["old"], "old", p, NOW - (3 - p) * day) for p in range(3)]
    docs += [matched(site, ids["acl"], "acl", p, NOW - 2 * day, backfill=True) for p in range(1, 6)]
    docs += [matched(site, ids["acl"], "acl", 0, NOW - timedelta(hours=1))]
    site.db[MATCHES.name].insert_many(docs)
    return ids


def feed(site: Site, **params: Any) -> dict[str, Any]:
    answer = site.call("GET", "/api/feed", params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_one_entry_per_paper_with_every_follows_reasons(site: Site, follows: dict[str, str]) -> None:
    page = feed(site)
    ids = [item["paper_id"] for item in page["items"]]
    assert len(ids) == len(set(ids)) == page["total"] == 6
    first = page["items"][0]
    assert first["paper_id"] == PAPERS[0].id
    assert {m["follow_id"] for m in first["matches"]} == set(follows.values())
    assert {r["term"] for r in first["reasons"]} == {"old", "acl"}


def test_backfilled_papers_come_after_new_ones_and_are_counted(site: Site, follows: dict[str, str]) -> None:
    page = feed(site, limit=4)
    items = page["items"] + feed(site, limit=4, cursor=page["next_cursor"])["items"]
    backfilled = [item["backfill"] for item in items]
    assert backfilled == sorted(backfilled), "a backfilled paper above a new one"
    assert {item["paper_id"] for item in items if item["backfill"]} == {p.id for p in PAPERS[3:6]}
    assert page["backfilled"] == 3
    live = [item for item in items if not item["backfill"]]
    assert [i["matched_at"] for i in live] == sorted((i["matched_at"] for i in live), reverse=True)


def test_one_follows_matches_on_the_api_and_the_page(site: Site, follows: dict[str, str]) -> None:
    only = feed(site, follow_id=follows["old"])
    assert {item["paper_id"] for item in only["items"]} == {p.id for p in PAPERS[:3]}
    assert only["total"] == 3
    with browser(site, "ana") as reader:
        page = html.fromstring(reader.get("/me/feed", params={"follow_id": follows["old"]}).text)
        assert set(page.xpath("//article/@data-paper-id")) == {p.id for p in PAPERS[:3]}
        everything = html.fromstring(reader.get("/me/feed").text)
        assert len(everything.xpath("//article/@data-paper-id")) == 6
        assert everything.xpath('//h2[@id="backfilled"]'), "no 回溯 group"
        assert reader.get("/me/feed", params={"follow_id": "f" * 32}).status_code == 404
    assert site.call("GET", "/api/feed", reader="bo", params={"follow_id": follows["old"]}).json()["total"] == 0


def test_follows_page_counts_each_follows_matches_and_links_them(site: Site, follows: dict[str, str]) -> None:
    with browser(site, "ana") as reader:
        page = html.fromstring(reader.get("/me/follows").text)
    for name, count in (("old", 3), ("acl", 6)):
        link = page.xpath(f'//li[@data-follow-id="{follows[name]}"]//a[@class="matches"]')[0]
        assert link.get("href") == f"/me/feed?follow_id={follows[name]}"
        assert str(count) in link.text_content()


def test_entries_matched_after_the_previous_visit_are_new(site: Site, follows: dict[str, str]) -> None:
    user = site.db[USERS.name].find_one({"name": "ana"})
    # the reader's last view was 2.5 days ago: a view now starts a new visit, counting from it
    site.db[USERS.name].update_one({"_id": user["_id"]}, {"$set": {"feed_seen_at": NOW - timedelta(days=2.5)}})
    page = feed(site)
    new = {item["paper_id"] for item in page["items"] if item["new"]}
    assert new == {p.id for p in PAPERS[:3]}  # paper 1 was backfilled too, but matched live since
    assert page["new"] == 3
    again = feed(site)  # the same visit: still new
    assert again["new"] == 3
