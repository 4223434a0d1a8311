"""Reading the query service's pages as a reader does: parsed HTML, a client signed in through the login form,
and headless Chromium."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from lxml import html

from tests.support.paths import ROOT
from tests.support.pipelines import Pipeline


def doc(response: httpx.Response) -> Any:
    assert response.headers["content-type"].startswith("text/html")
    return html.fromstring(response.text)


def text(node: Any) -> str:
    return " ".join(node.text_content().split())


@contextmanager
def signed_in(pipeline: Pipeline, token: str) -> Iterator["SignedIn"]:
    """A client that signed in with an API token through the login form (so it holds a session cookie); `.csrf` is
    the token its forms carry."""
    with SignedIn(base_url=pipeline.url("query", ""), timeout=10) as client:
        response = client.post(
            "/login", data={"token": token, "next": "/me/follows", "csrf": csrf_of(client.get("/login"))}
        )
        assert response.status_code == 303 and response.headers["location"] == "/me/follows"
        client.csrf = csrf_of(client.get("/me/follows"))  # a new token with the new session
        yield client


class SignedIn(httpx.Client):
    csrf = ""


def csrf_of(page: httpx.Response) -> str:
    return str(doc(page).xpath('//input[@name="csrf"]/@value')[0])


CHROMIUM = Path("/usr/bin/chromium")


ARTIFACTS = ROOT / "test-artifacts" / "pages"


CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch_chromium(playwright: Any, profile: Path, javascript: bool) -> Any:
    """Debian's Chromium, headless, with a fresh profile (a Playwright BrowserContext; close it when done)."""
    return playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1200, "height": 900},
        java_script_enabled=javascript,
    )


needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: install Debian's chromium (apt-get install -y chromium)"
)
