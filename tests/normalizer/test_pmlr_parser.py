"""PMLR records (ICML 2025, v267) read into papers: published at the catalogue's ICML 2025, OpenReview and PMLR ids,
titles without BibTeX's braces, and a broken entry refused with its reason."""

from types import SimpleNamespace

import pytest

from papertrail.domain.venues.accepted import accepted_venues
from schemas.paper import Paper
from services.harvester.sources.pmlr_bib import split_volume
from services.normalizer.parsers.pmlr import parse_pmlr, split_authors
from services.normalizer.parsers.registry import parse_batch
from services.normalizer.records import UnparseableRecord
from tests.support.paths import SOURCES
from tests.support.sources import raw_record

BIB = (SOURCES / "pmlr/icml25-head.bib").read_text(encoding="utf-8")
RECORDS = {r.record_id: r for r in split_volume(BIB)[0]}


def test_every_recorded_entry_reads_as_a_published_icml_2025_paper() -> None:
    for record in RECORDS.values():
        parsed = parse_pmlr(record.content)
        assert parsed.record_id == record.record_id and parsed.ids.pmlr == record.record_id
        assert parsed.status == "published" and parsed.venue == "ICML 2025" and parsed.year == 2025
        assert parsed.title and parsed.abstract and parsed.authors and parsed.ids.openreview
        assert "{" not in parsed.title.replace("$n^{1.5}$", "")
        assert "<em>" not in parsed.abstract


def test_one_entry_read_field_by_field() -> None:
    parsed = parse_pmlr(RECORDS["v267/abella25"].content)
    assert parsed.title == "Consensus Is All You Get: The Role of Attention in Transformers"
    assert [a.name for a in parsed.authors] == ["Álvaro Rodríguez Abella", "João Pedro Silvestre", "Paulo Tabuada"]
    assert parsed.ids.openreview == "XROl6J4wjX"
    assert parsed.links == {
        "pmlr": "https://proceedings.mlr.press/v267/abella25.html",
        "code": "https://github.com/cyphylab/GPT-Consensus/tree/main",
        "openreview": "https://openreview.net/forum?id=XROl6J4wjX",
    }
    assert parsed.versions[0].source == "pmlr" and parsed.versions[0].date is not None
    assert parsed.versions[0].date.date().isoformat() == "2025-10-06"


def test_braces_go_formulas_stay_and_a_software_field_that_is_no_link_is_dropped() -> None:
    assert parse_pmlr(RECORDS["v267/abdulhai25"].content).title.startswith("LMRL Gym: Benchmarks")
    assert parse_pmlr(RECORDS["v267/abramovich25"].content).title.startswith("EnIGMA: Interactive Tools")
    assert "$n^{1.5}$" in parse_pmlr(RECORDS["v267/aamand25b"].content).title
    assert "code" not in parse_pmlr(RECORDS["v267/achituve25"].content).links  # software = {.}


def test_authors_split_at_and_outside_braces() -> None:
    assert split_authors("A. Mancisidor, Rogelio and Jenssen, Robert") == ["A. Mancisidor, Rogelio", "Jenssen, Robert"]
    assert split_authors("{Smith and Sons}, Ltd and Doe, Jane") == ["{Smith and Sons}, Ltd", "Doe, Jane"]


def test_the_published_record_is_the_catalogues_icml_2025() -> None:
    parsed = parse_pmlr(RECORDS["v267/abnar25"].content)
    paper = Paper(
        id="pmlr:v267/abnar25",
        ids=parsed.ids,
        title=parsed.title,
        venue=parsed.venue,
        year=parsed.year,
        status="published",
        first_seen="2026-01-01T00:00:00Z",  # type: ignore[arg-type]
        updated_at="2026-01-01T00:00:00Z",  # type: ignore[arg-type]
    )
    [venue] = accepted_venues(paper)
    assert (venue.venue_key, venue.year, venue.track, venue.ccf_rank, venue.evidence) == (
        "AI/icml",
        2025,
        "main",
        "A",
        "proceedings",
    )


def test_a_broken_entry_is_refused_with_the_reason_and_its_batch_goes_on() -> None:
    text = BIB.replace("Quantile Estimation},\n", "Quantile Estimation,\n", 1)
    records = {r.record_id: r for r in split_volume(text)[0]}
    with pytest.raises(UnparseableRecord, match="BibTeX entry not readable"):
        parse_pmlr(records["v267/aamand25a"].content)
    consumed = [
        SimpleNamespace(value=raw_record("pmlr", r.record_id, "pmlr_bibtex", r.content).model_dump_json().encode())
        for r in records.values()
    ]
    items, bad = parse_batch(consumed)
    assert len(items) == 20 and len(bad) == 1
    assert "v267/aamand25a" in bad[0][0].value.decode() and "not readable" in str(bad[0][1])


@pytest.mark.parametrize(
    "content",
    [
        "@InProceedings{x, title = {T}, author = {A, B}}",  # no volume entry
        "@Proceedings{P, volume = {267}, year = {2025}}\n\n@InProceedings{x, author = {A, B}}",  # no title
    ],
)
def test_a_record_missing_its_volume_or_title_is_refused(content: str) -> None:
    with pytest.raises(UnparseableRecord):
        parse_pmlr(content)
