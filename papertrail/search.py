"""The one Meilisearch setup: the async client of meilisearch-python-sdk, opened in a lifespan."""

from meilisearch_python_sdk import AsyncClient

from papertrail.settings import InfraSettings


def make_search_client(settings: InfraSettings) -> AsyncClient:
    return AsyncClient(settings.meili_url, settings.meili_master_key.get_secret_value(), timeout=10)


async def ping(client: AsyncClient) -> bool:
    try:
        health = await client.health()
    except Exception:
        return False
    return health.status == "available"
