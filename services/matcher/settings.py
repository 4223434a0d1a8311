"""Matcher settings: backfill window, webhook retries, the daily digest and SMTP, and the embedding model a similar
follow's description is embedded with (the summarizer's own: vectors of two models are not comparable)."""

from pydantic import Field

from papertrail.embedding.embedder import EmbeddingSettings
from papertrail.runtime.mail import SmtpSettings
from papertrail.runtime.settings import PaperIndexSettings, TimeZoneName, WebhookPolicySettings


class MatcherSettings(PaperIndexSettings, SmtpSettings, EmbeddingSettings, WebhookPolicySettings):
    http_port: int = Field(8004, ge=1, le=65535, description="port of /metrics, /healthz, /readyz")
    match_batch_size: int = Field(500, ge=1, le=10000, description="papers matched and recorded together")
    match_batch_wait_ms: int = Field(100, ge=1, description="longest wait to fill a batch of papers")
    backfill_days: int = Field(30, ge=0, le=3650, description="a new follow is matched against papers this recent")
    backfill_max_hits_per_term: int = Field(1000, ge=1, le=100_000, description="search hits read per backfill term")
    backfill_max_similar_papers: int = Field(
        20_000,
        ge=1,
        le=1_000_000,
        description="papers a new similar follow is scored against: the newest of the backfill window that have a "
        "vector",
    )
    backfill_stale_s: float = Field(
        600, gt=0, description="a backfill claimed this long ago without finishing is redone"
    )
    backfill_retry_s: list[float] = Field(
        [10, 60, 300, 1800],
        max_length=20,
        description="waits before retrying a failed backfill (the index not ready yet, Meilisearch down), "
        "one per retry; then it is retried only when the matcher starts again",
    )
    webhook_max_attempts: int = Field(
        4, ge=1, le=20, description="tries per webhook delivery (each a turn in the delivery queue, not a wait)"
    )
    webhook_backoff_s: float = Field(1.0, ge=0, description="first wait between webhook tries; doubles each try")
    webhook_backoff_max_s: float = Field(
        60.0,
        ge=0,
        description="longest wait between webhook tries (a Telegram chat over its flood limit may ask for longer: "
        "its retry_after is waited for, up to a day)",
    )
    webhook_timeout_s: float = Field(
        10.0,
        gt=0,
        description="timeout of one webhook request, the whole of it: connecting, sending, the answer's status "
        "(resolving the host has as long again)",
    )
    webhook_slow_fraction: float = Field(
        0.5,
        gt=0,
        le=1,
        description="an answer later than this fraction of WEBHOOK_TIMEOUT_S is slow: the delivery is delivered, "
        "and counts toward WEBHOOK_DISABLE_AFTER like a failed one",
    )
    webhook_disable_after: int = Field(
        5,
        ge=1,
        description="consecutive failed or slow deliveries to one host that disable a user's webhooks on that host "
        "(whatever their URLs: the webhook, push channels, follows' own)",
    )
    webhook_concurrency: int = Field(32, ge=1, le=1000, description="webhook tries running at once, per matcher")
    webhook_per_address: int = Field(
        2,
        ge=1,
        le=100,
        description="webhook tries running at once to one receiving address (an IPv6 /64), whatever the host names "
        "that resolve to it, per matcher: a slow receiver holds up only its own deliveries",
    )
    webhook_per_user: int = Field(
        4,
        ge=1,
        le=1000,
        description="webhook tries running at once for one user, whatever their webhooks' hosts and addresses, per "
        "matcher",
    )
    webhook_poll_s: float = Field(
        1.0,
        gt=0,
        le=60,
        description="how often the delivery queue is read when nothing wakes it (deliveries other replicas queued)",
    )
    digest_enabled: bool = Field(True, description="build a daily digest per user")
    digest_check_interval_s: float = Field(900, gt=0, description="how often to look for days to digest")
    digest_picks: int = Field(
        10, ge=0, le=50, description="为你推荐 papers a digest adds (the query service's reader_picks; 0: none)"
    )
    digest_timezone: TimeZoneName = Field("Asia/Shanghai", description="time zone whose calendar days digests cover")
    public_url: str = Field(
        "http://127.0.0.1:8000", description="base URL of the query service, for links in mail and group-bot messages"
    )
