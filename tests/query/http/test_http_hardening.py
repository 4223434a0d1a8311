"""What anyone can send the query service without signing in, over a real service process: days at the ends of the
calendar and deeply nested follow expressions are answered (never a 500), every answer carries the security headers,
a body past its route's cap is refused with 413 before it is read (declared or streamed), headers past their cap
with 431, headers or a body that stall with 408, /metrics is shown only to the allowed networks, a feed's self link
never echoes the Host header, and /docs loads Swagger UI from this site (and renders under the policy, in headless
Chromium where it is installed)."""

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from lxml import etree, html

from services.query.http.guards import CONTENT_SECURITY_POLICY
from tests.support.browsing import CHROMIUM, launch_chromium
from tests.support.servers import Servers
from tests.support.services import create_user, running_service

pytestmark = pytest.mark.integration
CAP = 65_536  # MAX_BODY_BYTES here
HEADER_CAP = 8_192  # HTTP_MAX_HEADER_BYTES here
ATOM = "{http://www.w3.org/2005/Atom}"


@dataclass
class Site:
    base: str
    port: int
    token: str


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    env = servers.environment() | {
        "TOPIC_PARTITIONS": "3",
        "MAX_BODY_BYTES": str(CAP),
        "PUBLIC_URL": "http://papertrail.test",
        "TRUSTED_PROXIES": "127.0.0.1",  # a request "from" another client by X-Forwarded-For
        "HTTP_MAX_HEADER_BYTES": str(HEADER_CAP),
        "HTTP_HEADER_TIMEOUT_S": "5",
        "BODY_READ_TIMEOUT_S": "5",
    }
    with running_service("query", env, tmp_path_factory.mktemp("hardening")) as port:
        yield Site(f"http://127.0.0.1:{port}", port, create_user(env, "hardening"))


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/papers", {"until": "0001-01-01"}),
        ("/api/papers", {"since": "0001-01-01"}),
        ("/api/papers", {"summarized_since": "0001-01-01"}),
        ("/feeds/search.atom", {"since": "0001-01-01"}),
        ("/feeds/search.atom", {"until": "0001-01-01"}),
        ("/", {"since": "0001-01-01"}),
        ("/", {"until": "0001-01-01"}),
    ],
)
def test_days_at_the_ends_of_the_calendar_are_answered_not_500(site: Site, path: str, params: dict[str, str]) -> None:
    """A day in year 1 failed its conversion to a timestamp (naive, in the server's zone): a 500 anyone could fire.
    (/api/papers/{id}/similar takes the same `since`: tests/query/catalogue/test_search.py converts it.)"""
    answer = httpx.get(f"{site.base}{path}", params=params, timeout=10)
    assert answer.status_code == 200, answer.text
    if path == "/api/papers":
        assert answer.json()["total"] == 0  # an empty index: nothing to find, and nothing broken
    elif path.endswith(".atom"):
        assert etree.fromstring(answer.content).tag == "{http://www.w3.org/2005/Atom}feed"
    else:
        assert html.fromstring(answer.text).xpath("//main")


def test_a_follow_expression_nested_995_deep_is_a_400_naming_the_cap(site: Site) -> None:
    deep = "(" * 995 + "rag" + ")" * 995
    answer = httpx.post(
        f"{site.base}/api/follows",
        headers={"Authorization": f"Bearer {site.token}"},
        json={"kind": "keyword", "name": "deep", "query": deep},
        timeout=10,
    )
    assert answer.status_code == 400 and answer.headers["content-type"] == "application/problem+json"
    assert "nest more than 32 deep" in answer.json()["detail"]


@pytest.mark.parametrize("path", ["/", "/login", "/api/papers", "/feeds/search.atom", "/static/site.css", "/nowhere"])
def test_every_answer_carries_the_security_headers(site: Site, path: str) -> None:
    headers = httpx.get(f"{site.base}{path}", timeout=10).headers
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY and "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY" and headers["referrer-policy"] == "same-origin"


def test_no_page_runs_an_inline_script(site: Site) -> None:
    for path in ("/", "/login", "/signup", "/docs"):
        scripts = html.fromstring(httpx.get(f"{site.base}{path}", timeout=10).text).xpath("//script")
        assert scripts and all(s.get("src", "").startswith("/static/") and not s.text for s in scripts), path


def raw_request(site: Site, head: str, chunks: list[bytes], wait: float = 10) -> bytes:
    """Send a request head and body pieces over a plain socket (as a client that does not wait), then read the
    answer's status line and headers (waiting at most `wait` seconds for each piece)."""
    with socket.create_connection(("127.0.0.1", site.port), timeout=wait) as conn:
        conn.sendall(head.encode())
        try:
            for chunk in chunks:
                conn.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered and closed before the rest was sent: what a cap is for
        answer = b""
        while b"\r\n\r\n" not in answer and (piece := conn.recv(65_536)):
            answer += piece
    return answer


def test_a_30_mb_form_to_login_is_refused_with_413_before_it_is_read(site: Site) -> None:
    head = (
        "POST /login HTTP/1.1\r\nHost: papertrail.test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {30 * 1024 * 1024}\r\n\r\n"
    )
    answer = raw_request(site, head, [b"csrf=x&email=a%40b.c&password="])  # the 30 MB are never sent
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    json_headers = {"Authorization": f"Bearer {site.token}", "Content-Type": "application/json"}
    declared = httpx.post(
        f"{site.base}/api/follows", content=b"{" + b" " * CAP + b"}", headers=json_headers, timeout=10
    )
    assert declared.status_code == 413 and declared.headers["content-type"] == "application/problem+json"
    assert f"{CAP:,} bytes" in declared.json()["detail"]


