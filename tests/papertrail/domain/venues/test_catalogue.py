"""The venue catalogue built from the real ccfddl/ccf-deadlines files (tests/fixtures/sources/ccf-deadlines),
the shipped catalogue.json checked against them, and bad files named without losing the others."""

import shutil
from pathlib import Path

import pytest

from papertrail.domain.venues.catalogue import VenueIndex, load, venue_record
from papertrail_tools.cli import main as papertrail
from papertrail_tools.venue_catalogue import build

CCFDDL = Path(__file__).resolve().parents[3] / "fixtures/sources/ccf-deadlines"


@pytest.fixture(scope="module")
def index() -> VenueIndex:
    return VenueIndex(build(CCFDDL).catalogue.venues)


def test_every_venue_of_the_files_is_built_with_its_ranks_and_editions(index: VenueIndex) -> None:
    built = build(CCFDDL)
    assert built.errors == []
    assert len(built.catalogue.venues) == 352
    icml = index.resolve("ICML")
    assert icml is not None
    assert (icml.key, icml.field, icml.ccf_rank, icml.core_rank, icml.thcpl_rank, icml.dblp) == (
        "AI/icml",
        "AI",
        "A",
        "A*",
        "A",
        "icml",
    )
    edition = next(e for e in icml.editions if e.year == 2026)
    assert (edition.place, edition.dates, edition.timezone) == ("Seoul, Korea", "July 6-12, 2026", "UTC+0")
    assert edition.deadlines[0].deadline == "2026-01-29 11:59:59"
    assert edition.deadlines[0].abstract_deadline == "2026-01-24 11:59:59"


def test_acceptance_rates_join_their_editions(index: VenueIndex) -> None:
    cvpr = index.resolve("CVPR")
    assert cvpr is not None
    rates = {e.year: (e.submitted, e.accepted, e.acceptance_rate) for e in cvpr.editions}
    assert rates[2024] == (11532, 2719, 0.2358)
    assert rates[2025] == (13008, 2878, 0.2212)  # the file writes '0,2212484625'
    ubicomp = index.resolve("UbiComp")  # its figures' file says "UbiComp", the venue "UbiComp/ISWC"
    assert ubicomp is not None and any(e.acceptance_rate for e in ubicomp.editions)


def test_names_resolve_through_aliases_and_a_shared_acronym_resolves_to_none(index: VenueIndex) -> None:
    for name in ("Proc. ICML", "International Conference on Machine Learning", "icml"):
        assert index.resolve(name).key == "AI/icml"  # type: ignore[union-attr]
    assert index.resolve("NIPS").acronym == "NeurIPS"  # type: ignore[union-attr]
    assert index.resolve("CEC").acronym == "IEEE CEC"  # type: ignore[union-attr]
    assert index.resolve("IEEE") is None  # not an alias of IEEE/ACM CGO
    # FSE is Foundations of Software Engineering (SE) and Fast Software Encryption (SC): no guess
    assert {v.key for v in index.venues.values() if v.acronym == "FSE"} == {"SE/fse", "SC/fse"}
    assert index.resolve("FSE") is None and index.known("FSE")


def test_an_unknown_venue_still_gets_a_record_unranked(index: VenueIndex) -> None:
    record = venue_record(index, "ISBI ")
    assert (record.key, record.acronym, record.ccf_rank, record.field) == ("unknown/isbi", "ISBI", None, None)
    assert venue_record(index, "ICML").ccf_rank == "A"


def test_the_shipped_catalogue_is_what_the_files_build() -> None:
    assert load().venues == build(CCFDDL).catalogue.venues


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    root = tmp_path / "ccf-deadlines"
    shutil.copytree(CCFDDL, root)
    (root / "conference/AI/icml.yml").write_text("- title: ICML\n  rank: {ccf: A\n  confs: [\n", encoding="utf-8")
    (root / "conference/CG/mm.yml").write_text("title: MM\n", encoding="utf-8")  # a mapping, not a list
    return root


def test_a_malformed_file_is_named_and_every_other_venue_built(damaged: Path) -> None:
    built = build(damaged)
    assert len(built.errors) == 2
    assert built.errors[0].startswith("conference/AI/icml.yml: not readable YAML")
    assert built.errors[1] == "conference/CG/mm.yml: expected a list of venues, found dict"
    keys = {v.key for v in built.catalogue.venues}
    assert len(keys) == 350 and "AI/icml" not in keys and "AI/nips" in keys


def test_the_refresh_command_writes_the_good_files_and_fails_naming_the_bad(
    damaged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "catalogue.json"
    with pytest.raises(SystemExit) as stop:
        papertrail(["venues", "refresh", "--from", str(damaged), "--out", str(out)])
    assert stop.value.code == 1
    printed = capsys.readouterr().out
    assert "350 venues" in printed and "skipped conference/AI/icml.yml: not readable YAML" in printed
    assert len(load(out).venues) == 350


def test_a_folder_that_is_no_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no conference/ folder"):
        build(tmp_path)
