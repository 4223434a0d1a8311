"""Query service settings."""

from pydantic import Field

from papertrail.settings import PaperIndexSettings, TimeZoneName


class QuerySettings(PaperIndexSettings):
    http_port: int = Field(8000, ge=1, le=65535, description="port of the API, pages, /metrics, /healthz, /readyz")
    index_task_timeout_s: float = Field(60, gt=0, description="how long to wait for an indexing task")
    index_batch_size: int = Field(
        2000,
        ge=1,
        le=10000,
        description="documents per indexing batch: each Meilisearch task has a fixed cost (~0.35 s here), so a "
        "backlog is indexed in few large tasks",
    )
    index_batch_wait_ms: int = Field(200, ge=1, description="longest wait to fill an indexing batch")
    index_linger_ms: int = Field(
        500,
        ge=0,
        le=10_000,
        description="gather papers this long (or until 1 MiB is there) before an indexing task: a Meilisearch task "
        "costs ~0.35 s whatever its size, so fewer, larger tasks leave the engine more CPU, at up to this much more "
        "harvested → searchable (500 against 0, docs/benchmarks.md runs 16-20: p99 at 200/s 9.8 → 8.9 s and 70 → "
        "96 % searchable within 5 s; at 100/s p99 4.9 s either way, p50 1.0 → 1.4 s); 0 indexes each fetch at once",
    )
    display_timezone: TimeZoneName = Field("Asia/Shanghai", description="time zone pages show times in (UTC is stored)")
    overview_window: str = Field("24h", pattern=r"^\d+[hd]$", description="default overview window, e.g. 24h or 7d")
    public_url: str = Field("http://127.0.0.1:8000", description="base URL used in Atom feed links")
    library_import_chunk: int = Field(
        500,
        ge=1,
        le=5000,
        description="library-file entries an import resolves and records at a time: its progress moves by this much, "
        "and a restart repeats at most one chunk",
    )
