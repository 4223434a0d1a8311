"""`papertrail run` (the supervisor of the whole stack) as a process, and what its log says."""

import json
import os
import random
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from papertrail_tools.cli import SERVICES, service_port
from tests.support.paths import ROOT
from tests.support.servers import Servers, ephemeral_port_start


def free_port_offset() -> int:
    """An offset that puts all five default ports (8000-8004) on free ports below the kernel's ephemeral range:
    a port taken from that range can be handed to some client's outgoing connection before the service binds it."""
    for _ in range(200):
        offset = random.randrange(2000, ephemeral_port_start() - 8000 - 10)
        if all(port_free(service_port(n) + offset) for n in SERVICES):
            return offset
    raise AssertionError("no free port range found")


def port_free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0 and port < 65536


@contextmanager
def papertrail_run(env: dict[str, str], offset: int) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """`papertrail run` as a real process, its output (JSON lines: not a terminal) collected as it comes."""
    process = subprocess.Popen(
        [sys.executable, "-m", "papertrail", "run", "--port-offset", str(offset)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True).start()  # type: ignore[union-attr]
    try:
        yield process, lines
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=120)


def run_environment(servers: Servers, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        **servers.environment(),
        "MONGODB_DATABASE": f"papertrail_run_{uuid.uuid4().hex[:6]}",
        "INDEX_NAME": f"papers_run_{uuid.uuid4().hex[:6]}",
        "SOURCES": "[]",
        "TOPIC_PARTITIONS": "3",
        **extra,
    }


def log_events(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in list(lines)]
