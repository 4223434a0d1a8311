"""An httpx transport that reaches only what the outbound policy allows (papertrail/runtime/outbound.py): each
request's URL
is checked, and each connection resolves its host, checks every address and connects to the checked one, so a name
that answers a public address to one lookup and 127.0.0.1 to the next (DNS rebinding) does not pass. The URL is not
rewritten: the Host header, TLS SNI and certificate checks keep the name.

A caller that must know the address before it sends (the webhook dispatcher counts tries per receiving address) asks
`GuardedTransport.checked_address` and passes what it got as the request's CONNECT_TO extension: the request then
connects there, checked again, with no second lookup that could answer otherwise."""

import asyncio
import socket
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

from papertrail.runtime.outbound import IPAddress, OutboundPolicy, OutboundRefused, read_address

# a host name and port → the addresses to try; the default asks the system resolver (tests inject their own)
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)
# a request extension: the address `checked_address` gave for the request's URL, to connect to without resolving again
CONNECT_TO = "papertrail.connect_to"
# the CONNECT_TO of the request being sent: httpcore connects in the task that sends, inside handle_async_request
_connect_to: ContextVar[IPAddress | None] = ContextVar("connect_to", default=None)


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
        given = _connect_to.get()
        if given is not None:
            address = self.policy.check_resolved(host, [given])  # checked when it was given; and again here
        else:
            try:
                address = await self.checked_address(host, port, timeout)
            except (OSError, TimeoutError) as error:
                raise httpcore.ConnectError(f"{host} does not resolve") from error
        return await self.inner.connect_tcp(str(address), port, timeout, local_address, socket_options)

    async def checked_address(self, host: str, port: int, timeout: float | None) -> IPAddress:  # noqa: ASYNC109
        """The address to connect to, once every address the host resolves to passes the policy (OutboundRefused
        names the rule; OSError or TimeoutError: it did not resolve)."""
        async with asyncio.timeout(timeout):
            addresses = await self.resolver(host, port)
        return self.policy.check_resolved(host, addresses)

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
        self.backend = GuardedBackend(policy, resolver)
        # httpx takes no network backend; its pool, rebuilt with the same options and ours
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=self.backend,
        )

    async def checked_address(self, url: str, timeout: float | None) -> IPAddress:  # noqa: ASYNC109
        """The address a request to `url` would connect to, resolved by this transport's resolver and checked
        (OutboundRefused; OSError or TimeoutError when it does not resolve). Pass it as the request's CONNECT_TO."""
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as error:
            raise OutboundRefused(f"{url!r} is no URL ({error})") from None
        self.policy.check_parts(parsed.scheme, bool(parsed.userinfo), parsed.host, parsed.port or 0)
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        return await self.backend.checked_address(parsed.raw_host.decode("ascii"), port, timeout)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        self.policy.check_parts(url.scheme, bool(url.userinfo), url.host, url.port or 0)
        token = _connect_to.set(request.extensions.get(CONNECT_TO))
        try:  # the connection, if a new one is made, is made in here (its response's body is read later)
            return await super().handle_async_request(request)
        finally:
            _connect_to.reset(token)
