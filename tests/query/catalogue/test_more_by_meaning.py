"""更多按语义相近 over a real Meilisearch and the real local model: when Chinese words find only a few papers, the
papers listed below them are the papers most like those few (the centroid of their vectors, as a "papers like these"
follow scores its seeds), not the papers closest to the words' own vector. Real papers: the May 2026 corpus's first
listing days (tests/fixtures/corpus), with the corpus's own Chinese TL;DR and 导读 as their AI summary."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from papertrail.domain.search_document import PaperFilter, paper_document, with_vector
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import Embedder, EmbeddingSettings, embedding_text, l2_normalised
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import InfraSettings
from schemas.paper import Paper
from schemas.summary import Summary
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.reads.papers import find_papers
from services.query.catalogue.reads.search import FEW_BY_WORDS, MORE_BY_MEANING, PaperListing
from tests.support.corpus import paper_from_line, read_lines
from tests.support.events import enriched
from tests.support.fake_openai import corpus_summary_fields

pytestmark = pytest.mark.integration

SETTINGS = EmbeddingSettings()
DAYS = sorted((Path(__file__).parents[2] / "fixtures/corpus/arxiv-daily-2026-05").glob("*.jsonl.gz"))[:3]
WORDS = ("扩散", "模型", "加速")  # what a keyword search of 扩散模型加速 needs (the query)
OTHERS = 120  # the first papers of the days, beside those about diffusion (13): ~one day of other subjects


def chinese_text(line: dict[str, Any]) -> str:
    return " ".join(line["AI"][part] for part in ("tldr", "motivation", "method", "result", "conclusion"))


def corpus_lines() -> list[dict[str, Any]]:
    """The days' papers whose Chinese summary speaks of diffusion (扩散), and the first OTHERS of the rest."""
    seen: dict[str, dict[str, Any]] = {}
    for line in read_lines(DAYS):
        seen.setdefault(line["id"], line)
    diffusion = [line for line in seen.values() if "扩散" in chinese_text(line)]
    return diffusion + [line for line in seen.values() if "扩散" not in chinese_text(line)][:OTHERS]


LINES = corpus_lines()
LONE = "2604.27636"  # GSS: the words of 扩散模型加速 find it; some of its words no other paper of these days says


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return open_embedder(SETTINGS)


@pytest.fixture(scope="module")
async def vectors(embedder: Embedder) -> dict[str, np.ndarray]:
    papers = [paper_from_line(line) for line in LINES]
    outcomes = await embedder.embed([embedding_text(p.title, p.abstract or "") for p in papers])
    return {p.id: o.vector for p, o in zip(papers, outcomes, strict=True) if o.vector is not None}


def document(line: dict[str, Any], vector: np.ndarray | None) -> dict[str, Any]:
    paper: Paper = paper_from_line(line)
    summary = Summary(status="ok", **corpus_summary_fields(line))
    return with_vector(paper_document(enriched(paper).model_copy(update={"summary": summary}), {}), vector)


@pytest.fixture
async def index(servers: Any, embedder: Embedder, vectors: dict[str, np.ndarray]) -> AsyncIterator[PaperIndex]:
    client = make_search_client(InfraSettings(meili_url=servers.meili_url, meili_master_key=servers.meili_master_key))
    name = f"{servers.index}_more_by_meaning"
    try:
        paper_index = PaperIndex(client, name, 120, SETTINGS.embedding_dimensions, embedder)
        await paper_index.ensure()
        await paper_index.upsert([document(line, vectors.get(f"arxiv:{line['id']}")) for line in LINES])
        yield paper_index
    finally:
        await client.delete_index_if_exists(name)
        await client.aclose()


def nearest(vectors: dict[str, np.ndarray], like: list[str], size: int) -> list[str]:
    """The papers closest to the centroid of `like`'s vectors, those left out: computed here, not by Meilisearch."""
    held = [vectors[p] for p in like if p in vectors]
    (centroid,) = l2_normalised(l2_normalised(np.array(held)).mean(axis=0, keepdims=True))
    others = [p for p in vectors if p not in like]
    cosines = l2_normalised(np.array([vectors[p] for p in others])) @ centroid
    return [others[i] for i in np.argsort(-cosines, kind="stable")[:size]]


