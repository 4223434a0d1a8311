"""A polite fetcher over httpx's MockTransport that records every URL asked for: a source's pages read without a
server, from a handler serving recorded bodies."""

from collections.abc import Callable

import httpx

from services.harvester.http import PoliteFetcher


def recording_fetcher(handler: Callable[[httpx.Request], httpx.Response]) -> tuple[PoliteFetcher, list[httpx.URL]]:
    """The fetcher (no pause, no retry) and the list its requests' URLs are appended to."""
    seen: list[httpx.URL] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return handler(request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(record))
    return PoliteFetcher(client, min_interval_s=0, retries=0, retry_after_max_s=1), seen
