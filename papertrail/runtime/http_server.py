"""The services' HTTP/1.1 connections as uvicorn serves them (httptools), with the two guards it lacks: a request's
line and headers are capped in size (431 past HTTP_MAX_HEADER_BYTES; uvicorn's h11_max_incomplete_event_size caps
only its h11 parser, not the httptools one it runs here) and in time (408 when they have not all arrived
HTTP_HEADER_TIMEOUT_S after the connection opened or the request began), so a client trickling headers cannot hold
a connection for ever. Bodies have their own read timeout (services/query/http_guards.py); a front proxy adds its
own limits before these (docs/operations.md)."""

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HeadersRefused(Exception):
    """Raised from a parser callback to stop reading a request already answered (431)."""


def _close_with(transport: asyncio.Transport, status: bytes) -> None:
    body = status.split(b" ", 1)[1]
    transport.write(
        b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    transport.close()


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a size and a time limit on a request's line and headers; `guarded` makes
    the class with the limits of the settings."""

    max_header_bytes = 16 * 1024
    header_timeout_s = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_bytes = 0
        self._header_timer: asyncio.TimerHandle | None = None
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()  # a connection that sends nothing at all is closed too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._arm_header_timer()

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm_header_timer()
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        if not self._refused:  # refused already: nothing more of this connection is read
            super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        if not self._refused:  # the parser's stop after a 431 is no bad request of the client's
            super().send_400_response(msg)

    def _count(self, size: int) -> None:
        self._header_bytes += size
        if self._header_bytes > self.max_header_bytes:
            self._refuse(b"431 Request Header Fields Too Large")
            raise HeadersRefused  # stops the parser: this request never reaches the app

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        self._refuse(b"408 Request Timeout")

    def _refuse(self, status: bytes) -> None:
        self._disarm_header_timer()
        if not self._refused:
            self._refused = True
            if not self.transport.is_closing():
                _close_with(self.transport, status)


def guarded(max_header_bytes: int, header_timeout_s: float) -> type[GuardedHttpProtocol]:
    """The protocol class for uvicorn's `http=`, with these limits."""
    return type(
        "GuardedHttpProtocol",
        (GuardedHttpProtocol,),
        {"max_header_bytes": max_header_bytes, "header_timeout_s": header_timeout_s},
    )
