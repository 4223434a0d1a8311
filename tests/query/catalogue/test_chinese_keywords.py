"""Chinese keyword search over a real Meilisearch: the Chinese fields are segmented as Mandarin (localizedAttributes),
so a word from inside a Chinese sentence finds its papers. Real text: the corpus's Chinese TL;DRs and titles
(tests/fixtures/corpus, the May 2026 corpus's copy), its 导读 (motivation, method, result, conclusion) as the
document's `summary` holds an AI summary's."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.follows.compiled import PaperText, chinese
from papertrail.domain.follows.rules import FollowIndex, compile_follow
from papertrail.domain.search_document import CHINESE_FIELDS, document_id
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from schemas.events import Follow
from services.matcher.matching.backfill import Backfiller
from services.matcher.matching.similar import SimilarFollows
from services.matcher.store import MatcherRecords
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
NOW = datetime(2026, 5, 4, tzinfo=UTC)
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
        # as an AI summary's dump: its TL;DR too
        "summary": {"tldr_zh": record["AI"]["tldr"]} | {f"{part}_zh": record["AI"][part] for part in GUIDE},
        "title_zh": None,  # no Chinese title: a community summary's document, as the indexer writes it
        "categories": record["categories"],
        "ingested_ts": int(NOW.timestamp()),  # held now: in the matcher's backfill window
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


# the three queries and a few more a Chinese reader types, on subjects of these days
FOLLOWED = ["扩散模型加速", "大模型推理", "多模态大模型幻觉", "知识蒸馏", "强化学习奖励模型", "遥感图像分割"]
FOLLOWED += ["视觉语言模型"]


async def test_a_chinese_keyword_follow_matches_every_paper_the_search_finds(index: PaperIndex) -> None:
    """A keyword follow of a Chinese term agrees with the search: the follow matches the papers a keyword search of it
    finds (its words, all of them), those and no others, on the same documents."""
    follows = FollowIndex()
    for n, query in enumerate(FOLLOWED):
        follows.upsert(Follow(id=f"f{n}", user_id="reader", kind="keyword", name=query, query=query, created_at=NOW))
    matched: dict[str, set[str]] = {query: set() for query in FOLLOWED}
    for record in corpus_records():
        doc = document(record)
        title_zh, summary_zh = chinese({"tldr_zh": doc["tldr_zh"], **doc["summary"]})
        text = PaperText.build(doc["paper_id"], doc["title"], "", [], [], title_zh=title_zh, summary_zh=summary_zh)
        for follow, _ in follows.match(text):
            matched[follow.query or ""].add(doc["paper_id"])
    found_any = 0
    for query in FOLLOWED:
        found = await index.search(PaperQuery(q=query, sort="relevance", size=500), attributes=["paper_id"])
        assert found.total <= 500
        searched = {hit["paper_id"] for hit in found.hits}
        # the same papers: 大 of 大模型推理 matched inside 大量 or 大幅 before, where the search finds the word alone
        assert searched == matched[query], (query, searched ^ matched[query])
        found_any += bool(searched)
    assert found_any >= 5  # the comparison is not vacuous


async def test_a_new_chinese_follow_backfills_the_papers_the_search_finds(
    index: PaperIndex, scratch_db: AsyncDatabase
) -> None:
    """The matcher's backfill of a new follow of 扩散模型加速 searches the held papers for it as written and decides by
    the follow's rules: every paper the search finds is a match (before, Meilisearch found 2 and the rules kept 0)."""
    store = MatcherRecords.of(scratch_db)
    similar = SimilarFollows(store, "unused", 384, open_embedder=lambda: None)  # type: ignore[arg-type,return-value]
    backfiller = Backfiller(
        index.client, index.name, store, days=3650, max_hits_per_term=500, similar=similar, max_similar_papers=0
    )
    for n, query in enumerate(FOLLOWED):
        follow = Follow(id=f"b{n}", user_id="reader", kind="keyword", name=query, query=query, created_at=NOW)
        checked, matched = await backfiller.run(compile_follow(follow, {}), NOW)
        found = await index.search(PaperQuery(q=query, sort="relevance", size=500), attributes=["paper_id"])
        assert {paper_id for paper_id, _, _ in matched} == {hit["paper_id"] for hit in found.hits}, query
        assert checked == found.total
        assert all(reason.term == query for _, _, reasons in matched for reason in reasons)
