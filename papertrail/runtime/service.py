"""The service skeleton. Settings errors and unreachable dependencies stop a service at start with the setting's name;
`open_resources` opens its clients (broker topics, MongoDB, Meilisearch when it needs it), registers their readiness
checks, runs the consumer-lag monitor and closes everything; `provide` hands the handlers the service's one
resources object; `serve` runs the app (FastStream's ASGI app or FastAPI) with /metrics, /healthz and /readyz."""

import asyncio
import ipaddress
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import uvicorn
from faststream import ContextRepo
from faststream.asgi import AsgiFastStream
from faststream.kafka import KafkaBroker
from meilisearch_python_sdk import AsyncClient
from prometheus_client import make_asgi_app
from pydantic import ValidationError
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.embedding.embedder import SEARCH_OFF, EmbeddingSettings, SearchEmbeddingSettings
from papertrail.embedding.paper_vectors import (
    SEARCH_VECTORS_MODEL_ID,
    VECTORS_MODEL_ID,
    model_mismatch,
    search_model_mismatch,
)
from papertrail.runtime import fetch_pacing, mongo, search
from papertrail.runtime.collections import EMBEDDING_MODEL, PAPER_VECTORS
from papertrail.runtime.http_server import guarded
from papertrail.runtime.kafka import ensure_topics
from papertrail.runtime.lag import LagMonitor, watched_groups
from papertrail.runtime.logs import configure_logging
from papertrail.runtime.settings import InfraSettings

Check = Callable[[], Awaitable[bool]]
S = TypeVar("S", bound=InfraSettings)


class StartupError(Exception):
    """A dependency named by a setting is unusable; the message names the setting."""


def settings_error_message(service: str, error: ValidationError) -> str:
    """Name each bad setting by its environment variable, with what is wrong with it."""
    lines = [f"papertrail {service}: invalid settings:"]
    for problem in error.errors():
        name = "_".join(str(part) for part in problem["loc"]).upper() or "?"
        secret = any(word in name for word in ("SECRET", "KEY", "PASSWORD"))  # never echoed into a log
        got = "a value not shown" if secret and problem.get("input") else repr(problem.get("input"))
        lines.append(f"  {name}: {problem['msg']} (got {got})")
    return "\n".join(lines)


def load_settings(cls: type[S], service: str) -> S:
    """Instantiate a settings class, or exit with a message naming each bad variable."""
    try:
        return cls()
    except ValidationError as error:
        sys.exit(settings_error_message(service, error))


async def check_kafka(settings: InfraSettings) -> None:
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(
        bootstrap_servers=settings.kafka_bootstrap_servers.split(","),
        request_timeout_ms=int(settings.startup_timeout_s * 1000),
    )
    try:
        await asyncio.wait_for(admin.start(), settings.startup_timeout_s)
    except Exception as exc:
        raise StartupError(
            f"KAFKA_BOOTSTRAP_SERVERS={settings.kafka_bootstrap_servers}: no Kafka broker answered "
            f"within {settings.startup_timeout_s:g}s ({type(exc).__name__}: {exc})"
        ) from exc
    finally:
        await admin.close()


async def check_mongodb(settings: InfraSettings) -> None:
    client = mongo.make_mongo_client(settings)
    try:
        await client.admin.command("ping")
    except Exception as exc:
        raise StartupError(
            f"MONGODB_URL={settings.mongodb_url}: MongoDB did not answer "
            f"within {settings.startup_timeout_s:g}s ({type(exc).__name__})"
        ) from exc
    finally:
        await client.close()


async def check_meilisearch(settings: InfraSettings) -> None:
    from meilisearch_python_sdk.errors import MeilisearchApiError

    client = search.make_search_client(settings)
    try:
        await client.get_indexes()  # needs a valid key, unlike /health
    except MeilisearchApiError as exc:
        if exc.status_code in (401, 403):
            raise StartupError(
                f"MEILI_MASTER_KEY: rejected by Meilisearch at MEILI_URL={settings.meili_url} "
                f"({exc.status_code} {exc.code})"
            ) from exc
        raise StartupError(f"MEILI_URL={settings.meili_url}: {exc}") from exc
    except Exception as exc:
        raise StartupError(
            f"MEILI_URL={settings.meili_url}: Meilisearch did not answer ({type(exc).__name__}: {exc})"
        ) from exc
    finally:
        await client.aclose()


