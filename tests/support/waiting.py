"""Waiting on a condition with a timeout: tests wait for what they expect, never a fixed sleep."""

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class GiveUp(Exception):
    """Raised by a condition that will never become true (a process died): `wait_until` stops at once."""


def wait_until(
    condition: Callable[[], T | None], timeout: float = 60, interval: float = 0.25, what: str = "condition"
) -> T:
    """Poll until `condition()` returns something truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = condition()
        except GiveUp:
            raise
        except Exception as exc:  # the thing waited for may not answer yet
            last_error = exc
        else:
            if result:
                return result
        time.sleep(interval)
    raise AssertionError(
        f"timed out after {timeout}s waiting for {what}" + (f" (last error: {last_error})" if last_error else "")
    )


async def wait_until_async(condition: Callable[[], Awaitable[T | None]], within: float, what: str) -> T:
    """The async twin of `wait_until`: await `condition()` until it gives something truthy."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        result = await condition()
        if result:
            return result
        await asyncio.sleep(0.25)
    raise AssertionError(f"timed out after {within}s waiting for {what}")
