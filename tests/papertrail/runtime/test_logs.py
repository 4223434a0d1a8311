"""Logs: one readable line per event on a terminal, JSON lines elsewhere, other libraries' chatter kept out."""

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime

import pytest

from papertrail.runtime.logs import configure_logging, text_line
from papertrail.runtime.settings import InfraSettings
from tests.support.paths import ROOT


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """configure_logging sets the process's root logger: give it back to pytest after each test."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    names = ("papertrail", "httpx2", "aiokafka")
    levels = {name: logging.getLogger(name).level for name in names}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, saved in levels.items():
        logging.getLogger(name).setLevel(saved)


def _lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_json_lines_off_a_terminal_carry_the_service_and_the_extra_fields() -> None:
    out = io.StringIO()
    log = configure_logging("normalizer", InfraSettings(), stream=out)
    log.info("batch stored", extra={"records": 12, "topic": "harvest.raw.v1"})
    (line,) = _lines(out)
    entry = json.loads(line)
    assert entry["service"] == "normalizer" and entry["level"] == "INFO" and entry["message"] == "batch stored"
    assert entry["records"] == 12 and entry["topic"] == "harvest.raw.v1"
    datetime.fromisoformat(entry["time"])


def test_text_is_one_line_per_event_with_time_service_level_message_and_fields() -> None:
    out = io.StringIO()
    log = configure_logging("query", InfraSettings(log_format="text"), stream=out)
    log.warning("transient error", extra={"topic": "papers.enriched.v1", "error": "ServerSelectionTimeoutError: x"})
    (line,) = _lines(out)
    time, service, level, rest = line.split(maxsplit=3)
    datetime.strptime(time, "%H:%M:%S.%f")
    assert (service, level) == ("query", "WARNING")
    assert rest == 'transient error  topic=papers.enriched.v1  error="ServerSelectionTimeoutError: x"'


def test_text_names_a_logger_other_than_the_services_own_and_puts_the_traceback_below() -> None:
    out = io.StringIO()
    configure_logging("query", InfraSettings(log_format="text"), stream=out)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("papertrail.kafka").exception("unexpected error handling message")
    first, *trace = _lines(out)
    assert first.split(maxsplit=3)[3] == "[kafka] unexpected error handling message"
    assert trace[0] == "Traceback (most recent call last):" and trace[-1] == "RuntimeError: boom"


def test_auto_is_text_on_a_terminal() -> None:
    leader, follower = os.openpty()
    with open(follower, "w", encoding="utf-8", closefd=True) as terminal, open(leader, "rb", buffering=0) as screen:
        log = configure_logging("matcher", InfraSettings(log_format="auto"), stream=terminal)
        log.error("digest mail failed", extra={"user": "ana"})
        terminal.flush()
        shown = screen.read(4096).decode()
    assert "\033[" in shown  # coloured by level
    plain = text_line({"time": "2026-05-08T10:00:00.000+00:00", "level": "ERROR", "service": "matcher",
                       "logger": "papertrail.matcher", "message": "digest mail failed", "user": "ana"})  # fmt: skip
    assert plain.split(maxsplit=1)[1] in shown.replace("\033[2m", "").replace("\033[0m", "").replace("\033[1;31m", "")


def test_other_libraries_log_warnings_only_unless_log_levels_asks() -> None:
    out = io.StringIO()
    configure_logging("query", InfraSettings(), stream=out)
    logging.getLogger("httpx2").info("HTTP Request: GET http://127.0.0.1:7700/tasks/1")
    logging.getLogger("aiokafka.consumer.group_coordinator").info("Joined group")
    logging.getLogger("aiokafka.consumer.group_coordinator").warning("Heartbeat failed")
    logging.getLogger("papertrail.query").info("papers retagged")
    assert [json.loads(line)["message"] for line in _lines(out)] == ["Heartbeat failed", "papers retagged"]

    out = io.StringIO()
    configure_logging("query", InfraSettings(log_levels={"httpx2": "info"}, log_level="WARNING"), stream=out)
    logging.getLogger("httpx2").info("HTTP Request: GET http://127.0.0.1:7700/tasks/2")
    logging.getLogger("papertrail.query").info("papers retagged")
    assert [json.loads(line)["logger"] for line in _lines(out)] == ["httpx2"]


def test_bad_log_settings_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="log_format"):
        InfraSettings(log_format="fancy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="aiokafka: must be DEBUG, INFO, WARNING or ERROR"):
        InfraSettings(log_levels={"aiokafka": "LOUD"})


def test_a_service_with_a_bad_log_format_stops_at_start_naming_it() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "papertrail", "normalizer"],
        cwd=ROOT,
        env={**os.environ, "LOG_FORMAT": "fancy"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "LOG_FORMAT: Input should be 'auto', 'json' or 'text' (got 'fancy')" in result.stderr