async def check_embedding_model(
    settings: InfraSettings, model_key: str, service: str, search_model_key: str = SEARCH_OFF
) -> None:
    """A service that reads `paper_vectors` embeds with the model the summarizer makes them with; one that searches
    `search_vectors` (`search_model_key`), with the search model the summarizer makes those with."""
    if service == PAPER_VECTORS.owner:
        return  # the summarizer records its own models: a new one re-embeds every paper
    client = mongo.make_mongo_client(settings)
    try:
        models = mongo.database(client, settings)[EMBEDDING_MODEL.name]
        recorded = await models.find_one({"_id": VECTORS_MODEL_ID})
        recorded_search = await models.find_one({"_id": SEARCH_VECTORS_MODEL_ID})
    finally:
        await client.close()
    if (problem := model_mismatch(recorded, model_key)) is not None:
        raise StartupError(problem)
    if (problem := search_model_mismatch(recorded_search, search_model_key)) is not None:
        raise StartupError(problem)


async def preflight(settings: InfraSettings, needs: Sequence[str], service: str = "") -> None:
    """Check every dependency the service needs before it starts serving, then (with MongoDB) that its embedding
    model is the one the stored vectors are made with."""
    checks = {"kafka": check_kafka, "mongodb": check_mongodb, "meilisearch": check_meilisearch}
    await asyncio.gather(*(checks[name](settings) for name in needs))
    if "mongodb" in needs and isinstance(settings, EmbeddingSettings):
        search = settings.search_model_key if isinstance(settings, SearchEmbeddingSettings) else SEARCH_OFF
        await check_embedding_model(settings, settings.model_key, service, search)


class Readiness:
    """The named checks behind /readyz; a service's lifespan adds one per connection it opens."""

    def __init__(self) -> None:
        self.checks: dict[str, Check] = {}

    def add(self, name: str, check: Check) -> None:
        self.checks[name] = check

    async def report(self) -> tuple[bool, dict[str, bool]]:
        names = list(self.checks)
        results = await asyncio.gather(*(self.checks[n]() for n in names), return_exceptions=True)
        status = {n: r is True for n, r in zip(names, results, strict=True)}
        return bool(status) and all(status.values()), status


class JsonEndpoint:
    """A GET endpoint answering JSON, as a plain ASGI app: FastStream's AsgiFastStream and FastAPI serve it alike."""

    def __init__(self, answer: Callable[[], Awaitable[tuple[int, dict[str, Any]]]]) -> None:
        self.answer = answer

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["method"] in ("GET", "HEAD"):
            status, content = await self.answer()
        else:
            status, content = 405, {"detail": "Method Not Allowed"}
        body = json.dumps(content).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})


PROXY_HEADERS = (b"x-forwarded-for", b"forwarded", b"x-real-ip")


class MetricsEndpoint:
    """Every metric of the process in Prometheus's text format, as an ASGI object (prometheus-client's own app is a
    plain function, which FastAPI would take for a request handler rather than an ASGI app), for clients of the
    allowed networks only (METRICS_ALLOWED_NETWORKS): anyone else, and any request a proxy passed on, gets 404, so a
    service's public port (the query API's) shows nobody its traffic, users and errors."""

    def __init__(self, allowed: str) -> None:
        self.app = make_asgi_app()
        self.allowed = [ipaddress.ip_network(n.strip(), strict=False) for n in allowed.split(",") if n.strip()]

    def admits(self, scope: dict[str, Any]) -> bool:
        if any(name in PROXY_HEADERS for name, _ in scope["headers"]):
            return False
        try:
            client = ipaddress.ip_address((scope.get("client") or ("",))[0])
        except ValueError:
            return False
        return any(client in network for network in self.allowed)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self.admits(scope):
            await self.app(scope, receive, send)
            return
        body = b'{"detail": "Not Found"}'
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 404, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def health_routes(readiness: Readiness, settings: InfraSettings) -> list[tuple[str, Any]]:
    """/metrics (to the METRICS_ALLOWED_NETWORKS only), /healthz and /readyz as (path, ASGI app) pairs, for
    AsgiFastStream's routes or a FastAPI app."""

    async def healthz() -> tuple[int, dict[str, Any]]:
        return 200, {"status": "ok"}

    async def readyz() -> tuple[int, dict[str, Any]]:
        ready, checks = await readiness.report()
        return 200 if ready else 503, {"ready": ready, "checks": checks}

    return [
        ("/metrics", MetricsEndpoint(settings.metrics_allowed_networks)),
        ("/healthz", JsonEndpoint(healthz)),
        ("/readyz", JsonEndpoint(readyz)),
    ]


