"""Query service settings."""

from pydantic import Field

from papertrail.settings import InfraSettings


class QuerySettings(InfraSettings):
    http_port: int = Field(8000, ge=1, le=65535, description="port of the API, pages, /metrics, /healthz, /readyz")
    index_name: str = Field("papers", pattern=r"^[A-Za-z0-9_-]+$", description="Meilisearch index of papers")
    index_task_timeout_s: float = Field(60, gt=0, description="how long to wait for an indexing task")
