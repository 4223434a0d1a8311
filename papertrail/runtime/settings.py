"""Settings every service shares: where Kafka, MongoDB and Meilisearch are, and how to serve HTTP."""

import ipaddress
import re
import socket
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from papertrail.runtime.outbound import OutboundPolicy


def _iana_zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"{value!r} is not an IANA time zone such as Asia/Shanghai") from error
    return value


def _level_name(value: str, logger: str = "") -> str:
    level = value.upper()
    if level not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
        raise ValueError(f"{logger + ': ' if logger else ''}must be DEBUG, INFO, WARNING or ERROR")
    return level


_INSTANCE_ID = re.compile(r"[A-Za-z0-9._-]{1,100}")

# Meilisearch's key when none is set: public (it is in this repository), so fit for a laptop only.
LOCAL_MEILI_KEY = "papertrail-local-master-key"
PaperTrailEnv = Literal["local", "production"]

# A setting naming a time zone (times are stored in UTC; zones are for display and calendar days).
TimeZoneName = Annotated[str, AfterValidator(_iana_zone)]


class InfraSettings(BaseSettings):
    """Connection settings read from the environment; each service's settings class extends this one."""

    model_config = SettingsConfigDict(extra="ignore", validate_default=True)

    # first: the checks of later settings read it
    papertrail_env: PaperTrailEnv = Field(
        "local",
        description="production: a public default key or a missing secret stops the service at start (the image "
        "sets it, so compose and Kubernetes run in production); local: a source checkout, the tests, `make run` — "
        "the local stack's keys and a site secret the query service makes itself are accepted",
    )
    kafka_bootstrap_servers: str = Field("127.0.0.1:9092", description="Kafka bootstrap servers, host:port[,..]")
    mongodb_url: str = Field("mongodb://127.0.0.1:27017", description="MongoDB connection URL")
    mongodb_database: str = Field("papertrail", description="MongoDB database name")
    meili_url: str = Field("http://127.0.0.1:7700", description="Meilisearch base URL")
    meili_master_key: SecretStr = Field(
        SecretStr(LOCAL_MEILI_KEY),
        description=f"Meilisearch key; the default ({LOCAL_MEILI_KEY}) is public and refused in production",
    )
    kafka_idempotent_producer: bool = Field(
        True,
        description="publish with Kafka's idempotent producer (no duplicates from the producer's own retries); off "
        "only for brokers that do not grant producer ids, such as Tansu's memory store (STACK_KAFKA_BROKER=tansu)",
    )
    kafka_name_prefix: str = Field(
        "",
        pattern=r"^[A-Za-z0-9._-]{0,100}$",
        description="put before the name of every topic and consumer group PaperTrail uses (e.g. `staging.`): "
        "installations, or test runs, sharing one Kafka cluster then never read each other's events or offsets; "
        "empty: the names of docs/events.md",
    )
    topic_partitions: int = Field(6, ge=1, le=1024, description="partitions of each topic created at start")
    topic_replication_factor: int = Field(
        1,
        ge=1,
        le=32,
        description="copies of each partition of a topic created at start: 1 for a single broker (compose, the "
        "local stack); 3 on a cluster of three or more brokers, so that losing one loses no event",
    )
    topic_retention_hours: float = Field(
        168,
        gt=0,
        description="how long Kafka keeps the events of a topic created at start (168 h is Kafka's own default; "
        "the local broker keeps every event in memory and rewrites them all to disk every few seconds while it is "
        "written to, so unbounded topics cost it ever more CPU)",
    )
    dead_letter_retention_hours: float = Field(
        720, gt=0, description="how long a dead-letter topic created at start keeps messages for an operator"
    )
    startup_timeout_s: float = Field(15.0, gt=0, description="how long to wait for a dependency at start")
    log_level: str = Field("INFO", description="DEBUG, INFO, WARNING or ERROR: PaperTrail's own log (DEBUG adds a line "
                           "per message handled)")  # fmt: skip
    log_format: Literal["auto", "json", "text"] = Field(
        "auto",
        description="json: one JSON object per line; text: one readable line per event (time, service, level, "
        "message, key=value fields); auto: text on a terminal, JSON anywhere else",
    )
    log_levels: dict[str, str] = Field(
        default_factory=dict,
        description="levels of other libraries' loggers, which log warnings and errors only: e.g. "
        '{"aiokafka": "INFO", "httpx2": "INFO", "uvicorn": "INFO"}',
    )
    http_host: str = Field("127.0.0.1", description="address the service's HTTP server binds")
    http_max_header_bytes: int = Field(
        16 * 1024,
        ge=4 * 1024,
        le=1024 * 1024,
        description="largest request line and headers taken, in bytes: a larger request is refused with 431",
    )
    http_header_timeout_s: float = Field(
        10,
        gt=0,
        le=300,
        description="a connection whose request line and headers have not all arrived this long after it opened "
        "(or after the request began) is answered 408 and closed: nobody holds a connection by trickling headers",
    )
    http_keep_alive_s: int = Field(
        5, ge=1, le=300, description="an idle kept-alive connection is closed after this long (uvicorn's own default)"
    )
    http_max_connections: int = Field(
        1000,
        ge=10,
        le=100_000,
        description="connections and requests one process serves at once; past it a new one is answered 503 at "
        "once (uvicorn's limit_concurrency), so slow clients cannot take every file descriptor",
    )
    metrics_allowed_networks: str = Field(
        "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7",
        description="networks (comma-separated) whose clients may read /metrics: Prometheus on the host, the compose "
        "network or the cluster's pod network; anyone else, and any request that came through a proxy "
        "(X-Forwarded-For, Forwarded or X-Real-IP), gets 404, so the public API port never shows it",
    )
    trusted_proxies: str = Field(
        "",
        description="addresses (comma-separated IPs or networks, * for any) of the reverse proxies whose "
        "X-Forwarded-For and X-Forwarded-Proto are believed: the client address the write limits count is then "
        "the proxy's word; empty: the headers are ignored and the peer's address counts",
    )
    instance_id: str = Field(
        "",
        description="this instance's name in its consumer groups (Kafka static membership): the same across "
        "restarts, different for each replica of a service; empty: the host name",
    )

    @field_validator("metrics_allowed_networks")
    @classmethod
    def _networks(cls, value: str) -> str:
        for network in value.split(","):
            if network.strip():
                ipaddress.ip_network(network.strip(), strict=False)  # a ValueError names the bad one
        return value

    @field_validator("meili_master_key")
    @classmethod
    def _no_public_key_in_production(cls, value: SecretStr, info: ValidationInfo) -> SecretStr:
        if info.data.get("papertrail_env") == "production" and value.get_secret_value() in ("", LOCAL_MEILI_KEY):
            raise ValueError(
                f"with PAPERTRAIL_ENV=production set a key of your own: {LOCAL_MEILI_KEY!r} is public, and Meilisearch "
                "with MEILI_ENV=production must not run with it"
            )
        return value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        return _level_name(value)

    @field_validator("log_levels")
    @classmethod
    def _known_levels(cls, value: dict[str, str]) -> dict[str, str]:
        return {logger: _level_name(level, logger) for logger, level in value.items()}

    @field_validator("instance_id")
    @classmethod
    def _group_instance_name(cls, value: str) -> str:
        # A killed instance that starts again under the same name takes over its partitions at once; a compose
        # replica or a pod has its own host name, so the default fits deployments. Kafka's group.instance.id rules.
        name = value or socket.gethostname()
        if not _INSTANCE_ID.fullmatch(name):
            raise ValueError(f"{name!r}: use 1 to 100 letters, digits, '.', '_' or '-'")
        return name

    @field_validator("kafka_bootstrap_servers")
    @classmethod
    def _host_port_list(cls, value: str) -> str:
        for server in value.split(","):
            host, _, port = server.strip().rpartition(":")
            if not host or not port.isdigit():
                raise ValueError(f"{server!r} is not host:port")
        return value

    @field_validator("mongodb_url")
    @classmethod
    def _mongo_scheme(cls, value: str) -> str:
        if not value.startswith(("mongodb://", "mongodb+srv://")):
            raise ValueError("must start with mongodb:// or mongodb+srv://")
        return value

    @field_validator("meili_url")
    @classmethod
    def _http_scheme(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")


class PaperIndexSettings(InfraSettings):
    """Settings of a service that uses the Meilisearch index of papers: one setting names it for every such service
    (the query service writes it, the matcher's backfill searches it), so the two never disagree."""

    index_name: str = Field(
        "papers",
        pattern=r"^[A-Za-z0-9_-]+$",
        description="Meilisearch index of papers (the query service writes it, the matcher's backfill searches it)",
    )


class WebhookPolicySettings(BaseSettings):
    """The one setting of what webhooks may reach, in the settings of the service that takes webhook URLs (query:
    refused when written) and of the one that delivers them (matcher: refused when connecting), so both agree."""

    webhook_allowed_hosts: str = Field(
        "",
        description="comma-separated host names, addresses and networks (CIDR) webhooks may reach although they are "
        "internal (loopback, private, link-local ...: refused otherwise), for on-premises receivers, e.g. "
        "hooks.lab.internal,10.20.0.0/16; a name is allowed whatever it resolves to; empty: only public addresses",
    )

    @field_validator("webhook_allowed_hosts")
    @classmethod
    def _allowed_entries(cls, value: str) -> str:
        OutboundPolicy.from_setting(value)  # ValueError names the bad entry
        return value

    @property
    def webhook_policy(self) -> OutboundPolicy:
        return OutboundPolicy.from_setting(self.webhook_allowed_hosts)
