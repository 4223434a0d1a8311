"""The recorded ACL 2024 collection file split into one raw record per paper and front matter."""

import re

import pytest
from lxml import etree

from services.harvester.sources.anthology import MalformedVolumeFile, split_collection
from tests.support.paths import SOURCES

ACL_FILE = SOURCES / "acl/2024.acl.xml"


def _expected_ids(text: str) -> list[str]:
    """Anthology ids from the file's own elements, counted with plain regexes, not the parser under test."""
    collection = re.search(r'<collection id="([^"]+)"', text)
    assert collection is not None
    ids: list[str] = []
    for volume_id, body in re.findall(r'<volume id="([^"]+)"[^>]*>(.*?)</volume>', text, re.S):
        for element in re.findall(r'<frontmatter>|<paper id="\d+"', body):
            paper = "0" if element == "<frontmatter>" else re.findall(r"\d+", element)[0]
            ids.append(f"{collection.group(1)}-{volume_id}.{paper}")
    return ids


def test_every_paper_and_front_matter_becomes_one_record() -> None:
    text = ACL_FILE.read_text(encoding="utf-8")
    records = split_collection(ACL_FILE.read_bytes())
    papers = text.count("<paper ")
    frontmatters = text.count("<frontmatter>")
    assert papers == 933  # the count the issue names, and the file's own
    assert len(records) == papers + frontmatters
    assert [r.record_id for r in records] == _expected_ids(text)
    assert len({r.record_id for r in records}) == len(records)
    assert records[0].record_id == "2024.acl-long.0" and records[1].record_id == "2024.acl-long.1"


def test_record_content_is_the_volume_with_its_meta_and_only_that_paper() -> None:
    records = split_collection(ACL_FILE.read_bytes())
    source = etree.fromstring(ACL_FILE.read_bytes())
    originals = {
        f"2024.acl-{v.get('id')}.{p.get('id') if p.tag == 'paper' else '0'}": (v, p)
        for v in source.iter("volume")
        for p in v.iterchildren("paper", "frontmatter")
    }
    for record in records:
        assert record.format == "acl_xml"
        volume = etree.fromstring(record.content)
        original_volume, original_paper = originals[record.record_id]
        assert volume.tag == "volume"
        assert volume.get("collection") == "2024.acl"
        assert volume.get("id") == original_volume.get("id")
        assert [child.tag for child in volume] == ["meta", original_paper.tag]
        assert etree.tostring(volume[0]) == etree.tostring(original_volume.find("meta"), with_tail=False)
        assert etree.tostring(volume[1]) == etree.tostring(original_paper, with_tail=False)
        assert record.datestamp == (original_paper.get("ingest-date") or original_volume.get("ingest-date"))


def test_paper_title_survives_with_its_markup() -> None:
    record = next(r for r in split_collection(ACL_FILE.read_bytes()) if r.record_id == "2024.acl-long.1")
    title = etree.fromstring(record.content).findtext("paper/title")
    assert title is not None and title.startswith("Quantized Side Tuning")


@pytest.mark.parametrize(
    "body", [b"", b"<html>rate limited</html>", b'{"not": "xml"}', ACL_FILE.read_bytes()[:100_000]]
)
def test_a_body_that_is_not_a_collection_file_is_malformed(body: bytes) -> None:
    with pytest.raises(MalformedVolumeFile):
        split_collection(body)
