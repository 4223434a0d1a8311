"""Institution follows through the real matcher over Kafka, MongoDB and Meilisearch: a held paper with an author at
the institution is backfilled, a new one matches with the reason "an author at Tsinghua University" (作者来自 清华大学
on the pages), and a new paper with no author there makes no match. The papers are genuine ACL 2024 ones whose
Anthology affiliations carry the ROR records a reader matched them to (tests/query/catalogue/test_institutions.py)."""

from datetime import UTC, datetime

import pytest
from pymongo import MongoClient

from papertrail.domain.follows.reasons import reason_text
from papertrail.runtime.wording import Translator
from schemas.events import Follow, FollowChanged
from tests.support.events import publish
from tests.support.institutions import acl_paper, enriched
from tests.support.matching import RUN, USER, MatchedReader, hold
from tests.support.servers import Servers
from tests.support.waiting import wait_until

EN = Translator("en")  # the language of the reasons in digests and feeds

pytestmark = pytest.mark.integration
NOW = datetime.now(UTC)
HELD = acl_paper("2024.acl-long.2", NOW)  # Tsinghua; Hebei University of Science and Technology
LIVE = acl_paper("2024.acl-long.469", NOW)  # Tsinghua, Baidu, Sun Yat-sen
ELSEWHERE = acl_paper("2024.acl-long.79", NOW, matched=False)  # its Tsinghua affiliation not matched: no match


async def test_an_institution_follow_backfills_and_matches_a_new_paper_with_an_author_there(
    matcher: dict, servers: Servers, mongo: MongoClient
) -> None:
    await hold(servers, matcher["env"], mongo, HELD)
    tsinghua = Follow(id=f"thu-{RUN}", user_id=USER, kind="institution", name="Tsinghua University",
                      institution="03cve4549", created_at=datetime.now(UTC))  # fmt: skip
    reader = MatchedReader(servers)
    await reader.consumer.start()
    try:
        at = tsinghua.created_at
        changed = FollowChanged(action="created", follow_id=tsinghua.id, user_id=USER, follow=tsinghua, changed_at=at)
        await publish(servers, "follows.changed.v1", changed, USER)
        await reader.until(lambda m: m.follow_id == tsinghua.id and m.paper_id == HELD.id and m.backfill, "backfill")
        # on the live paper's partition (its key), so it is handled before the live paper: once that one matched,
        # this one was decided, and made no match
        await publish(servers, "papers.enriched.v1", enriched(ELSEWHERE), LIVE.id)
        await publish(servers, "papers.enriched.v1", enriched(LIVE), LIVE.id)
        seen = await reader.until(lambda m: m.follow_id == tsinghua.id and m.paper_id == LIVE.id, "the live match")
    finally:
        await reader.consumer.stop()
    [backfilled] = [m for m in seen if m.follow_id == tsinghua.id and m.paper_id == HELD.id]
    assert [reason_text(r.model_dump(), EN) for r in backfilled.reasons] == ["an author at Tsinghua University"]
    [match] = [m for m in seen if m.follow_id == tsinghua.id and m.paper_id == LIVE.id]
    assert match.follow_kind == "institution" and not match.backfill
    assert [(r.field, r.term, r.term_zh) for r in match.reasons] == [("institution", "Tsinghua University", "清华大学")]
    assert not [m for m in seen if m.paper_id == ELSEWHERE.id]
    db = mongo[matcher["env"]["MONGODB_DATABASE"]]
    wait_until(
        lambda: db.matches.count_documents({"follow_id": tsinghua.id, "announced": True}) == 2,
        timeout=60,
        what="the two institution matches announced",
    )
