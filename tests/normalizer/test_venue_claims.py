"""The paper's venue claims as the normalizer merges its records: read from the merged comments, journal reference
and DOIs; the newest version's comment wins; a record that changes them says so in its version record."""

from datetime import UTC, datetime, timedelta

from schemas.paper import SourceVersion
from services.normalizer.identity import merge
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import ParsedRecord
from tests.support.sources import ACL_RED_FM, acl_records, parsed_arxiv, red_fm_preprint, with_anthology_doi

NOW = datetime(2026, 5, 20, tzinfo=UTC)
AI = frozenset({"cs.LG"})
# real comments of the May 2026 corpus (tests/fixtures/corpus): 2605.03969's and 2605.02572's
SUBMITTED = "8 pages, 4 figures, 5 tables. Submitted to ICML 2026"
ACCEPTED = "Accepted to ICML 2026"


def _version(label: str, days_ago: int, comment: str | None) -> ParsedRecord:
    versions = [
        SourceVersion(source="arxiv", label=f"v{n}", date=NOW - timedelta(days=10 - n))
        for n in range(1, int(label[1:]) + 1)
    ]
    versions[-1] = SourceVersion(source="arxiv", label=label, date=NOW - timedelta(days=days_ago))
    return parsed_arxiv(NOW, categories=["cs.LG"], comments=comment, versions=versions)


def test_a_later_version_accepted_replaces_the_submission_and_its_record_says_when() -> None:
    v1 = merge(None, _version("v1", 9, SUBMITTED), content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert v1 is not None
    assert [(c.venue, c.status) for c in v1.paper.venue_claims] == [("ICML", "submitted")]
    assert v1.version.venue_claims == v1.paper.venue_claims and "venue_claims" in v1.version.changed_fields

    v3 = merge(v1.paper, _version("v3", 1, ACCEPTED), content_hash="h3", now=NOW, ai_categories=AI, next_seq=2)
    assert v3 is not None
    assert [(c.venue, c.year, c.status, c.ccf_rank) for c in v3.paper.venue_claims] == [("ICML", 2026, "accepted", "A")]
    assert "venue_claims" in v3.version.changed_fields
    assert v3.version.venue_claims is not None and v3.version.venue_claims[0].status == "accepted"


def test_an_older_version_arriving_late_leaves_the_newest_claim() -> None:
    v3 = merge(None, _version("v3", 1, ACCEPTED), content_hash="h3", now=NOW, ai_categories=AI, next_seq=1)
    assert v3 is not None
    v1 = merge(v3.paper, _version("v1", 9, SUBMITTED), content_hash="h1", now=NOW, ai_categories=AI, next_seq=2)
    assert v1 is None or [c.status for c in v1.paper.venue_claims] == ["accepted"]


def test_a_record_that_does_not_change_the_claims_records_none() -> None:
    v1 = merge(None, _version("v1", 9, None), content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert v1 is not None and v1.paper.venue_claims == [] and v1.version.venue_claims is None
    assert "venue_claims" not in v1.paper.model_dump(mode="json")  # left out: events as before the field


def test_the_preprint_and_its_anthology_record_make_one_acl_claim() -> None:
    preprint = parse_raw(red_fm_preprint())  # comment "ACL 2023"
    first = merge(None, preprint, content_hash="p", now=NOW, ai_categories=AI, next_seq=1)
    assert first is not None
    assert [(c.venue, c.year, c.status, c.source) for c in first.paper.venue_claims] == [
        ("ACL", 2023, "accepted", "comment")
    ]
    (acl,) = [r for r in acl_records(ACL_RED_FM) if r.record_id == "2023.acl-long.237"]
    published = merge(
        first.paper, parse_raw(with_anthology_doi(acl)), content_hash="a", now=NOW, ai_categories=AI, next_seq=2
    )
    assert published is not None
    assert [(c.venue, c.year, c.track, c.source) for c in published.paper.venue_claims] == [
        ("ACL", 2023, "main", "doi")
    ]
