"""What a vector is made of and keyed by, and the embedding settings: pure, no model."""

import numpy as np
import pytest
from pydantic import ValidationError

from papertrail.domain.text import paper_digest
from papertrail.embedding.embedder import (
    E5_MEANING_MIN_SCORE,
    E5_SMALL_Q4,
    MINILM_INT8,
    EmbeddingSettings,
    ProcessTokenBudget,
    SearchEmbeddingSettings,
    bounded_text,
    cache_key,
    embedding_text,
    l2_normalised,
    meaning_floor,
)
from papertrail.embedding.paper_vectors import search_model_mismatch
from papertrail.runtime.service import settings_error_message
from tests.support.fake_openai import corpus_event, corpus_lines


def test_the_text_is_the_title_then_the_abstract() -> None:
    assert embedding_text(" Attention Is All You Need ", "We propose the Transformer.\n") == (
        "Attention Is All You Need\n\nWe propose the Transformer."
    )
    assert embedding_text("A title alone", "  ") == "A title alone"
    assert embedding_text("", "") == ""


def test_a_bounded_text_is_cut_at_a_space_and_safe_to_send() -> None:
    abstract = "word " * 10_000  # a 50,000-character abstract
    text = bounded_text(embedding_text("Title", abstract), 5120)
    assert len(text) <= 5120 and text.endswith("word")
    assert bounded_text("x" * 300, 100) == "x" * 100  # no space to cut at
    assert bounded_text("a\u00a0b \t\n c", 100) == "a b c"
    assert bounded_text("broken \udc80 decoding", 100) == "broken ? decoding"  # a lone surrogate cannot be sent
    assert bounded_text("深度学习模型的推理能力", 5) == "深度学习模"


def test_the_key_is_the_papers_digest_and_the_model() -> None:
    digest = paper_digest(corpus_event(corpus_lines()[0]).paper)
    local, other = EmbeddingSettings(), EmbeddingSettings(embedding_max_tokens=128)
    assert cache_key(digest, local.model_key) == f"{digest}:local/all-MiniLM-L6-v2-int8/384/256"
    assert cache_key(digest, other.model_key) != cache_key(digest, local.model_key)


def test_vectors_are_scaled_to_length_one_as_float32() -> None:
    vectors = l2_normalised(np.array([[3.0, 4.0], [0.0, 0.0], [-2.0, 0.0]], dtype=np.float64))
    assert vectors.dtype == np.float32
    assert vectors.tolist() == [[0.6000000238418579, 0.800000011920929], [0.0, 0.0], [-1.0, 0.0]]


def test_the_local_model_is_the_default_and_fills_its_own_dimensions() -> None:
    settings = EmbeddingSettings()
    assert (settings.embedding_backend, settings.embedding_model) == ("local", MINILM_INT8.id)
    assert EmbeddingSettings(embedding_model=E5_SMALL_Q4.id).similar_threshold == E5_SMALL_Q4.similar_threshold
    assert settings.similar_threshold == MINILM_INT8.similar_threshold == 0.65
    assert settings.embedding_dimensions == 384 and settings.max_chars == 256 * 20
    assert settings.embedding_batch_size == 2  # the least CPU and memory per abstract (docs/benchmarks.md)


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ({"EMBEDDING_BACKEND": "torch"}, "EMBEDDING_BACKEND"),
        ({"EMBEDDING_MODEL": "all-mpnet-base-v2"}, "EMBEDDING_MODEL"),
        ({"EMBEDDING_DIMENSIONS": "768"}, "EMBEDDING_DIMENSIONS"),
        ({"EMBEDDING_MAX_TOKENS": "1024"}, "EMBEDDING_MAX_TOKENS"),
        ({"EMBEDDING_BATCH_SIZE": "-1"}, "EMBEDDING_BATCH_SIZE"),
        (
            {"EMBEDDING_BACKEND": "openai", "EMBEDDING_DIMENSIONS": "1536", "EMBEDDING_BASE_URL": "http://x/v1"},
            "EMBEDDING_MODEL",
        ),
        (
            {"EMBEDDING_BACKEND": "openai", "EMBEDDING_MODEL": "m", "EMBEDDING_BASE_URL": "http://x/v1"},
            "EMBEDDING_DIMENSIONS",
        ),
        ({"EMBEDDING_BACKEND": "openai", "EMBEDDING_MODEL": "m", "EMBEDDING_DIMENSIONS": "8"}, "EMBEDDING_BASE_URL"),
        ({"EMBEDDING_BASE_URL": "api.openai.com/v1"}, "EMBEDDING_BASE_URL"),
    ],
)
def test_a_bad_setting_stops_naming_its_variable(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], named: str
) -> None:
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as error:
        EmbeddingSettings()
    assert f"  {named}:" in settings_error_message("summarizer", error.value)


def test_an_endpoint_is_configured_by_its_model_dimensions_and_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_BACKEND", "openai")
    monkeypatch.setenv("EMBEDDING_MODEL", "text-embedding-3-small")
    monkeypatch.setenv("EMBEDDING_DIMENSIONS", "1536")
    monkeypatch.setenv("EMBEDDING_BASE_URL", "https://api.openai.com/v1")
    settings = EmbeddingSettings()
    assert settings.model_key == "openai/text-embedding-3-small/1536/256" and settings.max_chars == 1024
    assert settings.embedding_batch_size == 64


