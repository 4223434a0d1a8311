"""The Meilisearch `papers` index: settings kept in code, documents written and tasks awaited, searches."""

from typing import Any

from meilisearch_python_sdk import AsyncClient
from meilisearch_python_sdk.errors import MeilisearchApiError
from meilisearch_python_sdk.models.search import SearchResults
from meilisearch_python_sdk.models.settings import MeilisearchSettings

from papertrail.kafka import UnprocessableMessage
from services.query.documents import FILTERABLE, SEARCHABLE, SORTABLE, document_id
from services.query.search import PaperQuery

FACETS = ["categories", "sources", "status", "ai_related", "year", "venue"]


class PaperIndex:
    def __init__(self, client: AsyncClient, name: str, task_timeout_s: float) -> None:
        self.client = client
        self.name = name
        self.index = client.index(name)
        self.task_timeout_ms = int(task_timeout_s * 1000)

    async def ensure(self) -> None:
        """Create the index if missing and apply the settings kept in code; safe to repeat."""
        settings = MeilisearchSettings(
            searchable_attributes=SEARCHABLE, filterable_attributes=FILTERABLE, sortable_attributes=SORTABLE
        )
        # An existing index makes the creation task fail harmlessly; the settings are applied either way.
        await self.client.create_index(
            self.name, primary_key="id", settings=settings, timeout_in_ms=self.task_timeout_ms
        )

    async def upsert(self, documents: list[dict[str, Any]]) -> None:
        """Add or replace documents and wait until Meilisearch has applied them."""
        task = await self.index.add_documents(documents, primary_key="id")
        await self._wait(task.task_uid)

    async def _wait(self, task_uid: int) -> None:
        result = await self.client.wait_for_task(task_uid, timeout_in_ms=self.task_timeout_ms)
        if result.status != "succeeded":
            raise UnprocessableMessage(f"Meilisearch task {task_uid} {result.status}: {result.error}")

    async def search(self, query: PaperQuery) -> SearchResults:
        return await self.index.search(
            query.q or None,
            filter=query.filters() or None,
            sort=query.sort_by(),
            page=query.page,
            hits_per_page=query.size,
            facets=FACETS,
        )

    async def get(self, paper_id: str) -> dict[str, Any] | None:
        try:
            return await self.index.get_document(document_id(paper_id))
        except MeilisearchApiError as exc:
            if exc.status_code == 404:
                return None
            raise
