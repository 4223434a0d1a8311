"""`python -m services.harvester` runs the harvester service."""

from papertrail.cli import run_service

run_service("harvester")
