"""Which papers are AI-related: ACL papers, papers filed under an AI category, and Hugging Face picks until their
arXiv categories arrive; the recorded picks and arXivRaw record merged in either order."""

from datetime import UTC, datetime, timedelta

import pytest

from schemas.events import RawRecord
from schemas.paper import Paper, PaperIds
from services.normalizer.identity import merge
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.settings import DEFAULT_AI_CATEGORIES
from tests.support.paths import FIXTURES
from tests.support.sources import HF_FILES, acl_records, hf_records, oai_records

NOW = datetime(2026, 11, 30, tzinfo=UTC)
AI = frozenset(DEFAULT_AI_CATEGORIES)
# A pick naming the arXiv id of the recorded GetRecord response (origin: tests/fixtures/harvester/README.md)
HF_PICK = FIXTURES / "harvester/hf_pick/daily_papers_2013-04-03.json"
ARXIV_RECORD = "arXivRaw/mikesaelim_GetRecordResponse.xml"


def _merged(raws: list[RawRecord]) -> Paper:
    paper = None
    for seq, raw in enumerate(raws, start=1):
        change = merge(paper, parse_raw(raw), content_hash=raw.sha256, now=NOW + timedelta(seconds=seq),
                       ai_categories=AI, next_seq=seq)  # fmt: skip
        assert change is not None
        paper = change.paper
    assert paper is not None
    return paper


@pytest.mark.parametrize("path", HF_FILES, ids=lambda p: p.name)
def test_a_paper_known_only_from_hugging_face_is_ai_related(path) -> None:
    for raw in hf_records(path):
        paper = _merged([raw])
        assert paper.categories == [] and paper.community is not None
        assert paper.ai_related is True, paper.title


def test_the_arxiv_record_of_a_pick_fills_categories_and_versions_and_then_decides() -> None:
    pick, record = hf_records(HF_PICK)[0], oai_records(ARXIV_RECORD, "arXivRaw")[0]
    assert pick.record_id == record.record_id == "1302.2146"
    alone = _merged([pick])
    merged = _merged([pick, record])
    assert merged.id == alone.id == "arxiv:1302.2146"
    assert merged.categories == ["hep-ph", "hep-ex"]
    assert [(v.source, v.label) for v in merged.versions] == [("arxiv", "v1"), ("arxiv", "v2")]
    assert merged.current_version == "v2" and merged.version_updated_at == datetime(2013, 4, 2, 1, 50, 8, tzinfo=UTC)
    assert merged.sources == ["hf", "arxiv"] and merged.community == alone.community
    # the categories it was filed under are physics: the pick's provisional verdict gives way to them
    assert alone.ai_related is True and merged.ai_related is False
    # in the other order the categories are there first, and the pick does not override them
    reversed_order = _merged([record, pick])
    assert reversed_order.categories == merged.categories and reversed_order.ai_related is False
    assert reversed_order.community == alone.community


def test_an_acl_paper_stays_ai_related_whatever_an_arxiv_record_adds() -> None:
    acl = next(r for r in acl_records() if r.record_id == "2024.acl-long.1")
    record = oai_records(ARXIV_RECORD, "arXivRaw")[0]
    paper = _merged([acl])
    assert paper.ai_related is True
    # the published paper's arXiv preprint (here: a physics record standing in for one) joins by a shared id
    preprint = parse_raw(record)
    preprint.ids = PaperIds(arxiv=preprint.ids.arxiv, acl="2024.acl-long.1")
    change = merge(paper, preprint, content_hash=record.sha256, now=NOW, ai_categories=AI, next_seq=2)
    # the Anthology's cs.CL kept beside the preprint's categories, its primary one first
    assert change is not None and change.paper.categories == ["hep-ph", "cs.CL", "hep-ex"]
    assert change.paper.ai_related is True
