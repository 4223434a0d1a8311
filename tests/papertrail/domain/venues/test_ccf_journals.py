"""The CCF list's journals, read from a copy of CCFrank4dblp's data/dataGen.js (MIT; tests/fixtures/sources/
ccfrank4dblp/, its commit in tests/fixtures/sources/SOURCES.md), and the shipped file built from it."""

from pathlib import Path

import pytest

from papertrail.domain.venues.catalogue import JOURNALS_PATH, VenueIndex, default_index, load
from papertrail.domain.venues.ccf_list import RankListError, journals_from_rank_list

SOURCE = Path(__file__).parents[3] / "fixtures/sources/ccfrank4dblp/dataGen.js"


def test_the_journals_are_read_with_their_ranks_and_fields_tied_by_dblp_keys() -> None:
    journals = {j.dblp: j for j in journals_from_rank_list(SOURCE.read_text(encoding="utf-8"), load().venues)}
    pami, jsac, tcsvt = journals["pami"], journals["jsac"], journals["tcsv"]
    assert (pami.acronym, pami.type, pami.ccf_rank, pami.field, pami.key) == (
        "TPAMI",
        "journal",
        "A",
        "AI",
        "AI/j-pami",
    )
    assert {"IEEE TPAMI", "T-PAMI"} <= set(pami.aliases)
    assert (jsac.ccf_rank, jsac.field) == ("A", "NW")  # its block holds the networking conferences
    assert (tcsvt.ccf_rank, tcsvt.field) == ("B", "CG")
    assert journals["pc"].field == "DS"  # PARCO, a conference listed among the journals, does not end the block


def test_the_shipped_journals_are_the_built_ones_and_say_where_they_come_from() -> None:
    shipped = load(JOURNALS_PATH)
    assert "CCFrank4dblp" in shipped.origin and shipped.license.startswith("MIT")
    built = journals_from_rank_list(SOURCE.read_text(encoding="utf-8"), load().venues)
    assert shipped.venues == built


@pytest.mark.parametrize(
    "name",
    [
        "TPAMI",
        "IEEE TPAMI",
        "IEEE T-PAMI",
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        "IEEE Trans. Pattern Anal. Mach. Intell.",
    ],
)
def test_a_journal_is_found_by_any_of_its_names(name: str) -> None:
    venue = default_index().resolve(name)
    assert venue is not None and venue.key == "AI/j-pami"


def test_a_name_a_conference_shares_with_a_journal_stays_the_conferences() -> None:
    www = default_index().resolve("WWW")
    assert www is not None and www.type == "conference"
    assert VenueIndex(load().venues).resolve("WWW") == www


def test_a_file_without_rank_rows_is_refused_with_the_reason() -> None:
    with pytest.raises(RankListError, match="no tab-separated rank rows"):
        journals_from_rank_list("const ccfRankList = {};", load().venues)
