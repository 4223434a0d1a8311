"""Venue follows through the real matcher over Kafka, MongoDB and Meilisearch: a held accepted paper is backfilled,
a live paper's submission makes no match and its acceptance in a later version makes one, with its reason."""

from datetime import UTC, datetime

import pytest
from pymongo import MongoClient

from papertrail.domain.follows.reasons import reason_text
from papertrail.domain.venues.claims import venue_claims
from papertrail.runtime.wording import Translator
from schemas.events import Follow, FollowChanged
from schemas.paper import Paper
from tests.support.events import enriched, publish
from tests.support.matching import PAPERS, RUN, USER, MatchedReader, hold
from tests.support.servers import Servers
from tests.support.waiting import wait_until

EN = Translator("en")  # the language of the reasons in digests and feeds

pytestmark = pytest.mark.integration

# genuine comments of the May 2026 corpus (/work/shared/corpus/arxiv-daily-2026-05)
SUBMITTED = "8 pages, 4 figures, 5 tables. Submitted to ICML 2026"
ACCEPTED = "Accepted at ICML 2026"  # 2605.00411


def with_comment(paper: Paper, comment: str, version: str) -> Paper:
    return paper.model_copy(
        update={"comments": comment, "venue_claims": venue_claims(comment, None, []), "current_version": version}
    )


async def test_a_venue_follow_backfills_and_matches_an_acceptance_once_it_arrives(
    matcher: dict, servers: Servers, mongo: MongoClient
) -> None:
    held = with_comment(PAPERS["arxiv:2605.00224"], ACCEPTED, "v2")
    await hold(servers, matcher["env"], mongo, held)
    icml = Follow(
        id=f"icml-{RUN}",
        user_id=USER,
        kind="venue",
        name="ICML 2026",
        venue_key="AI/icml",
        venue_year=2026,
        created_at=datetime.now(UTC),
    )
    reader = MatchedReader(servers)
    await reader.consumer.start()
    try:
        at = icml.created_at
        changed = FollowChanged(action="created", follow_id=icml.id, user_id=USER, follow=icml, changed_at=at)
        await publish(servers, "follows.changed.v1", changed, USER)
        await reader.until(lambda m: m.follow_id == icml.id and m.paper_id == held.id and m.backfill, "the backfill")
        live = PAPERS["arxiv:2605.00631"]
        await publish(servers, "papers.enriched.v1", enriched(with_comment(live, SUBMITTED, "v1")), live.id)
        # the acceptance of v3 comes after the submission of v1 on the paper's partition: once it has matched, the
        # submission was handled and matched nothing
        await publish(servers, "papers.enriched.v1", enriched(with_comment(live, ACCEPTED, "v3")), live.id)
        seen = await reader.until(lambda m: m.follow_id == icml.id and m.paper_id == live.id, "the live match")
    finally:
        await reader.consumer.stop()
    [backfilled] = [m for m in seen if m.follow_id == icml.id and m.paper_id == held.id]
    assert [reason_text(r.model_dump(), EN) for r in backfilled.reasons] == ["accepted at ICML 2026 (comment of v2)"]
    [match] = [m for m in seen if m.follow_id == icml.id and m.paper_id == live.id]
    assert match.follow_kind == "venue" and not match.backfill
    assert [reason_text(r.model_dump(), EN) for r in match.reasons] == ["accepted at ICML 2026 (comment of v3)"]
    db = mongo[matcher["env"]["MONGODB_DATABASE"]]
    wait_until(
        lambda: db.matches.count_documents({"follow_id": icml.id, "announced": True}) == 2,
        timeout=60,
        what="the two venue matches announced",
    )
    assert db.matches.count_documents({"follow_id": icml.id, "paper_id": live.id}) == 1
