"""What every answer of the query service carries and what every request may send: the security headers (a strict
Content-Security-Policy, nosniff, no framing, no referrer to other sites) and a cap on request bodies, refused with
413 before the body is read (by Content-Length) or as soon as a streamed body passes it, and with 408 when the next
part of a body is BODY_READ_TIMEOUT_S late (a client trickling a body holds no connection for ever). Plain ASGI
middleware, as papertrail.runtime.metrics.RequestMetrics, so neither wraps responses in an extra stream."""

import asyncio
from typing import Any

import orjson
from starlette.exceptions import HTTPException

from papertrail.runtime.wording import BothLanguages
from services.query.http.problems import API_PATHS, PROBLEM_JSON

# Scripts and styles only from this site (KaTeX and Swagger UI are served from /static): no inline script runs.
# Inline styles stay allowed: KaTeX's formulas and Swagger UI set style attributes.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers that predate it
    (b"referrer-policy", b"same-origin"),  # feed and reset URLs carry keys: never sent to another site
]


class SecurityHeaders:
    """ASGI middleware: the security headers on every HTTP answer (pages, API, feeds, static files)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                named = {name for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in named]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyCap:
    """ASGI middleware: a request body larger than its route's cap is refused with 413 Content Too Large, before
    the app runs when Content-Length says so, else (a chunked body) as soon as the bytes received pass the cap; a
    body whose next part takes longer than `read_timeout_s` to arrive with 408 Request Timeout. `caps` names the
    paths with caps of their own (the library imports); every other path has `default`."""

    def __init__(self, app: Any, default: int, caps: dict[str, int], read_timeout_s: float) -> None:
        self.app = app
        self.default = default
        self.caps = caps
        self.read_timeout_s = read_timeout_s

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = self.caps.get(scope["path"], self.default)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            await _too_large(scope, send, cap)
            return
        received, body_done = 0, False

        async def receive_counting() -> dict[str, Any]:
            nonlocal received, body_done
            if body_done:  # past the body: what is awaited now is the client leaving, however late
                return dict(await receive())
            try:
                message: dict[str, Any] = await asyncio.wait_for(receive(), self.read_timeout_s)
            except TimeoutError:  # answered by the app's own handlers, as the 413 below
                raise HTTPException(
                    408, f"the request body stalled: no part of it came for {self.read_timeout_s:g} s"
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if received > cap:  # answered by the app's own handlers: a problem from the API
                    raise HTTPException(413, too_large(cap))
            else:
                body_done = True
            return message

        await self.app(scope, receive_counting, send)


def too_large(cap: int) -> str:
    return f"the request body is larger than this route takes ({cap:,} bytes)"


async def _too_large(scope: dict[str, Any], send: Any, cap: int) -> None:
    """413 without reading the body: problem details under the API, a short page elsewhere."""
    if scope["path"].startswith(API_PATHS):
        problem = {"type": "about:blank", "title": "Content Too Large", "status": 413, "detail": too_large(cap),
                   "instance": scope["path"]}  # fmt: skip
        body, kind = orjson.dumps(problem), PROBLEM_JSON.encode()
    else:
        said = BothLanguages(" ").gettext("The request is too large.")  # no page, no reader's language: both
        page = f"<!doctype html><meta charset=utf-8><title>413</title><p>{said} {too_large(cap)}</p>"
        body, kind = page.encode(), b"text/html; charset=utf-8"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