@dataclass(frozen=True, slots=True)
class Clients:
    """What `open_resources` opened for a service: its database, and Meilisearch when the service needs it."""

    db: AsyncDatabase
    search: AsyncClient | None = None


@asynccontextmanager
async def open_resources(
    settings: InfraSettings,
    service: str,
    broker: KafkaBroker,
    readiness: Readiness,
    *,
    topics: Sequence[str],
    needs: Sequence[str],
    ready_without: Sequence[str] = (),
) -> AsyncIterator[Clients]:
    """Open a service's clients for its lifespan and close them after.

    Its topics (and their dead-letter topics) are created when missing; MongoDB is opened, and Meilisearch when
    `needs` names it; /readyz checks the broker and each client, but those in `ready_without`; the consumer lag
    of the broker's grouped subscribers is measured (papertrail_consumer_lag) until the lifespan ends.
    """
    await ensure_topics(settings, list(topics))
    mongo_client = mongo.make_mongo_client(settings, service)
    search_client = search.make_search_client(settings) if "meilisearch" in needs else None
    checks: dict[str, Callable[[], Awaitable[bool]]] = {
        "kafka": lambda: broker.ping(timeout=3),
        "mongodb": lambda: mongo.ping(mongo_client),
    }
    if search_client is not None:
        checks["meilisearch"] = lambda: search.ping(search_client)
    for name, check in checks.items():
        if name not in ready_without:
            readiness.add(name, check)
    lag = LagMonitor(settings, service, watched_groups(broker.subscribers)).start()
    try:
        yield Clients(mongo.database(mongo_client, settings), search_client)
    finally:
        await lag.stop()
        if search_client is not None:
            await search_client.aclose()
        await mongo_client.close()


def provide(context: ContextRepo, resources: object) -> None:
    """Hand a service's one resources object to its handlers and hooks, which take it as
    `resources: Annotated[R, Context()]` (FastStream finds it by that parameter name). `context` is the lifespan's
    (the app's), or an in-memory test broker's."""
    context.set_global("resources", resources)


OpenService = Callable[[Clients], AbstractAsyncContextManager[Any]]


def service_app(
    settings: InfraSettings,
    service: str,
    broker: KafkaBroker,
    open_service: OpenService,
    *,
    topics: Sequence[str],
    needs: Sequence[str],
    ready_without: Sequence[str] = (),
) -> AsgiFastStream:
    """A consuming service's ASGI app: the broker, /metrics, /healthz and /readyz, and a lifespan that opens the
    clients (`open_resources`), then the service's own resources from them (`open_service(clients)`, an async
    context manager yielding the one object its handlers take), and closes both in reverse."""
    readiness = Readiness()

    @asynccontextmanager
    async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
        opened = open_resources(
            settings, service, broker, readiness, topics=topics, needs=needs, ready_without=ready_without
        )
        async with opened as clients, open_service(clients) as resources:
            provide(context, resources)
            yield

    log = logging.getLogger(f"papertrail.{service}")
    return AsgiFastStream(broker, lifespan=lifespan, asgi_routes=health_routes(readiness, settings), logger=log)


def serve(service: str, create_app: Callable[[S], Any], settings: S, port: int, needs: Sequence[str]) -> None:
    """Log as JSON lines, preflight the dependencies, then build the app from the settings and serve it until
    SIGINT/SIGTERM."""
    configure_logging(service, settings)
    fetch_pacing.install()  # idle consumers must not spin on a broker that answers empty fetches at once
    try:
        asyncio.run(preflight(settings, needs, service))
    except StartupError as error:
        sys.exit(f"papertrail {service}: cannot start: {error}")
    app = create_app(settings)
    uvicorn.run(
        app, host=settings.http_host, port=port, log_config=None, access_log=False, lifespan="on",
        # uvicorn would believe X-Forwarded-For from 127.0.0.1 by default: only the proxies named are believed
        proxy_headers=bool(settings.trusted_proxies), forwarded_allow_ips=settings.trusted_proxies or None,
        # papertrail/runtime/http_server.py: headers capped in size and time; idle and concurrent connections bounded
        http=guarded(settings.http_max_header_bytes, settings.http_header_timeout_s),
        timeout_keep_alive=settings.http_keep_alive_s, limit_concurrency=settings.http_max_connections,
    )  # fmt: skip
