"""Harvester settings: base URLs, schedules and politeness per source."""

from pydantic import Field, field_validator

from papertrail.settings import InfraSettings

KNOWN_SOURCES = ("arxiv",)


class HarvesterSettings(InfraSettings):
    http_port: int = Field(8001, ge=1, le=65535, description="port of /metrics, /healthz, /readyz")
    sources: list[str] = Field(["arxiv"], description='sources to run on their schedules, e.g. ["arxiv"]')

    arxiv_oai_url: str = Field("https://oaipmh.arxiv.org/oai", description="arXiv OAI-PMH base URL")
    arxiv_metadata_prefix: str = Field("arXivRaw", description="OAI metadataPrefix: arXivRaw, arXiv or oai_dc")
    arxiv_sets: list[str] = Field(["cs"], description="OAI sets to harvest")
    arxiv_start_date: str | None = Field(
        None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="first `from` date when there is no checkpoint yet"
    )
    arxiv_interval_s: float = Field(3600, gt=0, description="seconds between arXiv runs")
    arxiv_min_request_interval_s: float = Field(3.0, ge=0, description="arXiv asks for one request per 3 s")

    http_timeout_s: float = Field(60, gt=0, description="timeout of one HTTP request to a source")
    http_retries: int = Field(5, ge=0, description="retries of a 5xx / timeout before the run fails")
    retry_after_max_s: float = Field(600, gt=0, description="longest Retry-After the harvester will honour")
    user_agent: str = Field("PaperTrail/0.1 (research paper tracker)", description="User-Agent sent to sources")

    @field_validator("sources")
    @classmethod
    def _known_sources(cls, value: list[str]) -> list[str]:
        unknown = [name for name in value if name not in KNOWN_SOURCES]
        if unknown:
            raise ValueError(f"unknown source(s) {unknown}; known: {list(KNOWN_SOURCES)}")
        return value
