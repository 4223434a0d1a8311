"""Polite HTTP to sources: one rate limiter per source, Retry-After honoured, 5xx and timeouts retried."""

import datetime as dt
import email.utils
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx
import stamina
from aiolimiter import AsyncLimiter

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class CappedBody:
    """A body read under a cap: its bytes, or why there are none."""

    content: bytes = b""
    missing: bool = False  # 404
    over_cap: bool = False  # larger than the cap: not read past it
    not_modified: bool = False  # 304 to a conditional request
    etag: str | None = None


class SourceUnavailable(Exception):
    """The source failed in a way retries did not fix (or that retrying cannot fix, like a 404); `status` is the
    HTTP status it last answered with, when it answered."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class _RetryableStatus(Exception):
    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: either delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    now = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - now).total_seconds())


class PoliteFetcher:
    """GETs for one source, never more often than its limiter allows, retrying what is worth retrying."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        min_interval_s: float,
        retries: int,
        retry_after_max_s: float,
    ) -> None:
        self.client = client
        # One request per interval; a zero interval means no limit (replay servers, tests).
        self.limiter = AsyncLimiter(1, min_interval_s) if min_interval_s > 0 else None
        self.retries = retries
        self.retry_after_max_s = retry_after_max_s

    def _backoff(self, exc: Exception) -> bool | float:
        if isinstance(exc, _RetryableStatus):
            if exc.retry_after is not None:
                return min(exc.retry_after, self.retry_after_max_s)
            return True
        return isinstance(exc, httpx.TimeoutException | httpx.TransportError)

    async def get(
        self,
        url: str,
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        *,
        missing_ok: bool = False,
    ) -> httpx.Response:
        """The response (2xx, or 304 to a conditional request, or with `missing_ok` a 404: a source whose files
        are named by date has none for some days); retries 429 / 5xx / timeouts, else raises."""
        return await self._retrying(url, lambda: self._get_once(url, params, headers, missing_ok))

    async def post_json(
        self, url: str, body: object, params: dict[str, str] | None = None, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        """The 2xx response to a POST of `body` as JSON (a batch lookup); retries and raises as `get` does."""
        return await self._retrying(url, lambda: self._post_once(url, body, params, headers))

    async def get_capped(self, url: str, *, max_bytes: int, headers: dict[str, str] | None = None) -> CappedBody:
        """A body read no further than `max_bytes` (a larger one, by its Content-Length or as it streams, is
        dropped unread: `over_cap`); a 404 is `missing`, a 304 to a conditional request `not_modified`. Retries and
        raises as `get` does."""
        return await self._retrying(url, lambda: self._get_capped_once(url, max_bytes, headers))

    async def _retrying(self, url: str, once: Callable[[], Awaitable[T]]) -> T:
        try:
            async for attempt in stamina.retry_context(
                on=self._backoff, attempts=self.retries + 1, timeout=None, wait_initial=1.0, wait_max=60.0
            ):
                with attempt:
                    return await once()
        except _RetryableStatus as exc:
            raise SourceUnavailable(f"{url}: {exc} after {self.retries + 1} attempts", exc.status) from exc
        except httpx.HTTPError as exc:
            raise SourceUnavailable(f"{url}: {type(exc).__name__}: {exc}") from exc
        raise AssertionError("unreachable: stamina either returns or raises")

    async def _get_once(
        self, url: str, params: dict[str, str] | None, headers: dict[str, str] | None, missing_ok: bool = False
    ) -> httpx.Response:
        if self.limiter is not None:
            await self.limiter.acquire()
        response = await self.client.get(url, params=params, headers=headers)
        if response.status_code == 404 and missing_ok:
            return response
        return _checked(response)

    async def _post_once(
        self, url: str, body: object, params: dict[str, str] | None, headers: dict[str, str] | None
    ) -> httpx.Response:
        if self.limiter is not None:
            await self.limiter.acquire()
        return _checked(await self.client.post(url, json=body, params=params, headers=headers))

    async def _get_capped_once(self, url: str, max_bytes: int, headers: dict[str, str] | None) -> CappedBody:
        if self.limiter is not None:
            await self.limiter.acquire()
        async with self.client.stream("GET", url, headers=headers) as response:
            if response.status_code >= 500 or response.status_code == 429:
                raise _RetryableStatus(response.status_code, parse_retry_after(response.headers.get("Retry-After")))
            if response.status_code == 404:
                return CappedBody(missing=True)
            if response.status_code >= 400:
                raise SourceUnavailable(f"{response.url}: HTTP {response.status_code}", response.status_code)
            etag = response.headers.get("ETag")
            if response.status_code == 304:
                return CappedBody(not_modified=True, etag=etag)
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                return CappedBody(over_cap=True)
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > max_bytes:
                    return CappedBody(over_cap=True)
            return CappedBody(content=bytes(body), etag=etag)


def _checked(response: httpx.Response) -> httpx.Response:
    """The response if it succeeded; a 429 or 5xx raised to be retried, another error raised as it is."""
    if response.status_code >= 500 or response.status_code == 429:
        raise _RetryableStatus(response.status_code, parse_retry_after(response.headers.get("Retry-After")))
    if response.status_code >= 400:
        raise SourceUnavailable(f"{response.url}: HTTP {response.status_code}", response.status_code)
    return response
