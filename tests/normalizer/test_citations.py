"""A citation count from Semantic Scholar (its genuine paper object, tests/fixtures/harvester/semantic_scholar) put on
the paper its record id names: an update that changes nothing else, starts no paper, and is carried by the paper's
events additively (left out while a paper has none)."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import REGISTRY

from schemas.events import PaperNormalized, RawRecord
from schemas.paper import PaperIds
from services.normalizer.identity import merge, paper_fingerprint
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.plan import plan_batch
from services.normalizer.records import Incoming, ParsedRecord, StoredPaper, UnparseableRecord
from tests.support.paths import FIXTURES
from tests.support.sources import HARVESTED_AT, raw_record

NOW = datetime(2026, 12, 7, tzinfo=UTC)
TURING = json.loads((FIXTURES / "harvester/semantic_scholar/batch_turing.json").read_text())[0]
DOI = "10.1093/mind/lix.236.433"


def _raw(record_id: str, paper: object) -> RawRecord:
    return raw_record("semantic_scholar", record_id, "s2_paper_json", json.dumps(paper))


def _held() -> StoredPaper:
    record = ParsedRecord(
        source="dblp",
        record_id="journals/x/Turing50",
        ids=PaperIds(dois=[DOI], dblp="journals/x/Turing50"),
        title="Computing Machinery and Intelligence",
        status="published",
        venue="Mind",
        year=1950,
    )
    change = merge(None, record, content_hash="dblp", now=NOW, ai_categories=frozenset(), next_seq=1)
    assert change is not None
    return StoredPaper(change.paper, rev=1, version_count=1, fingerprints=["fp"], last_versions=[])


def _set_aside(reason: str) -> float:
    return REGISTRY.get_sample_value("papertrail_normalizer_records_set_aside_total", {"reason": reason}) or 0.0


def test_the_genuine_paper_object_reads_as_its_count_for_the_id_asked() -> None:
    record = parse_raw(_raw(f"DOI:{DOI.upper()}", TURING))
    assert record.ids == PaperIds(dois=[DOI])
    assert record.citations is not None
    assert (record.citations.count, record.citations.source, record.citations.as_of) == (
        TURING["citationCount"],
        "semantic_scholar",
        HARVESTED_AT,
    )
    assert parse_raw(_raw("ARXIV:2401.12345", TURING)).ids.arxiv == "2401.12345"
    assert parse_raw(_raw("ACL:2024.acl-long.1", TURING)).ids.acl == "2024.acl-long.1"


@pytest.mark.parametrize(
    ("record_id", "content", "reason"),
    [
        (f"DOI:{DOI}", '{"paperId": ', "not JSON"),
        (
            f"DOI:{DOI}",
            json.dumps({k: v for k, v in TURING.items() if k != "citationCount"}),
            "without a citation count",
        ),
        (f"DOI:{DOI}", json.dumps({**TURING, "citationCount": "many"}), "without a citation count"),
        ("CorpusId:14636783", json.dumps(TURING), "not asked by"),
        ("DOI:", json.dumps(TURING), "names no paper"),
    ],
)
def test_a_record_that_is_no_count_is_refused_with_its_reason(record_id: str, content: str, reason: str) -> None:
    with pytest.raises(UnparseableRecord, match=reason):
        parse_raw(raw_record("semantic_scholar", record_id, "s2_paper_json", content))


def test_a_count_updates_the_paper_it_names_and_nothing_else() -> None:
    raw = _raw(f"DOI:{DOI}", TURING)
    held = _held()
    plan = plan_batch([Incoming(raw, parse_raw(raw))], [held], now=NOW, ai_categories=frozenset())
    (draft,) = plan.drafts
    assert draft.paper is not None and draft.paper.citations is not None
    assert draft.paper.citations.count == TURING["citationCount"]
    assert draft.paper.model_dump(exclude={"citations", "updated_at"}) == held.paper.model_dump(
        exclude={"citations", "updated_at"}
    )
    (event,) = draft.events
    assert event.kind == "updated" and event.version.changed_fields == ["citations"]
    assert draft.fingerprints == ["fp", paper_fingerprint(held.paper)]  # none of the record's empty title
    # carried by the event additively: the field is there with a count, absent without one
    assert json.loads(event.model_dump_json())["paper"]["citations"]["count"] == TURING["citationCount"]
    bare = PaperNormalized(kind="updated", paper=held.paper, version=event.version)
    assert "citations" not in json.loads(bare.model_dump_json())["paper"]


def test_a_count_read_before_the_one_held_changes_nothing() -> None:
    raw = _raw(f"DOI:{DOI}", TURING)
    counted = plan_batch([Incoming(raw, parse_raw(raw))], [_held()], now=NOW, ai_categories=frozenset()).drafts[0]
    assert counted.paper is not None
    held = StoredPaper(counted.paper, rev=2, version_count=2, fingerprints=["fp"], last_versions=[])
    older = parse_raw(_raw(f"DOI:{DOI}", {**TURING, "citationCount": 1}))
    assert older.citations is not None
    older.citations = older.citations.model_copy(update={"as_of": HARVESTED_AT - timedelta(days=1)})
    assert merge(held.paper, older, content_hash="x", now=NOW, ai_categories=frozenset(), next_seq=3) is None


def test_a_count_before_its_paper_starts_no_paper_and_is_counted() -> None:
    raw = _raw("ARXIV:2612.99999", TURING)
    before = _set_aside("citations_before_paper")
    plan = plan_batch([Incoming(raw, parse_raw(raw))], [_held()], now=NOW, ai_categories=frozenset())
    assert plan.drafts == [] and _set_aside("citations_before_paper") == before + 1
