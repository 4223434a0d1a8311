"""Both recorded Hugging Face daily papers lists (2024 and 2025 layouts) split into one record per item."""

import json
from pathlib import Path

import pytest

from services.harvester.sources.daily_papers import MalformedDailyList, split_daily_list
from tests.support.paths import SOURCES

HF_FILES = sorted((SOURCES / "hf_daily_papers").glob("daily_papers_*.json"))


def test_both_layouts_are_recorded() -> None:
    assert [p.name for p in HF_FILES] == ["daily_papers_2024-05-29.json", "daily_papers_2025-09-16.json"]
    layouts = [set(json.loads(p.read_text(encoding="utf-8"))[0]) for p in HF_FILES]
    assert layouts[0] != layouts[1]  # the item fields differ between the years


@pytest.mark.parametrize("path", HF_FILES, ids=lambda p: p.name)
def test_every_item_becomes_one_record_keyed_by_arxiv_id(path: Path) -> None:
    date = path.stem.removeprefix("daily_papers_")
    items = json.loads(path.read_text(encoding="utf-8"))
    records, notes = split_daily_list(path.read_bytes(), date)
    assert notes == []
    assert [r.record_id for r in records] == [item["paper"]["id"] for item in items]
    for record, item in zip(records, items, strict=True):
        assert record.format == "hf_daily_json"
        assert record.datestamp == date
        assert json.loads(record.content) == item  # the original object, untouched
        assert record.content == json.dumps(item, ensure_ascii=False)
        assert len(record.sha256) == 64


def test_an_item_without_paper_id_is_skipped_with_a_note() -> None:
    body = json.dumps([{"paper": {"id": "2405.18407"}}, {"title": "no paper"}]).encode()
    records, notes = split_daily_list(body, "2024-05-29")
    assert [r.record_id for r in records] == ["2405.18407"]
    assert notes == ["2024-05-29 item 1: no paper.id, skipped"]


@pytest.mark.parametrize("body", [b"<html>Bad gateway</html>", b"", b'{"error": "Invalid date"}', b'[{"paper": '])
def test_a_body_that_is_not_a_json_list_is_malformed(body: bytes) -> None:
    with pytest.raises(MalformedDailyList):
        split_daily_list(body, "2024-05-29")
