"""The reasons and follows.matched.v1 events the matcher builds unchecked are the checked models' to the byte, for
rule follows and similar follows over a batch of real papers. No I/O."""

from datetime import UTC, datetime

import numpy as np
import pytest
from pydantic import BaseModel
from pymongo import AsyncMongoClient

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.follows.rules import FollowIndex, follow_matched, topics_by_id
from papertrail.embedding.embedder import l2_normalised
from papertrail.embedding.similarity import similar_match_columns
from schemas.events import Follow, FollowMatched, MatchReason, SeedPaper
from schemas.unchecked import unchecked
from services.matcher.matching.similar import SimilarFollows
from services.matcher.store import MatcherRecords
from tests.support.corpus import sample_papers

NOW = datetime(2026, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)


def assert_as_checked(built: BaseModel) -> None:
    """The model checked from the same values: equal, the same JSON bytes, the same Python dump."""
    checked = type(built).model_validate(built.__dict__)
    assert built == checked
    assert built.model_dump_json() == checked.model_dump_json()
    assert built.model_dump(mode="python") == checked.model_dump(mode="python")
    assert built.model_fields_set == checked.model_fields_set


def test_rule_follow_events_are_the_checked_ones() -> None:
    topics = topics_by_id(load_catalogue())
    papers = list(sample_papers().values())
    index = FollowIndex(topics=topics)
    follows = [
        Follow(id=f"t-{topic}", user_id="u1", kind="topic", name=topic, topic_id=topic, created_at=NOW)
        for topic in sorted(topics)
    ]
    follows += [
        Follow(id="a", user_id="u2", kind="author", name="an author", author=papers[0].authors[0].name, created_at=NOW),
        Follow(id="k", user_id="u2", kind="keyword", name="LLM", query="language AND model", created_at=NOW),
        Follow(id="c", user_id="u2", kind="keyword", name="cs", query="learning", categories=["cs.LG"], created_at=NOW),
    ]
    for follow in follows:
        index.upsert(follow)
    events = [
        follow_matched(follow, paper.id, paper.title, reasons, NOW, backfill=number % 2 == 1)
        for number, paper in enumerate(papers)
        for follow, reasons in index.match(paper)
    ]
    assert (
        len({e.follow_id for e in events}) > 10
        and len(events) > 30
        and any(e.reasons[0].field == "authors" for e in events)
    )
    for event in events:
        assert_as_checked(event)


def test_similar_follow_reasons_and_events_are_the_checked_ones() -> None:
    papers = list(sample_papers().values())
    rng = np.random.default_rng(3)
    vectors = dict(zip((p.id for p in papers), l2_normalised(rng.normal(size=(len(papers), 16))), strict=True))
    # the store and the model are never reached: the seeds' and descriptions' vectors are given as `refresh` reads them
    nowhere = MatcherRecords.of(AsyncMongoClient("mongodb://127.0.0.1:9")["unused"])
    similar = SimilarFollows(nowhere, "m", 16, lambda: None)  # type: ignore[arg-type, return-value]
    for i in range(0, len(papers) - 1, 2):
        similar.upsert(
            Follow(
                id=f"s{i}",
                user_id="u3",
                kind="similar",
                name=f"like {papers[i].id}",
                created_at=NOW,
                seeds=[SeedPaper(paper_id=p.id, title=p.title) for p in papers[i : i + 2]],
                description="a reader's words" if i % 4 == 0 else None,
                threshold=0.0,
            )
        )
        if i % 4 == 0:
            similar.descriptions[f"s{i}"] = ("a reader's words", vectors[papers[-1 - i].id])
    similar.seed_vectors = vectors
    titles = {p.id: p.title for p in papers}
    columns = similar_match_columns(similar.matrix(), list(vectors), np.vstack(list(vectors.values())))
    events = similar.events(columns, titles, NOW)
    reasons = [e.reasons[0] for e in events]
    assert any(r.seed_id is None for r in reasons) and any(r.seed_id for r in reasons) and len(events) > 30
    assert all(e.paper_id not in similar.seed_titles[e.follow_id] for e in events)
    for event in events:
        assert_as_checked(event.reasons[0])
        assert_as_checked(event)


def test_a_model_is_built_unchecked_only_with_every_field() -> None:
    with pytest.raises(TypeError, match="missing or unknown"):
        unchecked(MatchReason, {"term": "t", "field": "similar"})
    with pytest.raises(TypeError, match="missing or unknown"):
        unchecked(FollowMatched, {name: None for name in [*FollowMatched.model_fields, "extra"]})
