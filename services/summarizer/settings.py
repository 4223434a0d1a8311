"""Summarizer settings: the OpenAI-compatible endpoint and its limits, the embedding model (EMBEDDING_*) and the search
vectors' model (SEARCH_EMBEDDING_MODEL)."""

from typing import Literal

from pydantic import Field, SecretStr, field_validator

from papertrail.embedding.embedder import SearchEmbeddingSettings
from papertrail.runtime.settings import InfraSettings


class SummarizerSettings(InfraSettings, SearchEmbeddingSettings):
    http_port: int = Field(8003, ge=1, le=65535, description="port of /metrics, /healthz, /readyz")
    openai_base_url: str | None = Field(None, description="OpenAI-compatible endpoint; unset: summaries pending")
    openai_api_key: SecretStr | None = Field(None, description="API key of the endpoint")
    openai_model: str | None = Field(None, description="model name, e.g. deepseek-chat")
    openai_output: Literal["json_schema", "json_object"] = Field(
        "json_schema",
        description="json_schema: strict JSON-schema response format; json_object: JSON mode plus validation, "
        "for endpoints without JSON-schema support",
    )
    openai_timeout_s: float = Field(120.0, gt=0, description="timeout of one chat-completions request")
    openai_attempts: int = Field(4, ge=1, le=20, description="attempts per request on 429, 5xx and timeouts")
    openai_retry_initial_s: float = Field(1.0, gt=0, description="first backoff between attempts")
    openai_retry_max_s: float = Field(60.0, gt=0, description="longest backoff, Retry-After included")
    openai_max_output_tokens: int = Field(2000, ge=100, description="max_tokens of one answer")
    openai_temperature: float = Field(0.2, ge=0, le=2, description="sampling temperature")
    summary_concurrency: int = Field(4, ge=1, le=256, description="requests in flight at once")
    daily_token_budget: int = Field(
        2_000_000, ge=0, description="tokens (in + out) per UTC day; 0 = unlimited; when spent, summaries wait"
    )
    price_input_per_1k: float = Field(0.00027, ge=0, description="price of 1k input tokens, for the cost metric")
    price_output_per_1k: float = Field(0.0011, ge=0, description="price of 1k output tokens, for the cost metric")
    batch_size: int = Field(200, ge=1, le=10_000, description="normalized papers taken together from the topic")
    batch_wait_ms: int = Field(100, ge=1, description="longest wait to fill a batch of papers")
    sweep_interval_s: float = Field(60.0, gt=0, description="how often pending papers are retried")
    sweep_batch: int = Field(50, ge=1, le=10_000, description="pending papers taken per sweep")
    embedding_sweep_interval_s: float = Field(
        30.0, gt=0, description="longest wait of the embedding sweep; papers that start waiting wake it at once"
    )
    embedding_sweep_batch: int = Field(
        32,
        ge=1,
        le=10_000,
        description="papers embedded per sweep (one model call per model; on a free core MiniLM ~0.06 CPU-s a paper, "
        "with the search vectors' multilingual-e5-small-q4 ~0.19 more)",
    )

    titles_base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint of a local model that gives waiting papers a Chinese title alone while "
        "no summary endpoint is set (`make titles`); ignored when OPENAI_BASE_URL is set (summaries carry titles)",
    )
    titles_model: str | None = Field(None, description="its model name, e.g. qwen2.5-coder-1.5b-instruct")
    titles_concurrency: int = Field(
        4, ge=1, le=64, description="title requests in flight at once (the local server's parallel slots, 4)"
    )
    titles_batch: int = Field(16, ge=1, le=10_000, description="waiting papers titled per title sweep")
    titles_sweep_interval_s: float = Field(
        30.0, gt=0, description="wait of the title sweep after it found nothing to do or the endpoint down"
    )
    titles_timeout_s: float = Field(120.0, gt=0, description="timeout of one title request")

    @field_validator("openai_base_url", "openai_model", "titles_base_url", "titles_model", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("openai_base_url", "titles_base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https:// (e.g. https://api.deepseek.com/v1)")
        return value

    @property
    def model_configured(self) -> bool:
        return bool(self.openai_base_url and self.openai_model)

    @property
    def titles_configured(self) -> bool:
        """The title path runs only without a summary endpoint: with one, every summary carries its title."""
        return bool(self.titles_base_url and self.titles_model) and not self.model_configured
