"""`python -m services.matcher` runs the matcher service."""

from papertrail.cli import run_service

run_service("matcher")
