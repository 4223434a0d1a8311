"""The OpenAI-compatible /v1/embeddings backend: batches of texts per request, retried on 429/5xx/timeouts as
summaries are, within a daily token budget."""

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import openai
from openai import AsyncOpenAI

from papertrail.embedding.embedder import (
    EMBED_SECONDS,
    EMBEDDED,
    EMBEDDING_CALLS,
    EMBEDDING_COST,
    EMBEDDING_TOKENS,
    NOTHING_TO_EMBED,
    Embedded,
    EmbeddingSettings,
    TextRole,
    TokenBudget,
    bounded_text,
    l2_normalised,
    today,
)
from papertrail.runtime.endpoint import (
    budget_left,
    error_kind,
    estimated_cost,
    is_unavailable,
    unavailable_reason,
    with_retries,
)

log = logging.getLogger("papertrail.embedding")

BUDGET_SPENT = "daily embedding token budget spent"


class BadAnswer(Exception):
    """The endpoint answered 200 with something that is not one vector of the expected length per text."""


class EndpointEmbedder:
    """The endpoint backend of Embedder. A request the endpoint rejects is sent again one text at a time, so one text
    it cannot take (too long for the model, say) fails alone."""

    def __init__(self, client: AsyncOpenAI, settings: EmbeddingSettings, budget: TokenBudget) -> None:
        self.client = client
        self.settings = settings
        self.budget = budget
        # like summaries: the limit covers requests in flight, not backoff waits
        self.slots = asyncio.Semaphore(settings.embedding_concurrency)

    @property
    def model_key(self) -> str:
        return self.settings.model_key

    @property
    def dimensions(self) -> int:
        return self.settings.embedding_dimensions

    async def embed(self, texts: Sequence[str], role: TextRole = "passage") -> list[Embedded]:
        # an endpoint's model is taken as it is: OpenAI's models read queries and documents alike
        texts = [bounded_text(text, self.settings.max_chars) for text in texts]
        todo = [i for i, text in enumerate(texts) if text.strip()]
        size = self.settings.embedding_batch_size
        batches = [todo[start : start + size] for start in range(0, len(todo), size)]
        answers = await asyncio.gather(*(self._batch([texts[i] for i in batch]) for batch in batches))
        results = [Embedded(failure=NOTHING_TO_EMBED)] * len(texts)
        for batch, outcomes in zip(batches, answers, strict=True):
            for i, outcome in zip(batch, outcomes, strict=True):
                results[i] = outcome
        for outcome in results:
            kind = "ok" if outcome.vector is not None else "unavailable" if outcome.unavailable else "failed"
            EMBEDDED.labels("openai", kind).inc()
        return results

    async def _batch(self, batch: list[str]) -> list[Embedded]:
        if not budget_left(await self.budget.used(today()), self.settings.embedding_daily_token_budget):
            return [Embedded(unavailable=BUDGET_SPENT)] * len(batch)
        settings = self.settings
        started = time.perf_counter()
        try:
            vectors = await with_retries(
                lambda: self._request(batch),
                attempts=settings.embedding_attempts,
                wait_initial_s=settings.embedding_retry_initial_s,
                wait_max_s=settings.embedding_retry_max_s,
            )
        except openai.APIError as exc:
            if is_unavailable(exc):
                return [Embedded(unavailable=unavailable_reason(exc))] * len(batch)
            if len(batch) > 1:
                return [outcome for text in batch for outcome in await self._batch([text])]
            status = getattr(exc, "status_code", None)
            log.warning("embedding rejected", extra={"status": status, "error": str(exc)})
            return [Embedded(failure=f"endpoint rejected the text ({status}): {exc}"[:2000])]
        except BadAnswer as exc:
            return [Embedded(failure=str(exc))] * len(batch)
        finally:
            EMBED_SECONDS.labels("openai").observe(time.perf_counter() - started)
        return [Embedded(vector=row) for row in vectors]

    async def _request(self, batch: list[str]) -> np.ndarray:
        request: dict[str, Any] = {"model": self.settings.embedding_model, "input": batch, "encoding_format": "float"}
        if self.settings.embedding_send_dimensions:
            request["dimensions"] = self.settings.embedding_dimensions
        async with self.slots:
            try:
                response = await self.client.embeddings.create(**request)
            except openai.APIError as exc:
                EMBEDDING_CALLS.labels(error_kind(exc)).inc()
                raise
        EMBEDDING_CALLS.labels("ok").inc()
        tokens = response.usage.prompt_tokens if response.usage else 0
        EMBEDDING_TOKENS.inc(tokens)
        EMBEDDING_COST.inc(estimated_cost(tokens, 0, self.settings.embedding_price_per_1k, 0))
        await self.budget.spend(today(), tokens)
        return self._vectors(response.data, len(batch))

    def _vectors(self, data: Sequence[Any], expected: int) -> np.ndarray:
        rows = sorted(data, key=lambda item: item.index)
        if [item.index for item in rows] != list(range(expected)):
            raise BadAnswer(f"endpoint answered {len(rows)} vectors for {expected} texts")
        lengths = {len(item.embedding) for item in rows}
        if lengths != {self.dimensions}:
            raise BadAnswer(
                f"endpoint answered vectors of {sorted(lengths)} numbers, not EMBEDDING_DIMENSIONS={self.dimensions}"
            )
        vectors = np.array([item.embedding for item in rows], dtype=np.float32)
        if not np.isfinite(vectors).all() or not np.linalg.norm(vectors, axis=1).all():
            raise BadAnswer("endpoint answered a zero or non-finite vector")
        return l2_normalised(vectors)

    async def close(self) -> None:
        await self.client.close()


def make_embedding_client(settings: EmbeddingSettings) -> AsyncOpenAI:
    """The client of the embedding endpoint; its own retries are off because EndpointEmbedder retries and counts."""
    key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else "not-needed"
    return AsyncOpenAI(
        base_url=settings.embedding_base_url, api_key=key, timeout=settings.embedding_timeout_s, max_retries=0
    )
