"""Logging shared by every service: JSON lines for machines, one readable line per event for a person at a terminal.

PaperTrail's own loggers (`papertrail.*`) log at LOG_LEVEL; every other library logs warnings and errors only,
unless LOG_LEVELS asks for more: the Meilisearch client logs each HTTP request of its task polling (every ~50 ms),
aiokafka every group event, uvicorn every request. FastStream's "Received" / "Processed" of each message are at
DEBUG (papertrail/runtime/kafka.py sets the broker's log level).
"""

import json
import logging
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import IO, Any, Literal

from papertrail.runtime.settings import InfraSettings

# uvicorn's `color_message` repeats the message with terminal colours
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}
_FIRST = ("time", "level", "service", "logger", "message", "exception")
_COLOURS = {"DEBUG": "\033[2m", "WARNING": "\033[33m", "ERROR": "\033[1;31m", "CRITICAL": "\033[1;31m"}
_DIM, _RESET = "\033[2m", "\033[0m"
SERVICE_WIDTH = 10  # the longest service name (normalizer, summarizer) and `papertrail`, the supervisor


def log_entry(record: logging.LogRecord, service: str, exception: str = "") -> dict[str, Any]:
    """A record as one event: time (UTC, ISO 8601), level, service, logger, message, then its `extra` fields."""
    entry: dict[str, Any] = {
        "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
        "level": record.levelname,
        "service": service,
        "logger": record.name,
        "message": record.getMessage(),
    }
    for key, value in record.__dict__.items():
        if key not in _STANDARD and key not in entry and not key.startswith("_"):
            entry[key] = value
    if exception:
        entry["exception"] = exception
    return entry


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if text and not any(c.isspace() or c in "\"'=" for c in text):
        return text
    return json.dumps(text, ensure_ascii=False)


def text_line(entry: Mapping[str, Any], colour: bool = False) -> str:
    """`14:03:07.412 query      WARNING  message  key=value …` in local time; the logger is named when it is not the
    service's own, an exception's traceback follows on the next lines."""
    try:
        when = datetime.fromisoformat(str(entry["time"])).astimezone().strftime("%H:%M:%S.%f")[:-3]
    except (KeyError, ValueError):
        when = " " * 12
    level, service = str(entry.get("level", "")), str(entry.get("service", ""))
    logger = str(entry.get("logger", ""))
    source = "" if logger in ("", f"papertrail.{service}") else f"[{logger.removeprefix('papertrail.')}] "
    fields = "  ".join(f"{k}={_value(v)}" for k, v in entry.items() if k not in _FIRST and v not in ("", None))
    message = f"{source}{entry.get('message', '')}" + (f"  {fields}" if fields else "")
    head = f"{when} {service:<{SERVICE_WIDTH}} "
    if colour:
        paint = _COLOURS.get(level, "")
        line = f"{_DIM}{head}{_RESET}{paint}{level:<8} {message}{_RESET if paint else ''}"
    else:
        line = f"{head}{level:<8} {message}"
    if entry.get("exception"):
        line += "\n" + str(entry["exception"])
    return line


class JsonLineFormatter(logging.Formatter):
    """Formats a record as a JSON line: time, level, service, logger, message and any `extra` fields."""

    def __init__(self, service: str = "") -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        exception = self.formatException(record.exc_info) if record.exc_info else ""
        return json.dumps(log_entry(record, self.service, exception), ensure_ascii=False, default=str)


class TextLineFormatter(JsonLineFormatter):
    """Formats a record as one readable line (text_line), coloured by level when written to a terminal."""

    def __init__(self, service: str = "", colour: bool = False) -> None:
        super().__init__(service)
        self.colour = colour

    def format(self, record: logging.LogRecord) -> str:
        exception = self.formatException(record.exc_info) if record.exc_info else ""
        return text_line(log_entry(record, self.service, exception), self.colour)


def resolved_format(log_format: str, stream: IO[str]) -> Literal["json", "text"]:
    """LOG_FORMAT=auto is text on a terminal and JSON anywhere else (a pipe, a file, a container's log)."""
    if log_format == "auto":
        return "text" if stream.isatty() else "json"
    return "text" if log_format == "text" else "json"


def configure_logging(service: str, settings: InfraSettings, stream: IO[str] | None = None) -> logging.Logger:
    """Send every logger's records to stderr (or `stream`) in LOG_FORMAT at the levels of LOG_LEVEL and LOG_LEVELS;
    return the service's own logger."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    if resolved_format(settings.log_format, stream) == "text":
        handler.setFormatter(TextLineFormatter(service, colour=stream.isatty()))
    else:
        handler.setFormatter(JsonLineFormatter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("papertrail").setLevel(settings.log_level)
    for name, level in settings.log_levels.items():
        logging.getLogger(name).setLevel(level)
    return logging.getLogger(f"papertrail.{service}")
