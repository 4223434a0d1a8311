"""Chinese keyword search over a real Meilisearch: the Chinese fields are segmented as Mandarin (localizedAttributes),
so a word from inside a Chinese sentence finds its papers. Real text: the corpus's Chinese TL;DRs and titles
(tests/fixtures/corpus, the May 2026 corpus's copy), its 导读 (motivation, method, result, conclusion) as the
document's `summary` holds an AI summary's."""

from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from papertrail.domain.search_document import CHINESE_FIELDS, document_id
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.search import PaperQuery
from tests.support.corpus import read_lines
from tests.support.paths import FIXTURES
from tests.support.servers import Servers

pytestmark = pytest.mark.integration
CORPUS = FIXTURES / "corpus" / "arxiv-daily-2026-05"
DAYS = 3  # the first three listing days: a few hundred papers
# Words of the corpus's Chinese TL;DRs, each inside a run of Chinese characters (no space or mark beside it)
WORDS = ["高斯泼溅", "知识蒸馏", "奖励模型", "遥感"]
GUIDE = ("motivation", "method", "result", "conclusion")


@cache
def corpus_records() -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for record in read_lines(sorted(Path(CORPUS).glob("*.jsonl.gz"))[:DAYS]):
        seen.setdefault(record["id"], record)
    return list(seen.values())


def document(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": document_id(f"arxiv:{record['id']}"),
        "paper_id": f"arxiv:{record['id']}",
        "title": record["title"],
        "tldr_zh": record["AI"]["tldr"],
        # a reader's keyword: the English title's first word, beside a Chinese one, as a summary's keywords mix both
        "keywords": [record["title"].split()[0], "论文"],
        "summary": {f"{part}_zh": record["AI"][part] for part in GUIDE},
    }


def chinese_text(record: dict[str, Any]) -> str:
    return " ".join(record["AI"][part] for part in ("tldr", *GUIDE))


@pytest.fixture(scope="module")
async def index(servers: Servers) -> AsyncIterator[PaperIndex]:
    settings = InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key)
    client = make_search_client(settings)
    name = f"{servers.index}_zh_keywords"
    try:
        paper_index = PaperIndex(client, name, task_timeout_s=120)
        await paper_index.ensure()
        await paper_index.upsert([document(r) for r in corpus_records()])
        yield paper_index
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


async def test_the_chinese_fields_are_segmented_as_mandarin(index: PaperIndex) -> None:
    settings = await index.index.get_settings()
    assert settings.localized_attributes is not None
    (localized,) = settings.localized_attributes
    assert set(localized.attribute_patterns) == set(CHINESE_FIELDS) and localized.locales == ["cmn"]


@pytest.mark.parametrize("word", WORDS)
async def test_a_chinese_word_inside_a_sentence_finds_its_papers(index: PaperIndex, word: str) -> None:
    holders = {f"arxiv:{r['id']}" for r in corpus_records() if word in r["AI"]["tldr"]}
    assert holders  # the word is the corpus's
    found = await index.search(PaperQuery(q=word, size=100), attributes=["paper_id", "tldr_zh"])
    assert holders <= {hit["paper_id"] for hit in found.hits}
    assert word in found.hits[0]["tldr_zh"]  # a paper that says it comes first


async def test_english_keywords_beside_chinese_ones_are_still_found(index: PaperIndex) -> None:
    record = next(r for r in corpus_records() if len(r["title"].split()[0]) > 6)
    found = await index.search(PaperQuery(q=record["title"].split()[0], size=50), attributes=["paper_id"])
    assert f"arxiv:{record['id']}" in [hit["paper_id"] for hit in found.hits]


async def test_a_chinese_word_of_the_guide_alone_finds_its_papers(index: PaperIndex) -> None:
    """消融实验 (ablation study) is in no TL;DR of these days, only in four papers' 导读."""
    word = "消融实验"
    holders = {f"arxiv:{r['id']}" for r in corpus_records() if word in chinese_text(r)}
    assert holders and not any(word in r["AI"]["tldr"] for r in corpus_records())
    found = await index.search(PaperQuery(q=word, size=100), attributes=["paper_id"])
    assert holders <= {hit["paper_id"] for hit in found.hits}


async def test_a_chinese_query_needs_every_word_it_is_cut_into(index: PaperIndex) -> None:
    """多模态推理 is cut into words (多, 模态, 推理): a paper about 多模态 without 推理 does not answer it
    (Meilisearch's default drops the last words and listed them), on the relevance page as in the feed by time."""
    both = {f"arxiv:{r['id']}" for r in corpus_records() if {"多模态", "推理"} <= _words_in(r)}
    alone = {f"arxiv:{r['id']}" for r in corpus_records() if "多模态" in chinese_text(r)} - both
    assert both and alone
    texts = {f"arxiv:{r['id']}": chinese_text(r) for r in corpus_records()}
    for sort in ("relevance", "ingested"):
        found = await index.search(PaperQuery(q="多模态推理", sort=sort, size=100), attributes=["paper_id"])  # type: ignore[arg-type]
        ids = {hit["paper_id"] for hit in found.hits}
        assert both <= ids, sort
        assert all("推理" in texts[paper_id] and "模态" in texts[paper_id] for paper_id in ids), sort


def _words_in(record: dict[str, Any]) -> set[str]:
    return {word for word in ("多模态", "推理") if word in chinese_text(record)}