def test_a_chunked_body_is_refused_once_it_passes_the_cap(site: Site) -> None:
    head = (
        "POST /api/follows HTTP/1.1\r\nHost: papertrail.test\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {site.token}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    piece = b" " * 16_384
    chunks = [b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(CAP // len(piece) + 2)] + [b"0\r\n\r\n"]
    answer = raw_request(site, head, chunks)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    json_headers = {"Authorization": f"Bearer {site.token}", "Content-Type": "application/json"}
    body = iter([b'{"kind": "keyword", ', b'"name": "ok", "query": "rag"}'])
    within = httpx.post(f"{site.base}/api/follows", headers=json_headers, content=body, timeout=10)
    assert within.status_code == 201, within.text  # a chunked body within the cap is taken


def test_request_headers_past_their_cap_are_refused_with_431(site: Site) -> None:
    """httptools, which uvicorn runs here, takes headers of any size (its h11_max_incomplete_event_size caps h11's
    only): every request would be held in memory whole."""
    big = f"GET /healthz HTTP/1.1\r\nHost: papertrail.test\r\nX-Padding: {'a' * (2 * HEADER_CAP)}\r\n\r\n"
    answer = raw_request(site, big, [])
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert httpx.get(f"{site.base}/healthz", headers={"X-Padding": "a" * (HEADER_CAP // 2)}).status_code == 200


def test_headers_that_never_end_are_answered_408_and_the_connection_closed(site: Site) -> None:
    """A client trickling (or never finishing) its headers held the connection for ever: it is answered once
    HTTP_HEADER_TIMEOUT_S (5 s here) has passed; the socket waits up to 60 s for that answer."""
    answer = raw_request(site, "GET /healthz HTTP/1.1\r\nHost: papertrail.test\r\n", [], wait=60)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    silent = raw_request(site, "", [], wait=60)  # a connection that sends nothing at all
    assert silent.startswith(b"HTTP/1.1 408 "), silent[:200]


def test_a_body_that_stalls_is_answered_408(site: Site) -> None:
    head = (
        "POST /api/follows HTTP/1.1\r\nHost: papertrail.test\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {site.token}\r\nContent-Length: 100\r\n\r\n"
    )
    answer = raw_request(site, head, [b'{"kind": '], wait=60)  # 9 of the 100 bytes, then nothing more
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b"application/problem+json" in answer


def test_metrics_are_shown_only_to_the_allowed_networks_and_never_through_a_proxy(site: Site) -> None:
    assert "papertrail_" in httpx.get(f"{site.base}/metrics", timeout=10).text  # this host: Prometheus beside it
    for address in ("203.0.113.9", "10.1.2.3"):  # a public client; a private one, but passed on by a proxy
        refused = httpx.get(f"{site.base}/metrics", headers={"X-Forwarded-For": address}, timeout=10)
        assert refused.status_code == 404 and "papertrail_" not in refused.text, address


@pytest.mark.parametrize("path", ["/feeds/search.atom?q=graph", "/feeds/topics/llm-reasoning.atom"])
def test_a_feeds_self_link_is_under_public_url_whatever_host_the_request_names(site: Site, path: str) -> None:
    """The self link echoed the Host header: a cache or feed service fetching with a forged one handed its readers
    a feed pointing elsewhere."""
    answer = httpx.get(f"{site.base}{path}", headers={"Host": "attacker.example"}, timeout=10)
    assert answer.status_code == 200, answer.text
    links = {link.get("rel"): link.get("href") for link in etree.fromstring(answer.content).iter(f"{ATOM}link")}
    assert links["self"] == f"http://papertrail.test{path}"
    assert "attacker.example" not in answer.text


def test_docs_load_swagger_ui_from_this_site(site: Site) -> None:
    page = html.fromstring(httpx.get(f"{site.base}/docs", timeout=10).text)
    assets = page.xpath("//script/@src | //link/@href")
    assert "/static/swagger-ui/swagger-ui-bundle.js" in assets and "/static/swagger-ui/swagger-ui.css" in assets
    assert all(asset.startswith("/static/") for asset in assets), assets  # no CDN
    for asset in assets:
        assert httpx.get(f"{site.base}{asset}", timeout=10).status_code == 200, asset
    assert page.get_element_by_id("swagger-ui").get("data-openapi-url") == "/openapi.json"
    assert httpx.get(f"{site.base}/redoc", timeout=10).status_code == 404  # it loaded from a CDN too


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: install Debian's chromium (apt-get install -y chromium)"
)
def test_in_headless_chromium_docs_render_under_the_policy_with_no_violation(site: Site, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, tmp_path / "profile", javascript=True)
        try:
            tab = browser.new_page()
            refused: list[str] = []
            tab.on("console", lambda line: refused.append(line.text) if "Content Security" in line.text else None)
            tab.goto(f"{site.base}/docs")
            tab.locator(".opblock").first.wait_for(timeout=20_000)  # the operations, from /openapi.json
            assert tab.locator(".opblock").count() > 20 and "PaperTrail query API" in tab.content()
            tab.goto(f"{site.base}/login")
            assert tab.locator("form[action='/login']").count() >= 1  # a page under the same policy
            assert refused == []
        finally:
            browser.close()
