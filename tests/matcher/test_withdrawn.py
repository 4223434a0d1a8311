"""A withdrawn paper keeps no match, even one written after its withdrawal from an older view of it: a follow's backfill
that read the index before the paper left it (seen in a loaded fresh-clone run of test_front_matter_and_picks.py: the
front matter's match came back after the matcher had deleted it). Over a real MongoDB-protocol server."""

from datetime import UTC, datetime

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.follows.rules import follow_matched
from schemas.events import Follow, FollowMatched, MatchReason
from services.matcher.store import MatcherRecords
from tests.support.corpus import sample_papers

pytestmark = pytest.mark.integration


def _follow(name: str) -> Follow:
    return Follow.model_validate(
        {
            "id": f"f-{name}",
            "user_id": "ana",
            "kind": "keyword",
            "name": name,
            "query": name,
            "fields": "title",
            "created_at": datetime(2026, 5, 1, tzinfo=UTC),
        }
    )


async def test_a_match_written_after_the_withdrawal_is_dropped_and_never_announced(scratch_db: AsyncDatabase) -> None:
    store = MatcherRecords.of(scratch_db)
    await store.ensure_indexes()
    withdrawn, kept = list(sample_papers().values())[:2]
    at = datetime(2026, 5, 5, tzinfo=UTC)
    reasons = [MatchReason(term="model", field="title")]

    def match(paper_id: str, title: str, follow: Follow) -> FollowMatched:
        return follow_matched(follow, paper_id, title, reasons, at, backfill=True)

    live = match(withdrawn.id, withdrawn.title, _follow("live"))
    assert await store.matches.record_many([live]) == [live]
    assert await store.matches.forget_paper(withdrawn.id) == 1

    late = [match(withdrawn.id, withdrawn.title, _follow("backfilled")), match(kept.id, kept.title, _follow("live"))]
    announced = await store.matches.record_many(late)
    assert [m.paper_id for m in announced] == [kept.id]
    assert await store.matches.record(match(withdrawn.id, withdrawn.title, _follow("one"))) is None
    assert await scratch_db.matches.count_documents({"paper_id": withdrawn.id}) == 0
    assert await scratch_db.matches.count_documents({"paper_id": kept.id}) == 1
