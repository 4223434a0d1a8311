"""Query service settings, with the embedding model (EMBEDDING_*) whose vectors it indexes and queries with, and the
search vectors' (SEARCH_EMBEDDING_MODEL) that a search in Chinese is embedded by."""

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, SecretStr, ValidationInfo, field_validator

from papertrail.embedding.embedder import SearchEmbeddingSettings
from papertrail.runtime.mail import SmtpSettings
from papertrail.runtime.settings import PaperIndexSettings, TimeZoneName, WebhookPolicySettings
from services.query.accounts.rates import RATE_HELP, check_rate
from services.query.catalogue.reads.freshness import WINDOW_PATTERN

# A write limit: COUNT/PERIOD (services/query/accounts/rates.py); every replica counts in the same windows.
RateSetting = Annotated[str, AfterValidator(check_rate)]


QueryRole = Literal["api", "worker", "all"]


class QuerySettings(PaperIndexSettings, SmtpSettings, SearchEmbeddingSettings, WebhookPolicySettings):
    query_role: QueryRole = Field(
        "all",
        description="what this process of the query service does: api serves the API and pages only (no consumers, "
        "no background jobs: scale it for readers); worker runs the consumers (the search index, withdrawals, source "
        "runs) and the background jobs (retagging, vectors and search vectors attached to documents, reader-model "
        "training and digest picks, library imports), serving only /healthz, /readyz and /metrics; all does both (a "
        "laptop, make run)",
    )
    job_lease_s: float = Field(
        30,
        gt=0,
        le=600,
        description="time to live of a background job's lease: worker processes run each job one at a time across "
        "the replicas, and a stopped holder's job is taken over this long after its last renewal",
    )
    import_poll_s: float = Field(
        2, gt=0, le=600, description="how often a worker looks for library imports left to run (an api process's)"
    )
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
    overview_window: str = Field(
        "24h", pattern=WINDOW_PATTERN, description="default overview window, 1h to 90d, e.g. 24h or 7d"
    )
    public_url: str = Field(
        "http://127.0.0.1:8000",
        description="the site's base URL, as readers reach it: used in Atom feed links and the links of account mail; "
        "an https:// one makes the session cookie Secure (see COOKIE_SECURE)",
    )
    site_secret: SecretStr | None = Field(
        None,
        description="the key of what the site signs: the pages' CSRF tokens, the cookie of a browser that signed in "
        "to an account, the anonymous error reporters' address keys; at least 32 characters, the same on every API "
        "replica (`python -c 'import secrets; print(secrets.token_urlsafe(48))'`). Required with "
        "PAPERTRAIL_ENV=production (but by QUERY_ROLE=worker, which signs nothing); locally, unset, the service makes "
        "one and keeps it in MongoDB (site_keys), so every replica on that database uses the same",
    )
    signup: Literal["open", "closed"] = Field(
        "open", description="open: anyone can make an account at /signup; closed: only `papertrail users create`"
    )
    cookie_secure: bool | None = Field(
        None, description="send the session cookie only over https; unset: when PUBLIC_URL starts with https://"
    )
    session_days: float = Field(30, gt=0, le=365, description="how long a web session lasts after signing in")
    email_confirmation_without_smtp: Literal["waived", "operator"] = Field(
        "waived",
        description="when SMTP_HOST is unset no confirmation mail can be sent; waived: readers sign in with an "
        "unconfirmed address (the pages say no mail was sent and none is needed); operator: an account may sign in "
        "only once an operator confirms its address with `papertrail users confirm EMAIL` (the pages say so)",
    )
    email_token_hours: float = Field(
        24, gt=0, le=24 * 14, description="how long a mailed link (confirm the address, reset the password) works"
    )
    password_min_length: int = Field(10, ge=8, le=64, description="shortest password accepted at sign-up and reset")
    max_body_bytes: int = Field(
        1024 * 1024,
        ge=16 * 1024,
        description="largest request body taken (forms, JSON), refused with 413 before it is read; the library file "
        "imports have their own cap (the 24 MiB file and its form)",
    )
    body_read_timeout_s: float = Field(
        30,
        gt=0,
        le=600,
        description="a request body whose next part takes longer than this to arrive is answered 408 (nginx's "
        "client_body_timeout, here too)",
    )
    limit_corrections: RateSetting = Field(
        "20/1h", description=f"error reports per client address (anonymous) or per user; {RATE_HELP}"
    )
    limit_follow_writes: RateSetting = Field(
        "60/1h", description="follow, webhook and push channel writes (add, remove, set) per user"
    )
    limit_library_writes: RateSetting = Field(
        "600/1h", description="library and feedback writes (save, change, remove, the one-click marks) per user"
    )
    limit_imports: RateSetting = Field("20/1d", description="library file imports per user")
    limit_login_per_address: RateSetting = Field(
        "10/15min",
        description="sign-in attempts per client address; a browser that signed in to the account before counts on "
        "its own (not with everyone behind a shared address)",
    )
    limit_login_per_account: RateSetting = Field(
        "10/15min",
        description="failed sign-ins to one account (e-mail); past them it refuses only the clients that have been "
        "failing it: addresses that failed it, and browsers that signed in to it before past this many failures of "
        "their own (the owner signing in from elsewhere, or from a browser they used before, is not refused)",
    )
    limit_signup_per_address: RateSetting = Field("5/1h", description="sign-ups per client address")
    limit_mail_per_address: RateSetting = Field(
        "5/1h", description="confirmation and password-reset mails asked for, per client address"
    )
    limit_mail_per_account: RateSetting = Field(
        "1/20min",
        description="account mails of one kind (confirm, reset, 'this address has an account') sent to one e-mail "
        "address; past it no mail is sent, but nobody is refused: the page answers alike, and the link sent before "
        "works until it expires",
    )
    limit_password_checks: RateSetting = Field(
        "10/1h", description="attempts that check the current password (change it, make an API token), per user"
    )
    limit_token_creates: RateSetting = Field("10/1d", description="API tokens made on the account page, per user")

    @field_validator("site_secret")
    @classmethod
    def _secret_in_production(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        if value is None or not value.get_secret_value():
            serves_pages = info.data.get("query_role") != "worker"  # a worker signs nothing
            if info.data.get("papertrail_env") == "production" and serves_pages:
                raise ValueError("required with PAPERTRAIL_ENV=production: a random text of 32 characters or more")
            return None
        if len(value.get_secret_value()) < 32:
            raise ValueError("at least 32 characters: the key of every CSRF token and signed cookie")
        return value

    @property
    def secure_cookies(self) -> bool:
        return self.public_url.startswith("https://") if self.cookie_secure is None else self.cookie_secure

    library_import_chunk: int = Field(
        500,
        ge=1,
        le=5000,
        description="library-file entries an import resolves and records at a time: its progress moves by this much, "
        "and a restart repeats at most one chunk",
    )
    library_import_max_entries: int = Field(
        50_000,
        ge=1,
        le=1_000_000,
        description="most entries a library file may hold (and most @string, @preamble and @comment blocks a .bib "
        "may): reading stops at the entry past it and the file is refused (413) naming that entry's line; the time a "
        "file of this many entries holds a reading process is in docs/benchmarks.md",
    )
    library_import_readers: int = Field(
        2,
        ge=1,
        le=32,
        description="worker processes that read library files for imports, each started at its first file (~110 MB, "
        "~0.6 GB while it reads a 24 MiB .bib): one reader's file at a time each, so a reader's import waits for "
        "another's only while this many other readers' files are being read",
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
    hot_refresh_every_s: float = Field(
        86400,
        ge=60,
        description="how often every counted paper's citations per month (sort `hot`) is brought up to date: the rate "
        "falls as a paper ages though its count stays",
    )
    feed_window_days: int = Field(7, ge=1, le=90, description="为你推荐 ranks the papers changed in this many days")
