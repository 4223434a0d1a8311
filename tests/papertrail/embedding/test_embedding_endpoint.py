"""The OpenAI-compatible embedding backend against the project's fake OpenAI server: vectors in order and of length
one, batches, retries on 429 and 5xx, an endpoint that is down, a text it refuses, wrong vectors, the budget."""

from collections.abc import AsyncIterator, Iterator
from typing import Any

import numpy as np
import pytest

from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import (
    NOTHING_TO_EMBED,
    EmbeddingSettings,
    ProcessTokenBudget,
    bounded_text,
    embedding_text,
    today,
)
from papertrail.embedding.endpoint_backend import BUDGET_SPENT, EndpointEmbedder
from tests.support.fake_openai import FakeOpenAI, corpus_lines, fake_vector, running_fake_openai

TEXTS = [embedding_text(line["title"], line["summary"]) for line in corpus_lines()]


@pytest.fixture(scope="module")
def fake() -> Iterator[tuple[FakeOpenAI, str]]:
    with running_fake_openai() as served:
        yield served


@pytest.fixture
def server(fake: tuple[FakeOpenAI, str]) -> FakeOpenAI:
    fake[0].reset()
    fake[0].retry_after = "0.1"
    fake[0].timeout_sleep_s = 1.5  # longer than the client's 1 s
    return fake[0]


def settings_for(base_url: str, **overrides: Any) -> EmbeddingSettings:
    values: dict[str, Any] = {
        "embedding_backend": "openai",
        "embedding_base_url": base_url,
        "embedding_model": "fake-embedding",
        "embedding_dimensions": 16,
        "embedding_api_key": "test-key",
        "embedding_timeout_s": 1.0,
        "embedding_attempts": 3,
        "embedding_retry_initial_s": 0.05,
        "embedding_retry_max_s": 1.0,
        "embedding_batch_size": 4,
    }
    return EmbeddingSettings(**(values | overrides))


@pytest.fixture
async def embedder(fake: tuple[FakeOpenAI, str]) -> AsyncIterator[EndpointEmbedder]:
    embedder = open_embedder(settings_for(fake[1]))
    assert isinstance(embedder, EndpointEmbedder)
    yield embedder
    await embedder.close()


def expected(text: str, dimensions: int = 16) -> np.ndarray:
    """The fake's vector of the text as sent: cut at 256 tokens of 4 characters."""
    vector = np.array(fake_vector(bounded_text(text, 1024), dimensions), dtype=np.float32)
    return vector / np.linalg.norm(vector)


async def test_texts_get_the_endpoints_vectors_in_order_scaled_to_length_one(
    server: FakeOpenAI, embedder: EndpointEmbedder
) -> None:
    outcomes = await embedder.embed(TEXTS)  # 6 texts, batches of 4: two requests
    assert [o.failure for o in outcomes] == [None] * len(TEXTS)
    for text, outcome in zip(TEXTS, outcomes, strict=True):
        assert outcome.vector is not None and outcome.vector.dtype == np.float32
        assert np.allclose(outcome.vector, expected(text), atol=1e-6)
    assert sorted(len(r.body["input"]) for r in server.embedding_requests) == [2, 4]
    assert {r.body["model"] for r in server.embedding_requests} == {"fake-embedding"}
    assert all("dimensions" not in r.body for r in server.embedding_requests)


async def test_dimensions_are_sent_when_asked(server: FakeOpenAI, fake: tuple[FakeOpenAI, str]) -> None:
    embedder = open_embedder(settings_for(fake[1], embedding_send_dimensions=True, embedding_dimensions=8))
    (outcome,) = await embedder.embed([TEXTS[0]])
    await embedder.close()
    assert outcome.vector is not None and np.allclose(outcome.vector, expected(TEXTS[0], 8), atol=1e-6)
    assert server.embedding_requests[0].body["dimensions"] == 8


@pytest.mark.parametrize("fault", ["429", "500", "timeout"])
async def test_a_rate_limit_a_server_error_or_a_timeout_is_retried(
    server: FakeOpenAI, embedder: EndpointEmbedder, fault: Any
) -> None:
    server.fail_next(fault, fault)
    (outcome,) = await embedder.embed([TEXTS[0]])
    assert outcome.vector is not None and np.allclose(outcome.vector, expected(TEXTS[0]), atol=1e-6)
    assert len(server.embedding_requests) == 3  # two failures, then the answer
    if fault == "429":  # Retry-After (0.1 s) was honoured between attempts
        first, second, _ = server.embedding_requests
        assert second.at - first.at >= 0.09


async def test_an_endpoint_that_stays_down_leaves_texts_for_later(
    server: FakeOpenAI, embedder: EndpointEmbedder
) -> None:
    server.down = True
    outcomes = await embedder.embed(TEXTS[:2])
    assert all(o.vector is None and o.failure is None for o in outcomes)
    assert all(o.unavailable and "server_error 503" in o.unavailable for o in outcomes)
    assert len(server.embedding_requests) == 3  # every attempt spent, once for the one batch


async def test_a_text_the_endpoint_refuses_fails_alone(server: FakeOpenAI, embedder: EndpointEmbedder) -> None:
    server.max_input_chars = 400
    texts = [TEXTS[0][:300], TEXTS[1], TEXTS[2][:300], ""]  # TEXTS[1] is longer than the fake takes
    outcomes = await embedder.embed(texts)
    assert outcomes[0].vector is not None and outcomes[2].vector is not None
    assert (
        outcomes[1].vector is None and outcomes[1].failure and "endpoint rejected the text (400)" in outcomes[1].failure
    )
    assert outcomes[3].failure == NOTHING_TO_EMBED  # never sent: the real API refuses empty input
    assert [len(r.body["input"]) for r in server.embedding_requests] == [3, 1, 1, 1]


async def test_vectors_of_the_wrong_length_are_a_clear_failure(server: FakeOpenAI, embedder: EndpointEmbedder) -> None:
    server.fail_next("short_vectors")
    (outcome,) = await embedder.embed([TEXTS[0]])
    assert outcome.vector is None
    assert outcome.failure == "endpoint answered vectors of [15] numbers, not EMBEDDING_DIMENSIONS=16"


async def test_a_spent_daily_budget_leaves_texts_for_later(server: FakeOpenAI, fake: tuple[FakeOpenAI, str]) -> None:
    budget = ProcessTokenBudget()
    embedder = open_embedder(settings_for(fake[1], embedding_daily_token_budget=50), budget)
    first = await embedder.embed([TEXTS[0]])  # about 400 tokens: one call may overshoot, never more
    second = await embedder.embed([TEXTS[1]])
    await embedder.close()
    assert first[0].vector is not None
    assert second[0].vector is None and second[0].unavailable == BUDGET_SPENT
    assert len(server.embedding_requests) == 1
    assert await budget.used(today()) > 50
