"""Calling an OpenAI-compatible endpoint, for summaries and embeddings alike: what is worth another attempt, how long
to wait (Retry-After honoured), and the daily token budget."""

from __future__ import annotations

import email.utils
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

import stamina

# openai is imported where an error is classified: every service imports this module (the budget's day, through
# papertrail/embedding/embedder.py), and openai's types take a third of a service's start when no endpoint is
# configured.
if TYPE_CHECKING:
    import openai

# Status codes that mean "the key or endpoint is misconfigured": worth waiting for an operator, not failing.
UNAVAILABLE_STATUSES = frozenset({401, 403, 404})

T = TypeVar("T")


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
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection"
    if isinstance(exc, openai.RateLimitError):
        return "rate_limited"
    if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
        return "server_error"
    return "rejected"


def is_transient(exc: BaseException) -> bool:
    return error_kind(exc) in {"timeout", "connection", "rate_limited", "server_error"}


def is_unavailable(exc: openai.APIError) -> bool:
    """The endpoint cannot answer now (down, overloaded, misconfigured): the work waits instead of failing."""
    return is_transient(exc) or getattr(exc, "status_code", None) in UNAVAILABLE_STATUSES


def unavailable_reason(exc: openai.APIError) -> str:
    status = getattr(exc, "status_code", None)
    return f"endpoint unavailable ({error_kind(exc)}{f' {status}' if status else ''}): {exc}"[:2000]


async def with_retries(
    request: Callable[[], Awaitable[T]], *, attempts: int, wait_initial_s: float, wait_max_s: float
) -> T:
    """`request()` retried on 429, 5xx, timeouts and lost connections, waiting what Retry-After asks (capped at
    `wait_max_s`) or backing off exponentially; any other error, or the last one, is raised."""

    def backoff(exc: Exception) -> bool | float:
        if not is_transient(exc):
            return False
        response = getattr(exc, "response", None)
        seconds = retry_after_seconds(response.headers.get("retry-after") if response is not None else None)
        return True if seconds is None else min(seconds, wait_max_s)

    async for retry in stamina.retry_context(
        on=backoff, attempts=attempts, timeout=None, wait_initial=wait_initial_s, wait_max=wait_max_s
    ):
        with retry:
            return await request()
    raise AssertionError("unreachable: stamina re-raises the last error")


def budget_left(tokens_used: int, daily_budget: int) -> bool:
    """0 means unlimited; one call may overshoot the budget by its own size, never more."""
    return daily_budget == 0 or tokens_used < daily_budget


def budget_day(now: datetime) -> str:
    """Budgets reset at midnight UTC."""
    return now.strftime("%Y-%m-%d")


def estimated_cost(tokens_in: int, tokens_out: int, price_in_per_1k: float, price_out_per_1k: float) -> float:
    return tokens_in / 1000 * price_in_per_1k + tokens_out / 1000 * price_out_per_1k
