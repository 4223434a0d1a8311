"""papers.new.v1 gained venue claims the same way (left out of a paper without any), and the volume printing a
paper (`published_in`, left out of a paper no volume prints) and its authors' ROR institutions (`institutions`, left out
of an author without affiliations); harvest.status.v1 the announcement watcher's report (left out of every other
source's run).

follows.changed.v1 and follows.matched.v1 gained `similar` follows without breaking their consumers: an event of a
kind an older consumer knows is written exactly as before (the new fields are left out when unused), so the older
schema still accepts it; an event an older model cannot act on (a similar follow) fails on its `kind` alone, and an
older event reads with the new models."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from papertrail.domain.follows.rules import follow_matched
from papertrail.domain.venues.claims import claims_from_comment
from schemas.events import (
    AnnouncedCategory,
    AnnouncementReport,
    Follow,
    FollowChanged,
    FollowMatched,
    HarvestStatus,
    MatchReason,
    PaperNew,
    SeedPaper,
)
from schemas.paper import Paper, PaperIds
from schemas.summary import Summary
from services.normalizer.identity import merge
from services.normalizer.parsers.registry import parse_raw
from services.summarizer.policy import new_paper_event
from tests.support.fake_openai import corpus_event, corpus_lines
from tests.support.sources import acl_records, parsed_arxiv

BEFORE = Path(__file__).parent / "fixtures" / "schemas"
NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _older(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((BEFORE / f"{name}.before-similar.json").read_text()))


def _changed(**fields: Any) -> dict[str, Any]:
    follow = Follow(id="f1", user_id="u1", name="mine", created_at=NOW, **fields)
    event = FollowChanged(action="created", follow_id="f1", user_id="u1", follow=follow, changed_at=NOW)
    return json.loads(event.model_dump_json())  # as the query service publishes it


def _abstract_match(fields: dict[str, Any]) -> dict[str, Any]:
    """follows.matched.v1 of a follow of these fields matching on a term of the abstract, as the models write it."""
    match = follow_matched(
        Follow(id="f1", user_id="u1", name="mine", created_at=NOW, **fields),
        "arxiv:2605.00001",
        "A paper",
        [MatchReason(term="retrieval", field="abstract")],
        NOW,
    )
    return dict(json.loads(match.model_dump_json()))


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "keyword", "query": "retrieval AND LLM"},
        {"kind": "author", "author": "Yoshua Bengio", "orcid": "0000-0002-1825-0097"},
        {"kind": "topic", "topic_id": "llm-reasoning", "webhook_url": "https://example.org/hook"},
    ],
)
def test_an_older_consumer_reads_the_new_events_of_the_kinds_it_knows(fields: dict[str, Any]) -> None:
    event = _changed(**fields)
    assert not {"seeds", "description", "threshold"} & set(event["follow"])
    _older("follows.changed.v1").validate(event)
    _older("follows.matched.v1").validate(_abstract_match(fields))


def test_a_similar_follow_fails_an_older_consumer_on_its_kind_alone() -> None:
    event = _changed(
        kind="similar", seeds=[SeedPaper(paper_id="arxiv:2605.00001", title="A paper")], description="x", threshold=0.7
    )
    errors = list(_older("follows.changed.v1").iter_errors(event))
    # an older matcher parks it on follows.changed.v1.dlq, as it parks any follow it cannot compile
    assert errors and {tuple(e.absolute_path) for e in errors} <= {("follow",), ("follow", "kind")}
    assert any("similar" in e.message for e in errors)
    again = FollowChanged.model_validate(event)
    assert again.follow is not None and again.follow.seeds[0].title == "A paper" and again.follow.threshold == 0.7


def test_older_events_read_with_the_new_models() -> None:
    older = {
        "action": "created",
        "follow_id": "f1",
        "user_id": "u1",
        "changed_at": NOW.isoformat(),
        "follow": {
            "id": "f1",
            "user_id": "u1",
            "kind": "keyword",
            "name": "k",
            "query": "x",
            "created_at": "2026-01-01T00:00:00Z",
        },
    }
    _older("follows.changed.v1").validate(older)
    follow = FollowChanged.model_validate(older).follow
    assert follow is not None and follow.seeds == [] and follow.description is None and follow.threshold is None
    matched = {
        "user_id": "u1",
        "follow_id": "f1",
        "follow_kind": "keyword",
        "paper_id": "arxiv:2605.00001",
        "reasons": [{"term": "x", "field": "title"}],
        "matched_at": NOW.isoformat(),
    }
    reason = FollowMatched.model_validate(matched).reasons[0]
    assert reason.score is None and reason.seed_id is None


def _before_venues(topic: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((BEFORE / f"{topic}.before-venues.json").read_text()))


def _new_paper(comment: str | None) -> dict[str, Any]:
    paper = Paper(
        id="arxiv:2605.02572",
        ids=PaperIds(arxiv="2605.02572"),
        title="A paper",
        comments=comment,
        venue_claims=claims_from_comment(comment),
        first_seen=NOW,
        updated_at=NOW,
    )
    return json.loads(PaperNew(paper=paper, summary=Summary(status="pending"), first_seen=NOW).model_dump_json())


def test_a_paper_without_venue_claims_is_written_as_before_them() -> None:
    event = _new_paper("12 pages")  # no claim: the event is what the release before venue claims wrote
    assert "venue_claims" not in event["paper"]
    _before_venues("papers.new.v1").validate(event)


def test_a_paper_with_a_claim_carries_it_and_only_it_is_new() -> None:
    event = _new_paper("Accepted to ICML 2026")  # 2605.02572's comment
    assert event["paper"]["venue_claims"][0]["venue"] == "ICML"
    errors = list(_before_venues("papers.new.v1").iter_errors(event))
    # a consumer refusing unknown fields refuses it on that field alone: upgrade consumers before the normalizer
    assert errors and all("venue_claims" in e.message for e in errors)


def _before_published_in() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        json.loads((BEFORE / "papers.new.v1.before-published-in.json").read_text(encoding="utf-8"))
    )


def test_a_paper_no_volume_prints_is_written_as_before_published_in() -> None:
    event = _new_paper("12 pages")  # an arXiv preprint: no published record, no volume
    assert "published_in" not in event["paper"]
    _before_published_in().validate(event)


def test_an_acl_paper_carries_its_volume_and_only_it_is_new() -> None:
    [raw] = [r for r in acl_records() if r.record_id == "2024.acl-long.10"]
    change = merge(None, parse_raw(raw), content_hash=raw.sha256, now=NOW, ai_categories=frozenset(), next_seq=1)
    assert change is not None
    event = json.loads(
        PaperNew(paper=change.paper, summary=Summary(status="pending"), first_seen=NOW).model_dump_json()
    )
    assert event["paper"]["published_in"]["pages"] == "146-159"
    errors = list(_before_published_in().iter_errors(event))
    # a consumer refusing unknown fields refuses it on that field alone (and on the authors' institutions, added
    # since): upgrade consumers before the normalizer
    assert any("published_in" in e.message for e in errors)
    assert all("published_in" in e.message or "institutions" in e.message for e in errors)
    assert PaperNew.model_validate(event).paper.published_in == change.paper.published_in


def _before_institutions() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        json.loads((BEFORE / "papers.new.v1.before-institutions.json").read_text(encoding="utf-8"))
    )


def test_a_paper_without_affiliations_is_written_as_before_institutions() -> None:
    change = merge(None, parsed_arxiv(NOW), content_hash="h", now=NOW, ai_categories=frozenset(), next_seq=1)
    assert change is not None
    event = json.loads(
        PaperNew(paper=change.paper, summary=Summary(status="pending"), first_seen=NOW).model_dump_json()
    )
    assert [sorted(author) for author in event["paper"]["authors"]] == [
        ["affiliations", "key", "name", "orcid", "source_ids"]
    ] * 2
    _before_institutions().validate(event)


def test_matched_affiliations_fail_an_older_strict_consumer_on_institutions_alone() -> None:
    [raw] = [r for r in acl_records() if r.record_id == "2024.acl-long.6"]  # two of its four authors affiliated
    change = merge(None, parse_raw(raw), content_hash=raw.sha256, now=NOW, ai_categories=frozenset(), next_seq=1)
    assert change is not None
    event = json.loads(
        PaperNew(paper=change.paper, summary=Summary(status="pending"), first_seen=NOW).model_dump_json()
    )
    assert [author.get("institutions", [{}])[0].get("ror") for author in event["paper"]["authors"]] == [
        "05t8y2r12",
        None,
        None,
        "05t8y2r12",
    ]
    errors = list(_before_institutions().iter_errors(event))
    assert errors and all("institutions" in e.message for e in errors)
    # the older model reads the event with the field ignored, as a lenient consumer does; the new one keeps it
    lenient = json.loads(json.dumps(event))
    for author in lenient["paper"]["authors"]:
        author.pop("institutions", None)
    _before_institutions().validate(lenient)
    assert PaperNew.model_validate(event).paper.authors == change.paper.authors


def _before_venue_follows(topic: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((BEFORE / f"{topic}.before-venue-follows.json").read_text()))


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "keyword", "query": "retrieval AND LLM"},
        {"kind": "similar", "seeds": [SeedPaper(paper_id="arxiv:2605.00001", title="A paper")], "threshold": 0.7},
    ],
)
def test_a_consumer_from_before_venue_follows_reads_the_kinds_it_knows(fields: dict[str, Any]) -> None:
    event = _changed(**fields)
    assert not {k for k in event["follow"] if k.startswith("venue_")}
    _before_venue_follows("follows.changed.v1").validate(event)
    _before_venue_follows("follows.matched.v1").validate(_abstract_match(fields))


def test_a_venue_follow_and_its_match_fail_such_a_consumer_on_the_kind_and_its_own_fields_alone() -> None:
    event = _changed(kind="venue", venue_key="AI/icml", venue_year=2026, venue_track="main")
    errors = list(_before_venue_follows("follows.changed.v1").iter_errors(event))
    # an older matcher parks it on follows.changed.v1.dlq, as it parks a follow it cannot compile
    assert errors and all(tuple(e.absolute_path)[:1] == ("follow",) for e in errors)
    assert any("venue" in e.message for e in errors)
    again = FollowChanged.model_validate(event).follow
    assert again is not None and (again.venue_key, again.venue_year) == ("AI/icml", 2026)
    reason = MatchReason(term="ICML 2026", field="venue", evidence="comment", source_version="v3")
    match = follow_matched(again, "arxiv:2605.00411", "A paper", [reason], NOW)
    written = json.loads(match.model_dump_json())
    assert written["reasons"][0] == {
        "term": "ICML 2026",
        "field": "venue",
        "categories": [],
        "evidence": "comment",
        "source_version": "v3",
        "subtopic": None,
        "subtopic_id": None,
    }
    assert list(_before_venue_follows("follows.matched.v1").iter_errors(written))
    assert FollowMatched.model_validate(written).reasons[0].source_version == "v3"


def test_a_summary_naming_its_paper_version_leaves_papers_new_v1_as_before() -> None:
    event = corpus_event(corpus_lines()[0], current_version="v2")
    written = Summary(status="ok", model="m", prompt_version="1", tldr_zh="摘要", generated_at=NOW, paper_version="v2")
    public = new_paper_event(event, written)
    assert public is not None
    _before_venues("papers.new.v1").validate(json.loads(public.model_dump_json()))
    assert "paper_version" not in json.loads(Summary(status="pending").model_dump_json())  # absent when unknown


def test_a_version_record_changing_no_compared_field_is_written_as_before() -> None:
    line = corpus_lines()[0]
    event = corpus_event(line, "revised", journal_ref="EC 2026")  # a corpus paper's v2 naming its journal
    assert event.version.before is None
    assert "before" not in json.loads(event.model_dump_json())["version"]
    _before_venues("papers.normalized.v1").validate(json.loads(event.model_dump_json()))


def test_an_older_consumer_reads_the_runs_of_every_source_but_the_watcher() -> None:
    """harvest.status.v1 gained the announcement watcher's report: a run without one is written as before."""
    older = jsonschema.Draft202012Validator(
        json.loads((BEFORE / "harvest.status.v1.before-announcement.json").read_text())
    )
    run = HarvestStatus(source="arxiv", run_id="r1", state="finished", started_at=NOW, finished_at=NOW, records=3)
    event = json.loads(run.model_dump_json())
    assert "announcement" not in event
    older.validate(event)
    report = AnnouncementReport(
        day="2026-11-30", announced_at=NOW, categories=[AnnouncedCategory(category="cs", outcome="announced")]
    )
    watched = json.loads(run.model_copy(update={"source": "arxiv_feed", "announcement": report}).model_dump_json())
    errors = list(older.iter_errors(watched))
    assert len(errors) == 1 and "'announcement' was unexpected" in errors[0].message
    assert HarvestStatus.model_validate(watched).announcement == report


