"""An httpx transport that reaches only what the outbound policy allows (papertrail/outbound.py): each request's URL
is checked, and each connection resolves its host, checks every address and connects to the checked one, so a name
that answers a public address to one lookup and 127.0.0.1 to the next (DNS rebinding) does not pass. The URL is not
rewritten: the Host header, TLS SNI and certificate checks keep the name."""

import asyncio
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import httpx

from papertrail.outbound import IPAddress, OutboundPolicy, read_address

# a host name and port → the addresses to try; the default asks the system resolver (tests inject their own)
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)


async def system_resolver(host: str, port: int) -> list[IPAddress]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[IPAddress] = []
    for *_, sockaddr in infos:
        address = read_address(str(sockaddr[0]))
        if address is not None and address not in found:
            found.append(address)
    return found


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, with every TCP connection resolved and checked here first."""

    def __init__(self, policy: OutboundPolicy, resolver: Resolver) -> None:
        self.policy = policy
        self.resolver = resolver
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                addresses = await self.resolver(host, port)
        except (OSError, TimeoutError) as error:
            raise httpcore.ConnectError(f"{host} does not resolve") from error
        address = self.policy.check_resolved(host, addresses)  # OutboundRefused
        return await self.inner.connect_tcp(str(address), port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("no Unix sockets on a user's behalf")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport (no proxies from the environment: a proxy would connect for us, unchecked), over the
    guarded network backend. OutboundRefused (a ValueError, not an httpx error) says a request was not sent."""

    def __init__(
        self,
        policy: OutboundPolicy,
        resolver: Resolver = system_resolver,
        *,
        limits: httpx.Limits = LIMITS,
    ) -> None:
        super().__init__(trust_env=False, limits=limits)
        self.policy = policy
        # httpx takes no network backend; its pool, rebuilt with the same options and ours
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedBackend(policy, resolver),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        self.policy.check_parts(url.scheme, bool(url.userinfo), url.host, url.port or 0)
        return await super().handle_async_request(request)
