"""The guarded transport over a real local HTTP server: a name that resolves to a refused address is refused when
connecting, even though the URL passed the write-time check; an allowed name is reached with its own Host header."""

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import ip_address

import httpx
import pytest

from papertrail.runtime.guarded_http import CONNECT_TO, GuardedTransport, system_resolver
from papertrail.runtime.outbound import IPAddress, OutboundPolicy, OutboundRefused


@pytest.fixture
def server() -> Iterator[tuple[int, list[str]]]:
    hosts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            hosts.append(self.headers["host"])
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_port, hosts
    httpd.shutdown()
    httpd.server_close()


def resolving(answers: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    lookups: list[str] = []

    async def resolve(host: str, port: int) -> list[IPAddress]:
        lookups.append(host)
        return [ip_address(a) for a in answers[host]]

    return resolve, lookups


async def test_a_name_resolving_to_loopback_is_refused_when_connecting_though_it_passed_at_write_time(
    server: tuple[int, list[str]],
) -> None:
    port, hosts = server
    url = f"http://hooks.example:{port}/hook"
    OutboundPolicy().check_url(url)  # a name: nothing to refuse before it is resolved
    resolve, lookups = resolving({"hooks.example": ["93.184.215.14", "127.0.0.1"]})
    async with httpx.AsyncClient(transport=GuardedTransport(OutboundPolicy(), resolve)) as client:
        with pytest.raises(OutboundRefused, match=r"^hooks\.example \(127\.0\.0\.1\) is a loopback address"):
            await client.post(url, content=b"{}")
    assert lookups == ["hooks.example"] and hosts == []  # resolved once, by the transport, and nothing sent


async def test_literal_addresses_and_credentials_are_refused_before_connecting(server: tuple[int, list[str]]) -> None:
    port, hosts = server
    async with httpx.AsyncClient(transport=GuardedTransport(OutboundPolicy())) as client:
        for url, rule in [
            (f"http://127.0.0.1:{port}/", "127.0.0.1 is a loopback address"),
            (f"http://[::ffff:127.0.0.1]:{port}/", "loopback"),
            (f"http://2130706433:{port}/", "2130706433 (127.0.0.1) is a loopback address"),
            (f"http://localhost:{port}/", "localhost is a loopback address"),
            (f"http://u:p@example.org:{port}/", "user name or password"),
        ]:
            with pytest.raises(OutboundRefused, match=re.escape(rule)):
                await client.post(url, content=b"{}")
    assert hosts == []


async def test_an_allowed_name_is_reached_at_its_checked_address_with_its_own_host_header(
    server: tuple[int, list[str]],
) -> None:
    port, hosts = server
    resolve, _ = resolving({"hooks.lab.internal": ["127.0.0.1"]})
    policy = OutboundPolicy.from_setting("hooks.lab.internal")
    async with httpx.AsyncClient(transport=GuardedTransport(policy, resolve)) as client:
        response = await client.post(f"http://hooks.lab.internal:{port}/hook", content=b"{}")
    assert response.status_code == 204
    assert hosts == [f"hooks.lab.internal:{port}"]


async def test_the_system_resolver_answers_addresses() -> None:
    assert ip_address("127.0.0.1") in await system_resolver("127.0.0.1", 80)


async def test_a_checked_address_given_to_the_request_is_connected_to_without_a_second_lookup(
    server: tuple[int, list[str]],
) -> None:
    """What the webhook dispatcher counts a try against is where the try goes: a name answering another address to
    a second lookup does not move it."""
    port, hosts = server
    resolve, lookups = resolving({"hooks.example": ["127.0.0.1"]})
    policy = OutboundPolicy.from_setting("127.0.0.0/8")
    url = f"http://hooks.example:{port}/hook"
    async with httpx.AsyncClient(transport=(transport := GuardedTransport(policy, resolve))) as client:
        address = await transport.checked_address(url, timeout=5)
        assert address == ip_address("127.0.0.1") and lookups == ["hooks.example"]
        response = await client.post(url, content=b"{}", extensions={CONNECT_TO: address})
    assert response.status_code == 204 and hosts == [f"hooks.example:{port}"]
    assert lookups == ["hooks.example"]  # the request did not resolve the name again


async def test_a_given_address_is_checked_again_and_a_refused_url_has_no_address(
    server: tuple[int, list[str]],
) -> None:
    port, hosts = server
    resolve, _ = resolving({"hooks.example": ["127.0.0.1"]})
    async with httpx.AsyncClient(transport=(transport := GuardedTransport(OutboundPolicy(), resolve))) as client:
        with pytest.raises(OutboundRefused, match=r"hooks\.example \(127\.0\.0\.1\) is a loopback address"):
            await transport.checked_address(f"http://hooks.example:{port}/hook", timeout=5)
        with pytest.raises(OutboundRefused, match="loopback"):
            await client.post(
                f"http://hooks.example:{port}/hook", content=b"{}", extensions={CONNECT_TO: ip_address("127.0.0.1")}
            )
    assert hosts == []
