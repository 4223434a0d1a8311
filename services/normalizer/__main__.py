"""`python -m services.normalizer` runs the normalizer service."""

from papertrail.cli import run_service

run_service("normalizer")
