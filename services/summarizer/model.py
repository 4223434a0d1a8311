"""The OpenAI-compatible endpoint: one summary per paper, retried on 429/5xx/timeouts, repaired once, measured."""

import asyncio
import email.utils
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import openai
import stamina
from openai import AsyncOpenAI

from schemas.paper import Paper
from services.summarizer.metrics import CALL_SECONDS, COST, FAILURES, MODEL_CALLS, TOKENS
from services.summarizer.policy import estimated_cost
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

# Status codes that mean "the key or endpoint is misconfigured": worth waiting for an operator, not failing.
_UNAVAILABLE_STATUSES = frozenset({401, 403, 404})


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as seconds: either a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def error_kind(exc: BaseException) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection"
    if isinstance(exc, openai.RateLimitError):
        return "rate_limited"
    if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
        return "server_error"
    return "rejected"


def _is_transient(exc: BaseException) -> bool:
    return error_kind(exc) in {"timeout", "connection", "rate_limited", "server_error"}


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
        self._backoff_cap = settings.openai_retry_max_s
        # The concurrency limit covers requests in flight, not backoff waits: a paper waiting out a 429
        # does not hold a slot another paper could use.
        self.slots = asyncio.Semaphore(settings.summary_concurrency)

    async def summarize(self, paper: Paper) -> Attempt:
        attempt = Attempt()
        messages = build_messages(paper, self.settings.openai_output)
        try:
            text = await self._complete(messages, attempt)
            try:
                attempt.answer = parse_answer(text)
            except InvalidAnswer as first:
                FAILURES.labels(first.kind).inc()
                log.info("invalid answer, asking once more", extra={"paper_id": paper.id, "problem": first.problem})
                repaired = await self._complete(repair_messages(messages, text or "", first.problem), attempt)
                attempt.answer = parse_answer(repaired)
        except InvalidAnswer as second:
            FAILURES.labels(second.kind).inc()
            attempt.failure = f"{second.kind} after one repair attempt: {second.problem}"[:2000]
        except Refused as refusal:
            FAILURES.labels("refusal").inc()
            attempt.failure = f"refused: {refusal}"[:2000]
        except openai.APIError as exc:
            kind = error_kind(exc)
            status = getattr(exc, "status_code", None)
            if _is_transient(exc) or status in _UNAVAILABLE_STATUSES:
                FAILURES.labels("unavailable").inc()
                attempt.unavailable = f"endpoint unavailable ({kind}{f' {status}' if status else ''}): {exc}"[:2000]
            else:
                attempt.failure = f"endpoint rejected the request ({status}): {exc}"[:2000]
        return attempt

    def _backoff(self, exc: Exception) -> bool | float:
        """stamina's hook: retry transient errors; wait what Retry-After asks when the server says so."""
        if not _is_transient(exc):
            return False
        response = getattr(exc, "response", None)
        seconds = retry_after_seconds(response.headers.get("retry-after") if response is not None else None)
        return True if seconds is None else min(seconds, self._backoff_cap)

    async def _complete(self, messages: list[dict[str, str]], attempt: Attempt) -> str | None:
        settings = self.settings
        async for retry in stamina.retry_context(
            on=self._backoff,
            attempts=settings.openai_attempts,
            timeout=None,
            wait_initial=settings.openai_retry_initial_s,
            wait_max=settings.openai_retry_max_s,
        ):
            with retry:
                return await self._request(messages, attempt)
        raise AssertionError("unreachable: stamina re-raises the last error")

    async def _request(self, messages: list[dict[str, str]], attempt: Attempt) -> str | None:
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


def make_openai_client(settings: SummarizerSettings) -> AsyncOpenAI:
    """The one AsyncOpenAI client; its built-in retries are off because SummaryModel retries and counts."""
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"
    return AsyncOpenAI(base_url=settings.openai_base_url, api_key=key, timeout=settings.openai_timeout_s, max_retries=0)
