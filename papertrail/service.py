"""Running a service: settings errors and unreachable dependencies stop it at start with the setting's name,
then uvicorn serves the app (FastStream's ASGI app or FastAPI) with /metrics, /healthz and /readyz."""

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import uvicorn
from prometheus_client import make_asgi_app
from pydantic import ValidationError

from papertrail import fetch_pacing
from papertrail.settings import InfraSettings

Check = Callable[[], Awaitable[bool]]
S = TypeVar("S", bound=InfraSettings)


class StartupError(Exception):
    """A dependency named by a setting is unusable; the message names the setting."""


def settings_error_message(service: str, error: ValidationError) -> str:
    """Name each bad setting by its environment variable, with what is wrong with it."""
    lines = [f"papertrail {service}: invalid settings:"]
    for problem in error.errors():
        name = "_".join(str(part) for part in problem["loc"]).upper() or "?"
        lines.append(f"  {name}: {problem['msg']} (got {problem.get('input')!r})")
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
    from papertrail.mongo import make_mongo_client

    client = make_mongo_client(settings)
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

    from papertrail.search import make_search_client

    client = make_search_client(settings)
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


async def preflight(settings: InfraSettings, needs: tuple[str, ...]) -> None:
    """Check every dependency the service needs before it starts serving."""
    checks = {"kafka": check_kafka, "mongodb": check_mongodb, "meilisearch": check_meilisearch}
    await asyncio.gather(*(checks[name](settings) for name in needs))


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


def metrics_asgi() -> Any:
    return make_asgi_app()


def serve(service: str, app: Any, settings: InfraSettings, port: int, needs: tuple[str, ...]) -> None:
    """Preflight the dependencies, then serve the app until SIGINT/SIGTERM."""
    fetch_pacing.install()  # idle consumers must not spin on a broker that answers empty fetches at once
    try:
        asyncio.run(preflight(settings, needs))
    except StartupError as error:
        sys.exit(f"papertrail {service}: cannot start: {error}")
    uvicorn.run(app, host=settings.http_host, port=port, log_config=None, access_log=False, lifespan="on")


def health_routes(readiness: Readiness) -> list[tuple[str, Any]]:
    """ASGI routes for FastStream's AsgiFastStream: /metrics, /healthz, /readyz."""
    import json

    from faststream.asgi import AsgiResponse, get

    @get(include_in_schema=False)
    async def healthz(scope: Any) -> AsgiResponse:
        return AsgiResponse(b'{"status":"ok"}', 200, headers={"content-type": "application/json"})

    @get(include_in_schema=False)
    async def readyz(scope: Any) -> AsgiResponse:
        ready, checks = await readiness.report()
        body = json.dumps({"ready": ready, "checks": checks}).encode()
        return AsgiResponse(body, 200 if ready else 503, headers={"content-type": "application/json"})

    return [("/metrics", metrics_asgi()), ("/healthz", healthz), ("/readyz", readyz)]
