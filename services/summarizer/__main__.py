"""`python -m services.summarizer` runs the summarizer service."""

from papertrail.cli import run_service

run_service("summarizer")
