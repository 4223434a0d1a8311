"""`papertrail run`: all five services ready, one prefixed log stream, and Ctrl-C leaves no process behind."""

import os
import random
import signal
import subprocess
import sys
import threading
import uuid

import httpx
import pytest

from papertrail.cli import SERVICES, service_port
from tests.conftest import GiveUp, Servers, ephemeral_port_start, wait_until
from tests.integration.services import ROOT

pytestmark = pytest.mark.integration


def _free_offset() -> int:
    """An offset that puts all five default ports (8000-8004) on free ports below the kernel's ephemeral range:
    a port taken from that range can be handed to some client's outgoing connection before the service binds it."""
    for _ in range(200):
        offset = random.randrange(2000, ephemeral_port_start() - 8000 - 10)
        if all(_port_free(service_port(n) + offset) for n in SERVICES):
            return offset
    raise AssertionError("no free port range found")


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0 and port < 65536


def _children(pid: int) -> set[int]:
    result = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    return {int(p) for p in result.stdout.split()}


def test_run_starts_all_services_and_ctrl_c_stops_them(servers: Servers) -> None:
    offset = _free_offset()
    env = {
        **os.environ,
        **servers.environment(),
        "MONGODB_DATABASE": f"papertrail_run_{uuid.uuid4().hex[:6]}",
        "INDEX_NAME": f"papers_run_{uuid.uuid4().hex[:6]}",
        "SOURCES": "[]",
        "TOPIC_PARTITIONS": "3",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "papertrail", "run", "--port-offset", str(offset)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        # five Python processes importing and connecting at once on a 2-core machine: generous, not a speed test

        def all_ready() -> bool:
            if process.poll() is not None:
                raise GiveUp(f"papertrail run exited with {process.returncode}:\n{''.join(lines[-40:])}")
            return any("all services ready" in line for line in lines)

        wait_until(all_ready, timeout=180, what="all services ready")
        children = _children(process.pid)
        assert len(children) == len(SERVICES)
        for name in SERVICES:
            port = service_port(name) + offset
            assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200, name
            assert any(
                line.startswith(f"{name} ") or line.startswith(f"{name}|") or line.split("|")[0].strip() == name
                for line in lines
            ), f"no log line prefixed {name}"
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
    assert code == 0
    assert not any(_alive(pid) for pid in children), "a service outlived `papertrail run`"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"
