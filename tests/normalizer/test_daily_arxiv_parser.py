"""daily-arXiv-ai-enhanced's lines (genuine, tests/fixtures/summarizer/ORIGIN.md): the paper as listed that day and
the publisher's Chinese summary as the paper's community summary; merged into the paper the arXiv record makes."""

import json
from datetime import UTC, datetime

import pytest

from schemas.events import RawRecord
from services.normalizer.identity import merge
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import UnparseableRecord
from tests.support.paths import FIXTURES
from tests.support.sources import raw_record

DAY = "2026-05-05"
LINES = (FIXTURES / "summarizer" / "corpus-2026-05-05.jsonl").read_text(encoding="utf-8").splitlines()
NOW = datetime(2026, 5, 6, tzinfo=UTC)


def _raw(line: str, day: str | None = DAY) -> RawRecord:
    return raw_record("daily_arxiv", json.loads(line)["id"], "daily_arxiv_json", line, day)


@pytest.mark.parametrize("line", LINES)
def test_a_line_is_the_listed_paper_with_its_community_summary(line: str) -> None:
    written = json.loads(line)
    record = parse_raw(_raw(line))
    assert record.source == "daily_arxiv" and record.ids.arxiv == written["id"] == record.record_id
    assert record.categories == written["categories"] and len(record.authors) == len(written["authors"])
    assert record.listed_on == datetime(2026, 5, 5, tzinfo=UTC)
    summary = record.community_summary
    assert summary is not None
    assert (summary.publisher, summary.model, summary.date) == ("daily-arXiv-ai-enhanced", "deepseek-chat", DAY)
    ai = written["AI"]
    assert [summary.tldr_zh, summary.motivation_zh, summary.method_zh, summary.result_zh, summary.conclusion_zh] == [
        ai[name].strip() for name in ("tldr", "motivation", "method", "result", "conclusion")
    ]


def test_a_line_without_a_summary_is_still_the_listing_and_a_line_without_its_day_is_refused() -> None:
    written = json.loads(LINES[0])
    for ai in (None, {"tldr": "  "}, "Summary generation failed"):
        record = parse_raw(_raw(json.dumps({**written, "AI": ai})))
        assert record.community_summary is None and record.title
    with pytest.raises(UnparseableRecord, match="no day"):
        parse_raw(_raw(LINES[0], day=None))


def test_the_community_summary_joins_the_arxiv_paper_and_a_later_day_replaces_it() -> None:
    arxiv = parse_raw(raw_record("corpus", json.loads(LINES[2])["id"], "corpus_json", LINES[2], DAY))
    start = merge(None, arxiv, content_hash="a", now=NOW, ai_categories=frozenset({"cs.CL"}), next_seq=1)
    assert start is not None and start.paper.community_summary is None
    community = parse_raw(_raw(LINES[2]))
    joined = merge(start.paper, community, content_hash="b", now=NOW, ai_categories=frozenset(), next_seq=2)
    assert joined is not None and joined.paper.community_summary == community.community_summary
    assert set(joined.version.changed_fields) == {"community_summary", "sources"}
    assert joined.paper.sources == ["arxiv", "daily_arxiv"] and joined.kind == "updated"
    # the same line again changes nothing; an arXiv record after it keeps the summary
    assert merge(joined.paper, community, content_hash="b", now=NOW, ai_categories=frozenset(), next_seq=3) is None
    again = merge(joined.paper, arxiv, content_hash="a", now=NOW, ai_categories=frozenset(), next_seq=3)
    assert again is None or again.paper.community_summary == community.community_summary
    # the paper listed again another day (a cross-list, a replacement) with the summary written again
    written = json.loads(LINES[2])
    rewritten = {**written, "AI": {**written["AI"], "tldr": written["AI"]["tldr"][::-1]}}
    later = parse_raw(_raw(json.dumps(rewritten, ensure_ascii=False), day="2026-05-06"))
    replaced = merge(joined.paper, later, content_hash="c", now=NOW, ai_categories=frozenset(), next_seq=3)
    assert replaced is not None and replaced.paper.community_summary == later.community_summary
    assert replaced.paper.community_summary is not None and replaced.paper.community_summary.date == "2026-05-06"
