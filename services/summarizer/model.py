"""The OpenAI-compatible endpoint: one summary per paper, retried on 429/5xx/timeouts, repaired once, measured."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# openai is imported with the client: a summarizer with no endpoint configured never loads it (a third of its start).
if TYPE_CHECKING:
    from openai import AsyncOpenAI

from papertrail.runtime.endpoint import error_kind, estimated_cost, is_unavailable, unavailable_reason, with_retries
from papertrail.runtime.endpoint import retry_after_seconds as retry_after_seconds
from schemas.paper import Paper
from services.summarizer.checks import check_answer
from services.summarizer.metrics import CALL_SECONDS, CHECK_FAILURES, COST, FAILURES, MODEL_CALLS, TOKENS
from services.summarizer.prompt import (
    InvalidAnswer,
    SummaryAnswer,
    build_messages,
    parse_answer,
    repair_messages,
    response_format,
)
from services.summarizer.settings import SummarizerSettings

log = logging.getLogger("papertrail.summarizer.model")


class Refused(Exception):
    """The model declined to answer (the `refusal` field of structured outputs)."""


@dataclass(slots=True)
class Attempt:
    """What one paper's summarizing came to: an answer, a failure (final) or unavailability (try later)."""

    answer: SummaryAnswer | None = None
    failure: str | None = None
    unavailable: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0


class SummaryModel:
    """The endpoint with its limits. The openai client's own retries are off: stamina retries, honouring
    Retry-After, and every request it sends is counted."""

    def __init__(self, client: AsyncOpenAI, settings: SummarizerSettings) -> None:
        assert settings.openai_model is not None
        self.client = client
        self.settings = settings
        self.model = settings.openai_model
        # The concurrency limit covers requests in flight, not backoff waits: a paper waiting out a 429
        # does not hold a slot another paper could use.
        self.slots = asyncio.Semaphore(settings.summary_concurrency)

    async def summarize(self, paper: Paper) -> Attempt:
        import openai

        attempt = Attempt()
        messages = build_messages(paper, self.settings.openai_output)
        try:
            text = await self._complete(messages, attempt)
            try:
                attempt.answer = checked_answer(text, paper)
            except InvalidAnswer as first:
                FAILURES.labels(first.kind).inc()
                log.info("invalid answer, asking once more", extra={"paper_id": paper.id, "problem": first.problem})
                repaired = await self._complete(repair_messages(messages, text or "", first.problem), attempt)
                attempt.answer = checked_answer(repaired, paper)
        except InvalidAnswer as second:
            FAILURES.labels(second.kind).inc()
            attempt.failure = f"{second.kind} after one repair attempt: {second.problem}"[:2000]
        except Refused as refusal:
            FAILURES.labels("refusal").inc()
            attempt.failure = f"refused: {refusal}"[:2000]
        except openai.APIError as exc:
            if is_unavailable(exc):
                FAILURES.labels("unavailable").inc()
                attempt.unavailable = unavailable_reason(exc)
            else:
                status = getattr(exc, "status_code", None)
                attempt.failure = f"endpoint rejected the request ({status}): {exc}"[:2000]
        return attempt

    async def _complete(self, messages: list[dict[str, str]], attempt: Attempt) -> str | None:
        settings = self.settings
        return await with_retries(
            lambda: self._request(messages, attempt),
            attempts=settings.openai_attempts,
            wait_initial_s=settings.openai_retry_initial_s,
            wait_max_s=settings.openai_retry_max_s,
        )

    async def _request(self, messages: list[dict[str, str]], attempt: Attempt) -> str | None:
        import openai

        settings = self.settings
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "response_format": response_format(settings.openai_output),
            "temperature": settings.openai_temperature,
            "max_tokens": settings.openai_max_output_tokens,
        }
        async with self.slots:
            started = time.perf_counter()
            try:
                response = await self.client.chat.completions.create(**request)
            except openai.APIError as exc:
                kind = error_kind(exc)
                MODEL_CALLS.labels(kind).inc()
                FAILURES.labels(kind).inc()
                raise
            finally:
                CALL_SECONDS.observe(time.perf_counter() - started)
        MODEL_CALLS.labels("ok").inc()
        usage = response.usage
        tokens_in = usage.prompt_tokens if usage else 0
        tokens_out = usage.completion_tokens if usage else 0
        attempt.tokens_in += tokens_in
        attempt.tokens_out += tokens_out
        TOKENS.labels("in").inc(tokens_in)
        TOKENS.labels("out").inc(tokens_out)
        COST.inc(estimated_cost(tokens_in, tokens_out, settings.price_input_per_1k, settings.price_output_per_1k))
        if not response.choices:
            return None
        message = response.choices[0].message
        if getattr(message, "refusal", None):
            raise Refused(str(message.refusal))
        return message.content


def checked_answer(text: str | None, paper: Paper) -> SummaryAnswer:
    """The answer parsed and checked; InvalidAnswer names every problem, for the repair request or the failure."""
    answer = parse_answer(text)
    if failures := check_answer(answer, paper):
        for failure in failures:
            CHECK_FAILURES.labels(failure.check).inc()
        raise InvalidAnswer("checks", "; ".join(f"{f.check}: {f.problem}" for f in failures))
    return answer


def make_openai_client(settings: SummarizerSettings) -> AsyncOpenAI:
    """The one AsyncOpenAI client; its built-in retries are off because SummaryModel retries and counts."""
    from openai import AsyncOpenAI

    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"
    return AsyncOpenAI(base_url=settings.openai_base_url, api_key=key, timeout=settings.openai_timeout_s, max_retries=0)
