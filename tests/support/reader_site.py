"""The query service as a real process over real servers, its database holding real papers as the normalizer stores
them (written here in the normalizer's document shape, as the normalizer would), and two readers with tokens."""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from lxml import html
from pymongo import MongoClient

from papertrail.domain.paper_ids import FINGERPRINT_SCHEME
from papertrail.runtime.collections import PAPERS
from schemas.paper import Paper
from services.normalizer.identity import paper_fingerprint
from services.normalizer.store import INDEXES as NORMALIZER_INDEXES
from tests.support.servers import Servers
from tests.support.services import create_user, running_services


@dataclass
class Site:
    env: dict[str, str]
    base: str
    tokens: dict[str, str]
    db: Any  # the site's database (pymongo, synchronous)

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    def call(self, method: str, path: str, reader: str | None = "ana", **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[reader]}"} if reader else {}
        return httpx.request(method, self.url(path), headers=headers | kwargs.pop("headers", {}), timeout=30, **kwargs)


def stored_document(paper: Paper) -> dict[str, Any]:
    """A paper as the normalizer's store writes it (services/normalizer/store.py: save)."""
    body = paper.model_dump(mode="python", exclude={"id"}, exclude_none=True)
    return {
        "_id": paper.id,
        "rev": 1,
        "fingerprint_scheme": FINGERPRINT_SCHEME,
        **body,
        "fingerprints": [paper_fingerprint(paper)],
        "version_count": 1,
    }


@contextmanager
def reader_database(
    servers: Servers, papers: Sequence[Paper], **extra_env: str
) -> Iterator[tuple[dict[str, str], Any]]:
    """The module's database (the servers fixture's) holding the papers, and the environment that points a service at
    it; dropped after."""
    env = servers.environment() | {
        "MONGODB_DATABASE": servers.database,
        "INDEX_NAME": servers.index,
        "TOPIC_PARTITIONS": "3",
        **extra_env,
    }
    client: MongoClient = MongoClient(servers.mongodb_url)
    db = client[env["MONGODB_DATABASE"]]
    for collection, key, unique in NORMALIZER_INDEXES:  # as the normalizer makes them: the finder's reads use them
        db[collection].create_index(key, unique=unique, sparse=unique)
    db[PAPERS.name].insert_many([stored_document(p) for p in papers])
    try:
        yield env, db
    finally:
        client.drop_database(env["MONGODB_DATABASE"])
        client.close()


@contextmanager
def query_service(env: dict[str, str], db: Any, logs: Path, tokens: dict[str, str]) -> Iterator[Site]:
    """The query service on the database, for readers with these tokens (`papertrail users create` made them)."""
    with running_services(["query"], env, logs) as ports:
        yield Site(env, f"http://127.0.0.1:{ports['query']}", tokens, db)


@contextmanager
def reader_site(
    servers: Servers, logs: Path, papers: Sequence[Paper], readers: Sequence[str] = ("ana", "bo"), **extra_env: str
) -> Iterator[Site]:
    with reader_database(servers, papers, **extra_env) as (env, db), query_service(env, db, logs, {}) as site:
        site.tokens.update({name: create_user(env, name) for name in readers})
        yield site


class Browser(httpx.Client):
    """A reader's browser, signed in through the login form with their API token: its session cookie, and its
    forms' CSRF token sent with every POST as a page's form sends it."""

    csrf = ""

    def __enter__(self) -> "Browser":  # signed in already (so opened): `with` only closes it at the end
        return self

    def post(self, url: httpx.URL | str, *, data: Any = None, **kwargs: Any) -> httpx.Response:  # type: ignore[override]
        return super().post(url, data={"csrf": self.csrf, **(data or {})}, **kwargs)


def browser(site: Site, reader: str) -> Browser:
    """`reader`'s browser on the site, signed in (close it, or use it in a `with`)."""
    client = Browser(base_url=site.base, timeout=30)
    login = client.get("/login")
    client.csrf = str(html.fromstring(login.text).xpath('//input[@name="csrf"]/@value')[0])
    signed = client.post("/login", data={"token": site.tokens[reader], "next": "/me/library"})
    assert signed.status_code == 303, signed.text
    page = client.get("/me/library")
    client.csrf = str(html.fromstring(page.text).xpath('//input[@name="csrf"]/@value')[0])  # the new session's
    return client
