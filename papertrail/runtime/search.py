"""The one Meilisearch setup: the async client of meilisearch-python-sdk, opened in a lifespan."""

from meilisearch_python_sdk import AsyncClient

from papertrail.runtime.settings import InfraSettings

# Meilisearch compresses a response when the client accepts gzip, and writes the compressed body in small
# chunks without TCP_NODELAY: with the client's delayed ACK that stalls ~40 ms on about half of all searches
# (measured: 2–7 ms searches taking 44–48 ms). Uncompressed responses never stall; the link is local anyway.
UNCOMPRESSED = {"Accept-Encoding": "identity"}


def make_search_client(settings: InfraSettings) -> AsyncClient:
    return AsyncClient(
        settings.meili_url, settings.meili_master_key.get_secret_value(), timeout=10, custom_headers=UNCOMPRESSED
    )


async def ping(client: AsyncClient) -> bool:
    try:
        health = await client.health()
    except Exception:
        return False
    return health.status == "available"