def _before_institution_follows(topic: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        json.loads((BEFORE / f"{topic}.before-institution-follows.json").read_text())
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "keyword", "query": "retrieval AND LLM"},
        {"kind": "venue", "venue_key": "AI/icml", "venue_year": 2026},
    ],
)
def test_a_consumer_from_before_institution_follows_reads_the_kinds_it_knows(fields: dict[str, Any]) -> None:
    event = _changed(**fields)
    assert "institution" not in event["follow"]
    _before_institution_follows("follows.changed.v1").validate(event)
    _before_institution_follows("follows.matched.v1").validate(_abstract_match(fields))


def test_an_institution_follow_and_its_match_fail_such_a_consumer_on_the_kind_and_its_own_fields_alone() -> None:
    event = _changed(kind="institution", institution="03cve4549")
    errors = list(_before_institution_follows("follows.changed.v1").iter_errors(event))
    assert errors and all(tuple(e.absolute_path)[:1] == ("follow",) for e in errors)
    again = FollowChanged.model_validate(event).follow
    assert again is not None and again.institution == "03cve4549"
    reason = MatchReason(term="Tsinghua University", term_zh="清华大学", field="institution")
    written = json.loads(follow_matched(again, "acl:2024.acl-long.469", "A paper", [reason], NOW).model_dump_json())
    assert written["reasons"][0] == {"term": "Tsinghua University", "term_zh": "清华大学", "field": "institution",
                                     "categories": [], "subtopic": None, "subtopic_id": None}  # fmt: skip
    assert list(_before_institution_follows("follows.matched.v1").iter_errors(written))
    assert FollowMatched.model_validate(written).reasons[0].term_zh == "清华大学"


def test_a_follows_push_channel_is_written_only_when_chosen_and_fails_an_older_consumer_on_it_alone() -> None:
    """A follow using its owner's default is written as before; one sent to a push channel names it by id only."""
    _before_venue_follows("follows.changed.v1").validate(_changed(kind="keyword", query="retrieval"))
    event = _changed(kind="keyword", query="retrieval", push_channel_id="c" * 32)
    assert event["follow"]["push_channel_id"] == "c" * 32
    errors = list(_before_venue_follows("follows.changed.v1").iter_errors(event))
    assert errors and all(tuple(e.absolute_path)[:1] == ("follow",) for e in errors)
    assert all("push_channel_id" in e.message for e in errors)
    again = FollowChanged.model_validate(event).follow
    assert again is not None and again.push_channel_id == "c" * 32
