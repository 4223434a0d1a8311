"""Every page of a signed-in reader, asked for without a session, answers 401 with the sign-in form that comes back to
it, before anything else is read (one `require_reader` dependency): the app's resources are wired to servers that are
not there, so a page that read anything would fail."""

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from meilisearch_python_sdk import AsyncClient
from pymongo import AsyncMongoClient

from papertrail.runtime.service import Clients
from services.query.app import build_resources, create_app
from services.query.settings import QuerySettings
from tests.support.kafka import broker_of
from tests.support.servers import free_port

READERS_PAGES = ["/me/follows", "/me/feed", "/me/library", "/me/library/export", "/me/account",
                 "/me/library/imports/0123456789abcdef0123456789abcdef"]  # fmt: skip


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    settings = QuerySettings(
        query_role="api",
        site_secret="s" * 32,
        mongodb_url=f"mongodb://127.0.0.1:{free_port()}",
        meili_url=f"http://127.0.0.1:{free_port()}",
    )
    app = create_app(settings)
    nowhere = Clients(AsyncMongoClient(settings.mongodb_url, serverSelectionTimeoutMS=300)["unused"],
                      AsyncClient(settings.meili_url, "key", timeout=1))  # fmt: skip
    app.state.resources = build_resources(settings, nowhere, broker_of(app))
    yield TestClient(app)  # not entered: no lifespan, nothing opened


@pytest.mark.parametrize("path", READERS_PAGES)
def test_a_readers_page_without_a_session_is_the_sign_in_form(client: TestClient, path: str) -> None:
    page = client.get(path, params={"sort": "relevance"} if path == "/me/feed" else None)
    assert page.status_code == 401
    assert 'name="next"' in page.text and f'value="{path}"' in page.text
