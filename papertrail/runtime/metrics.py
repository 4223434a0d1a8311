"""Prometheus metrics every service shares; service-specific metrics live beside their service."""

import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

MESSAGES_HANDLED = Counter(
    "papertrail_messages_handled_total",
    "Messages consumed, by outcome: ok, retried (transient error, redelivered) or dead_lettered.",
    ["service", "topic", "outcome"],
)
DEAD_LETTERS = Counter(
    "papertrail_dead_letters_total",
    "Messages sent to a dead-letter topic because they could not be handled.",
    ["service", "topic"],
)
HANDLE_SECONDS = Histogram(
    "papertrail_message_handle_seconds",
    "Time to handle one consumed message, store and emit included.",
    ["service", "topic"],
)
HTTP_REQUESTS = Counter(
    "papertrail_http_requests_total",
    "HTTP requests served, by route template and status code.",
    ["service", "route", "status"],
)
HTTP_SECONDS = Histogram(
    "papertrail_http_request_seconds",
    "HTTP request latency by route template.",
    ["service", "route"],
)
CONSUMER_LAG = Gauge(
    "papertrail_consumer_lag",
    "Messages not yet committed by the service's consumer group: end offset minus committed offset, summed over "
    "the topic's partitions (refreshed every LAG_INTERVAL_S; every replica reports the same group, take max).",
    ["service", "topic"],
)


class RequestMetrics:
    """ASGI middleware counting requests and their latency by route template. Plain ASGI rather than
    Starlette's BaseHTTPMiddleware, which wraps every response in an extra task and stream."""

    def __init__(self, app: Any, service: str) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client sees if the app raises before answering

        async def send_counting(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_counting)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")  # set by the router once it matched
            HTTP_REQUESTS.labels(self.service, route, str(status)).inc()
            HTTP_SECONDS.labels(self.service, route).observe(time.perf_counter() - started)
