"""`python -m services.query` runs the query service."""

from papertrail.cli import run_service

run_service("query")
