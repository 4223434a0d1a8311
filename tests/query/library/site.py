"""The query service as a real process over real servers, its database holding real papers as the normalizer stores
them (written here in the normalizer's document shape, as the normalizer would), and two readers with tokens."""

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from pymongo import MongoClient

from papertrail.collections import PAPERS
from papertrail.paper_ids import FINGERPRINT_SCHEME
from schemas.paper import Paper
from services.normalizer.identity import paper_fingerprint
from tests.conftest import Servers
from tests.integration.services import create_user, running_services


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
def reader_site(
    servers: Servers, logs: Path, papers: Sequence[Paper], readers: Sequence[str] = ("ana", "bo"), **extra_env: str
) -> Iterator[Site]:
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_lib_{run}",
        "INDEX_NAME": f"papers_lib_{run}",
        "TOPIC_PARTITIONS": "3",
        **extra_env,
    }
    client: MongoClient = MongoClient(servers.mongodb_url)
    db = client[env["MONGODB_DATABASE"]]
    db[PAPERS.name].insert_many([stored_document(p) for p in papers])
    try:
        with running_services(["query"], env, logs) as ports:
            tokens = {name: create_user(env, name) for name in readers}
            yield Site(env, f"http://127.0.0.1:{ports['query']}", tokens, db)
    finally:
        client.drop_database(env["MONGODB_DATABASE"])
        client.close()
