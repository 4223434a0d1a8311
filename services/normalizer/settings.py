"""Normalizer settings."""

from pydantic import Field

from papertrail.runtime.settings import InfraSettings

DEFAULT_AI_CATEGORIES = ["cs.AI", "cs.CL", "cs.CV", "cs.LG", "cs.MA", "cs.NE", "cs.IR", "cs.RO", "stat.ML"]


class NormalizerSettings(InfraSettings):
    http_port: int = Field(8002, ge=1, le=65535, description="port of /metrics, /healthz, /readyz")
    ai_categories: list[str] = Field(DEFAULT_AI_CATEGORIES, description="categories that make a paper AI-related")
    merge_retries: int = Field(8, ge=1, description="attempts when another instance changed the paper meanwhile")
    batch_size: int = Field(500, ge=1, le=10_000, description="raw records handled (and written) together at most")
    batch_wait_ms: int = Field(200, ge=0, le=60_000, description="how long to wait for a batch to fill")
