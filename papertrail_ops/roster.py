"""The five services: their names, settings classes and default ports. Facts both commands and the tooling read;
this module imports none of them, so none of them imports another through it."""

import importlib

from pydantic_settings import BaseSettings

SERVICES = ("harvester", "normalizer", "summarizer", "matcher", "query")


def settings_class(service: str) -> type[BaseSettings]:
    """The service's own settings class: the one its settings module defines (not the shared ones it imports)."""
    module = importlib.import_module(f"services.{service}.settings")
    return next(
        v
        for k, v in vars(module).items()
        if k.endswith("Settings") and isinstance(v, type) and v.__module__ == module.__name__
    )


def service_port(name: str) -> int:
    """The service's default HTTP port, which `papertrail run` gives it (HTTP_PORT is per process)."""
    return int(settings_class(name).model_fields["http_port"].default)
