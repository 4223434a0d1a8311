"""Matcher settings."""

from pydantic import Field

from papertrail.settings import InfraSettings


class MatcherSettings(InfraSettings):
    http_port: int = Field(8004, ge=1, le=65535, description="port of /metrics, /healthz, /readyz")
