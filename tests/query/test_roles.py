"""The query service's process roles (QUERY_ROLE): api serves HTTP and starts no consumer and no background job;
worker runs the consumers and the jobs (each under its lease) and serves only the probes; all does both. The wiring
is read from create_app; the lifespans run against real servers."""

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pymongo import AsyncMongoClient

from papertrail.runtime.collections import JOB_LEASES
from papertrail.runtime.leases import Leases
from schemas import topics
from services.query.app import create_app
from services.query.settings import QueryRole, QuerySettings
from tests.support.kafka import broker_of
from tests.support.query import query_settings
from tests.support.servers import Servers
from tests.support.waiting import wait_until_async

JOBS = {"retag", "vectors", "search_vectors", "author_names", "training", "imports", "hotness"}
CONSUMED = {topics.PAPERS_ENRICHED, topics.PAPERS_WITHDRAWN, topics.HARVEST_STATUS}
PROBES = {"/healthz", "/readyz", "/metrics"}


def consumed(app: FastAPI) -> set[str]:
    return {name for subscriber in broker_of(app).subscribers for name in subscriber.topic_names}


def documented(app: FastAPI) -> set[str]:
    """The API's paths, as its OpenAPI document has them."""
    return set(app.openapi()["paths"])


def test_the_api_role_has_no_consumers_and_the_worker_no_pages() -> None:
    api, worker, both = (create_app(QuerySettings(query_role=role)) for role in ("api", "worker", "all"))
    assert consumed(api) == set()
    assert consumed(worker) == consumed(both) == CONSUMED
    assert documented(api) == documented(both)
    assert {"/api/papers", "/api/follows", "/api/me/library/import"} <= documented(api)
    assert documented(worker) == set()


@asynccontextmanager
async def running(servers: Servers, role: QueryRole, run: str) -> AsyncIterator[FastAPI]:
    """The app of this role with its lifespan running, on a database and an index of the run's own."""
    settings = query_settings(servers, "roles", run, role)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


async def ask(app: FastAPI, path: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://query") as client:
        return await client.get(path)


@pytest.mark.integration
async def test_the_api_role_starts_no_job_and_the_worker_every_job_under_its_lease(servers: Servers) -> None:
    run = uuid.uuid4().hex[:8]
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    leases = Leases(client[f"papertrail_roles_{run}"][JOB_LEASES.name])
    try:
        await roles_at_work(servers, run, leases)
    finally:
        await client.drop_database(f"papertrail_roles_{run}")
        await client.close()


async def roles_at_work(servers: Servers, run: str, leases: Leases) -> None:
    async with running(servers, "api", run) as api:
        assert api.state.jobs == {}
        assert (await ask(api, "/api/topics")).status_code == 200
        assert (await ask(api, "/")).status_code == 200
        async with running(servers, "worker", run) as worker:
            jobs: dict[str, Any] = worker.state.jobs
            assert set(jobs) == JOBS

            async def held() -> bool:  # the long-running jobs hold their leases while the worker runs
                return all([await leases.holder(name) for name in ("training", "imports", "hotness")])

            await wait_until_async(held, 30, "the worker's jobs to hold their leases")
            assert not any(jobs[name].done() for name in ("training", "imports", "hotness"))
            for probe in PROBES:
                assert (await ask(worker, probe)).status_code == 200, probe
            for served_by_api in ("/api/topics", "/", "/me/feed", "/docs"):
                assert (await ask(worker, served_by_api)).status_code == 404, served_by_api
        assert all(task.done() for task in jobs.values())  # stopped with the worker
        assert await leases.holder("training") is None  # released for the next worker
