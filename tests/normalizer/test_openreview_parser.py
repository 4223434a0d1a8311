"""OpenReview notes read into papers: the recorded accepted note of the NeurIPS 2025 RegML workshop published at the
catalogue's NeurIPS 2025, workshop track, as a poster; a note that is no acceptance, has no title or is no JSON refused
with its reason, the others read."""

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from papertrail.domain.venues.accepted import accepted_venues
from services.harvester.sources.openreview_notes import split_notes
from services.normalizer.identity import merge
from services.normalizer.parsers.openreview import parse_openreview, venue_name
from services.normalizer.parsers.registry import parse_batch
from tests.support.paths import SOURCES
from tests.support.sources import raw_record

ANSWER = (SOURCES / "openreview/pdoom-live_ai_risk_note.json").read_bytes()
[RECORD], _left_out, _held = split_notes(ANSWER, "NeurIPS.cc/2025/Workshop/RegML")


def _note_with(change: dict[str, Any]) -> str:
    """The recorded note with some of its content fields replaced (a value of None removes the field)."""
    note = json.loads(RECORD.content)
    for name, value in change.items():
        if value is None:
            note["content"].pop(name)
        else:
            note["content"][name] = {"value": value}
    return json.dumps(note)


def test_the_recorded_note_read_field_by_field() -> None:
    parsed = parse_openreview(RECORD.content)
    assert parsed.source == "openreview" and parsed.record_id == "4aMedv0ONH"
    assert parsed.ids.openreview == "4aMedv0ONH" and parsed.ids.arxiv is None
    assert parsed.title == "Emergency Response Measures for Catastrophic Risk"
    assert parsed.abstract.startswith("Chinese authorities are extending the country’s four-phase emergency")
    assert [a.name for a in parsed.authors] == [
        "James Zhang",
        "Miles Kodama",
        "Zongze Wu",
        "Michael Chen",
        "Yue Zhu",
        "Geng Hong",
    ]
    assert parsed.authors[0].source_ids == {"openreview": "~James_Zhang2"}
    assert parsed.links == {"openreview": "https://openreview.net/forum?id=4aMedv0ONH"}
    [version] = parsed.versions
    assert version.source == "openreview" and version.date == datetime(2025, 9, 23, 5, 41, 33, 305000, tzinfo=UTC)
    assert parsed.status == "published" and parsed.year == 2025
    assert parsed.venue == "NeurIPS 2025 Workshop on RegML (Poster)"


def test_the_decision_is_the_catalogues_neurips_2025_workshop_as_a_poster() -> None:
    change = merge(
        None,
        parse_openreview(RECORD.content),
        content_hash=RECORD.sha256,
        now=datetime(2026, 12, 7, tzinfo=UTC),
        ai_categories=frozenset({"cs.AI"}),
        next_seq=1,
    )
    assert change is not None and change.paper.id == "openreview:4aMedv0ONH"
    [venue] = accepted_venues(change.paper)
    assert (venue.venue, venue.venue_key, venue.year, venue.track) == ("NeurIPS", "AI/nips", 2025, "workshop")
    assert (venue.ccf_rank, venue.evidence) == ("A", "proceedings")
    assert change.paper.venue_claims == []  # the note's words claim nothing: the decision is the published record


@pytest.mark.parametrize(
    ("venueid", "decision", "named"),
    [
        ("ICLR.cc/2025/Conference", "ICLR 2025 Oral", ("ICLR 2025 (Oral)", 2025)),
        ("ICLR.cc/2025/Conference", "ICLR 2025 Spotlight", ("ICLR 2025 (Spotlight)", 2025)),
        ("ICML.cc/2025/Conference", "ICML 2025 spotlightposter", ("ICML 2025 (Spotlight)", 2025)),
        ("colmweb.org/COLM/2024/Conference", "COLM 2024", ("COLM 2024", 2024)),
        ("NeurIPS.cc/2024/Datasets_and_Benchmarks_Track", "", ("NeurIPS 2024 Datasets and Benchmarks Track", 2024)),
        ("TMLR", "", ("TMLR", None)),
    ],
)
def test_venue_ids_name_the_catalogues_venue_year_track_and_presentation(
    venueid: str, decision: str, named: tuple[str, int | None]
) -> None:
    assert venue_name(venueid, decision) == named


def test_a_note_that_is_no_acceptance_no_titled_paper_or_no_json_is_refused_and_the_others_read() -> None:
    records = [
        raw_record("openreview", "accepted", "openreview_note", RECORD.content),
        raw_record(
            "openreview",
            "rejected",
            "openreview_note",
            _note_with({"venueid": "NeurIPS.cc/2025/Workshop/RegML/Rejected_Submission"}),
        ),
        raw_record("openreview", "untitled", "openreview_note", _note_with({"title": None})),
        raw_record("openreview", "cut", "openreview_note", RECORD.content[:200]),
    ]
    items, bad = parse_batch([SimpleNamespace(value=r.model_dump_json().encode()) for r in records])
    assert [item.raw.record_id for item in items] == ["accepted"]
    reasons = [str(error) for _, error in bad]
    assert reasons == [
        "4aMedv0ONH: venueid 'NeurIPS.cc/2025/Workshop/RegML/Rejected_Submission' is no acceptance",
        "4aMedv0ONH: no title",
        reasons[2],
    ]
    assert reasons[2].startswith("not JSON: ")
