"""The query service's HTTP API."""