async def test_the_papers_below_a_few_found_by_words_are_the_papers_most_like_them(
    index: PaperIndex, vectors: dict[str, np.ndarray]
) -> None:
    holders = {f"arxiv:{line['id']}" for line in LINES if all(w in chinese_text(line) for w in WORDS)}
    assert 0 < len(holders) < FEW_BY_WORDS  # the case this is about: the words find a few
    found = await find_papers(index, PaperListing(q="".join(WORDS), semantic=0).query())
    hits = [hit["paper_id"] for hit in found["hits"]]
    assert found["mode"] == "keyword" and set(hits) == holders
    more = [hit["paper_id"] for hit in found["more_by_meaning"]]
    assert len(more) == MORE_BY_MEANING and not set(more) & holders
    assert more == nearest(vectors, hits, MORE_BY_MEANING)
    # the subject carries over: papers that speak of diffusion (扩散) are at least three times as common among them
    # as among all these papers
    speaks = {f"arxiv:{line['id']}" for line in LINES if "扩散" in chinese_text(line)}
    assert len(set(more) & speaks) / len(more) >= 3 * len(speaks) / len(LINES), more


async def test_below_one_paper_are_the_papers_like_it_that_its_page_lists(index: PaperIndex) -> None:
    """One paper found: below it, the papers its own page lists as 相似论文 (Meilisearch's similar papers)."""
    line = next(line for line in LINES if line["id"] == LONE)
    word = next(w for w in ("亚稳态", "晶体结构", "随机结构搜索") if w in chinese_text(line))
    alone = [other["id"] for other in LINES if word in chinese_text(other)]
    assert alone == [LONE]
    found = await find_papers(index, PaperListing(q=word, semantic=0).query())
    similar = await index.similar(f"arxiv:{LONE}", PaperFilter(), MORE_BY_MEANING, ["paper_id"])
    assert [hit["paper_id"] for hit in found["more_by_meaning"]] == [hit["paper_id"] for hit in similar]


async def test_while_the_few_have_no_vector_yet_their_own_text_finds_the_papers_like_them(
    index: PaperIndex, vectors: dict[str, np.ndarray]
) -> None:
    """The few found wait for their vectors (a backfill still embedding): the search embeds their text itself, by the
    papers' model, and lists the papers most like them, as it will once their vectors are stored."""
    line = next(line for line in LINES if line["id"] == LONE)
    await index.upsert([document(line, None)])
    word = next(w for w in ("亚稳态", "晶体结构", "随机结构搜索") if w in chinese_text(line))
    found = await find_papers(index, PaperListing(q=word, semantic=0).query())
    assert [hit["paper_id"] for hit in found["hits"]] == [f"arxiv:{LONE}"]
    more = [hit["paper_id"] for hit in found["more_by_meaning"]]
    assert more == nearest(vectors, [f"arxiv:{LONE}"], MORE_BY_MEANING)


async def test_without_vectors_of_the_few_the_words_answer_alone_when_nothing_embeds_here(index: PaperIndex) -> None:
    """The few found have no vector yet, and this index reads nothing by meaning (no model of its own, no multilingual
    one): the words' answer stands alone, without an error (with a multilingual model, the words' vector ranks the
    more: tests/integration)."""
    line = next(line for line in LINES if line["id"] == LONE)
    await index.upsert([document(line, None)])
    no_model = PaperIndex(index.client, index.name, 120, SETTINGS.embedding_dimensions, None)
    word = next(w for w in ("亚稳态", "晶体结构", "随机结构搜索") if w in chinese_text(line))
    found = await find_papers(no_model, PaperListing(q=word, semantic=0).query())
    assert [hit["paper_id"] for hit in found["hits"]] == [f"arxiv:{LONE}"]
    assert found["more_by_meaning"] == []