async def test_the_process_budget_counts_per_day_and_forgets_old_days() -> None:
    budget = ProcessTokenBudget()
    for day in ("2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04"):
        await budget.spend(day, 10)
    await budget.spend("2026-05-04", 5)
    assert await budget.used("2026-05-04") == 15
    assert await budget.used("2026-05-01") == 0  # only the last three days are kept


def test_search_vectors_are_the_multilingual_model_by_default_and_none_turns_them_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SEARCH_EMBEDDING_MODEL", raising=False)  # the tests' environment turns them off
    default = SearchEmbeddingSettings()
    search = default.search_embedding
    assert search is not None and search.embedding_model == E5_SMALL_Q4.id and search.embedding_dimensions == 384
    assert default.search_model_key == "local/multilingual-e5-small-q4/384/192" and default.reads_chinese is True
    assert search.meaning_min_score == E5_MEANING_MIN_SCORE > default.meaning_min_score
    for off in ("none", "", " None "):
        settings = SearchEmbeddingSettings(search_embedding_model=off)
        assert settings.search_embedding is None and settings.search_model_key == "none"
        assert settings.reads_chinese is False
    # the papers' own model reading Chinese already: no second vector of the same model
    same = SearchEmbeddingSettings(embedding_model=E5_SMALL_Q4.id)
    assert same.search_embedding is None and same.reads_chinese is True
    with pytest.raises(ValidationError, match="no local model"):
        SearchEmbeddingSettings(search_embedding_model="text-embedding-3-small")


def test_the_search_models_own_cut_is_part_of_its_key_so_a_change_re_embeds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEARCH_EMBEDDING_MODEL", raising=False)
    monkeypatch.delenv("SEARCH_EMBEDDING_MAX_TOKENS", raising=False)
    default = SearchEmbeddingSettings()
    search = default.search_embedding
    # the search model reads fewer tokens than the papers' model: a key of its own, so the vectors of 256 tokens that
    # an earlier release stored are another model's and are made again
    assert search is not None and search.embedding_max_tokens == 192 < default.embedding_max_tokens == 256
    assert default.search_model_key == "local/multilingual-e5-small-q4/384/192"
    papers_cut = SearchEmbeddingSettings(search_embedding_max_tokens=0, embedding_max_tokens=200)
    assert papers_cut.search_model_key == "local/multilingual-e5-small-q4/384/200"  # 0: the papers' cut
    cut = SearchEmbeddingSettings(search_embedding_max_tokens=96)
    assert cut.search_model_key == "local/multilingual-e5-small-q4/384/96" != default.search_model_key
    assert cut.model_key == default.model_key  # the papers' vectors stay as they are
    # vectors kept under the old key are another model's: found by neither the sweep's cache nor the index's check
    assert cache_key("d", cut.search_model_key) != cache_key("d", default.search_model_key)
    assert search_model_mismatch({"model": default.search_model_key}, cut.search_model_key) is not None
    # the papers' own model at another cut makes no second vector of the same kind
    same = SearchEmbeddingSettings(embedding_model=E5_SMALL_Q4.id, search_embedding_max_tokens=96)
    assert same.search_embedding is None
    with pytest.raises(ValidationError, match="search_embedding_max_tokens"):
        SearchEmbeddingSettings(search_embedding_max_tokens=8)


def test_a_search_model_other_than_the_summarizers_is_a_reason_to_stop() -> None:
    e5 = "local/multilingual-e5-small-q4/384/256"
    assert search_model_mismatch(None, e5) is None  # the summarizer never started
    assert search_model_mismatch({"model": e5}, e5) is None
    assert search_model_mismatch({"model": "none"}, "none") is None
    assert search_model_mismatch({"model": e5}, "none") is None  # this service searches none: nothing to find
    problem = search_model_mismatch({"model": "none"}, e5)
    assert problem is not None and "SEARCH_EMBEDDING_MODEL" in problem and "makes no search vectors" in problem
    other = search_model_mismatch({"model": "local/other/384/256"}, e5)
    assert other is not None and "local/other/384/256" in other and e5 in other


@pytest.mark.parametrize(
    ("best", "floor", "margin", "needed"),
    [
        (0.95, 0.90, 0.015, 0.90),  # a closest paper well past the floor: the floor
        (0.91, 0.90, 0.015, 0.895),  # within the margin above it: the margin behind the closest
        (0.895, 0.90, 0.015, 0.885),  # under it: still the margin behind
        (0.80, 0.90, 0.015, 0.885),  # far under it: never below the floor less the margin
        (0.95, 0.58, 0.0, 0.58),  # a model without a margin: its floor, always
        (0.50, 0.58, 0.0, 0.58),
    ],
)
def test_the_score_a_search_by_meaning_alone_needs(best: float, floor: float, margin: float, needed: float) -> None:
    assert meaning_floor(best, floor, margin) == pytest.approx(needed)
