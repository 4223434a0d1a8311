"""Summarizer settings: the OpenAI-compatible endpoint and its limits."""

from pydantic import Field, SecretStr, field_validator

from papertrail.settings import InfraSettings


class SummarizerSettings(InfraSettings):
    http_port: int = Field(8003, ge=1, le=65535, description="port of /metrics, /healthz, /readyz")
    openai_base_url: str | None = Field(None, description="OpenAI-compatible endpoint; unset: summaries pending")
    openai_api_key: SecretStr | None = Field(None, description="API key of the endpoint")
    openai_model: str | None = Field(None, description="model name, e.g. deepseek-chat")

    @field_validator("openai_base_url", "openai_model", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: str | None) -> str | None:
        return value or None

    @property
    def model_configured(self) -> bool:
        return bool(self.openai_base_url and self.openai_model)
