"""A daily digest summarizes a new follow's backfill (how many held papers it matched, a link to its feed) instead of
listing each of them; a paper matched live as well is listed as usual."""

from datetime import UTC, date, datetime

from schemas.events import FollowMatched, MatchReason
from services.matcher.delivery.digest import build_digest, digest_text, render_html
from tests.support.corpus import sample_papers

PAPERS = list(sample_papers().values())
AT = datetime(2026, 5, 5, 9, tzinfo=UTC)


def stored(follow_id: str, name: str, paper: int, *, backfill: bool) -> dict:
    """A match as the matcher's store holds it."""
    event = FollowMatched(
        user_id="u1", follow_id=follow_id, follow_kind="keyword", paper_id=PAPERS[paper].id,
        reasons=[MatchReason(field="title", term=name)], matched_at=AT, follow_name=name,
        paper_title=PAPERS[paper].title, backfill=backfill,
    )  # fmt: skip
    return {**event.model_dump(mode="python"), "announced": True}


def test_backfilled_matches_are_summarized_per_follow_not_listed() -> None:
    matches = [stored("f-acl", "ACL 2024", p, backfill=True) for p in range(8)]
    matches += [stored("f-rag", "RAG", 0, backfill=False), stored("f-rag", "RAG", 9, backfill=False)]
    digest = build_digest("u1", date(2026, 5, 5), matches, "https://papertrail.example/")
    listed = {paper["paper_id"] for topic in digest["topics"] for paper in topic["papers"]}
    assert listed == {PAPERS[0].id, PAPERS[9].id}  # paper 0 matched live too: listed once, as live
    assert digest["papers"] == 2
    assert digest["backfilled"] == [
        {
            "follow_id": "f-acl",
            "title": "ACL 2024",
            "papers": 7,
            "url": "https://papertrail.example/me/feed?follow_id=f-acl",
        }
    ]
    assert "- ACL 2024: 匹配了 7 篇更早的论文 / 7 earlier papers match — " in digest_text(digest)
    assert "7 earlier papers match" in render_html(digest)
    assert "你关注的内容有 2 篇新论文。 · 2 new papers for what you follow." in render_html(digest)
    assert PAPERS[3].title not in render_html(digest)
    assert (
        digest["subject"]
        == "研踪日报 2026-05-05:2 篇论文,另有 7 篇更早的论文 / PaperTrail digest 2026-05-05: 2 papers, 7 earlier"
    )


def test_one_paper_and_one_earlier_are_counted_in_the_singular() -> None:
    matches = [stored("f-acl", "ACL 2024", 3, backfill=True), stored("f-rag", "RAG", 9, backfill=False)]
    digest = build_digest("u1", date(2026, 5, 5), matches, "https://papertrail.example/")
    assert digest["subject"].endswith("PaperTrail digest 2026-05-05: 1 paper, 1 earlier")
    assert "ACL 2024: 匹配了 1 篇更早的论文 / 1 earlier paper matches" in digest_text(digest)
    assert "1 new paper for what you follow." in render_html(digest)
