"""The ROR catalogue built from genuine ror-records files (tests/fixtures/ror, see its ORIGIN.md): the latest release
of a record wins, both record schemas read, withdrawn records left out, a bad file named; and the shipped file."""

import gzip
import shutil
import zipfile
from pathlib import Path

import pytest

from papertrail.domain.institutions.catalogue import CATALOGUE_PATH, RorCatalogue, read_catalogue
from papertrail_tools.cli import main as papertrail
from papertrail_tools.ror_catalogue import build, refresh

RECORDS = Path(__file__).resolve().parents[3] / "fixtures/ror/ror-records"


def test_the_latest_release_of_each_record_wins_in_its_newer_schema() -> None:
    built = build(RECORDS)
    assert built.errors == []
    tsinghua = built.catalogue.institutions["03cve4549"]
    # v2.3's record (v1.41 and the v1/ copies are older or the older schema)
    assert tsinghua.name == "Tsinghua University"
    assert tsinghua.name_zh == "清华大学"
    assert tsinghua.acronyms == ("THU",)
    assert tsinghua.country == "CN"
    assert "tsinghua.edu.cn" in tsinghua.domains
    assert "education" in tsinghua.types
    assert len(tsinghua.children) == 17


def test_schema_v1_records_are_read_with_their_parent_and_domain() -> None:
    ict = build(RECORDS).catalogue.institutions["0090r4d87"]  # v1.41 holds it in schema v1 only
    assert ict.name == "Institute of Computing Technology"
    assert ict.parents == ("034t30j35",)
    assert ict.acronyms == ("ICT",)
    assert ict.country == "CN"
    assert ict.domains == ("ict.cas.cn",)  # its website, english.ict.cas.cn
    assert ict.name_zh == "中国科学院计算技术研究所"


def test_withdrawn_records_are_left_out_and_inactive_ones_kept() -> None:
    built = build(RECORDS)
    assert "04cf69335" not in built.catalogue.institutions
    assert built.dropped == {"withdrawn": 1}
    osaka = built.catalogue.institutions["02cf1je33"]
    assert osaka.name == "Osaka Prefecture University" and osaka.active is False
    assert len(built.catalogue.institutions) == 11
    assert "v2.8" in built.catalogue.origin and "CC0" in built.catalogue.license


def test_a_zip_of_the_releases_builds_the_same_catalogue(tmp_path: Path) -> None:
    archive = tmp_path / "ror-records.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in RECORDS.rglob("*.json"):
            out.write(path, f"ror-records-main/{path.relative_to(RECORDS).as_posix()}")
    assert build(archive).catalogue.institutions == build(RECORDS).catalogue.institutions


def test_refresh_writes_a_catalogue_that_reads_back_and_names_a_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "ror-records"
    shutil.copytree(RECORDS, source)
    (source / "v2.8" / "0bad00000.json").write_text("{not json", encoding="utf-8")
    out = tmp_path / "catalogue.json.gz"
    assert refresh(source, out) == 1
    assert "skipped v2.8/0bad00000.json: not JSON" in capsys.readouterr().out
    assert read_catalogue(out).institutions == build(RECORDS).catalogue.institutions


def test_the_papertrail_command_refreshes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "catalogue.json.gz"
    with pytest.raises(SystemExit) as exit_:
        papertrail(["institutions", "refresh", "--from", str(RECORDS), "--out", str(out)])
    assert (exit_.value.code, out.is_file()) == (0, True)
    assert "11 institutions, 1 inactive" in capsys.readouterr().out


def test_the_shipped_catalogue_holds_the_registry_with_its_origin() -> None:
    catalogue = RorCatalogue.from_json(gzip.decompress(CATALOGUE_PATH.read_bytes()))
    assert "ror-community/ror-records" in catalogue.origin and "CC0" in catalogue.license
    assert len(catalogue.institutions) > 40_000
    assert catalogue.institutions["03cve4549"].name_zh == "清华大学"
    assert catalogue.institutions["012tb2g32"].name_zh == "天津大学"
