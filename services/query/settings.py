"""Query service settings, with the embedding model (EMBEDDING_*) whose vectors it indexes and queries with."""

from pydantic import Field

from papertrail.embedding import EmbeddingSettings
from papertrail.settings import PaperIndexSettings, TimeZoneName


class QuerySettings(PaperIndexSettings, EmbeddingSettings):
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
    feed_retrain_debounce_s: float = Field(
        20, ge=0, le=3600, description="a reader's 为你推荐 model is trained again once their feedback is this still"
    )
    feed_retrain_poll_s: float = Field(5, gt=0, le=600, description="how often stale reader models are looked for")
    feed_retrain_timeout_s: float = Field(
        60, gt=0, description="longest wait for one reader's training (the last model serves meanwhile)"
    )
    digest_picks: int = Field(
        10, ge=0, le=50, description="为你推荐 papers of the last day kept per reader for the matcher's daily digest"
    )
    feed_picks_every_s: float = Field(3600, gt=0, description="how often every reader's 为你推荐 picks are refreshed")
    feed_window_days: int = Field(7, ge=1, le=90, description="为你推荐 ranks the papers changed in this many days")
