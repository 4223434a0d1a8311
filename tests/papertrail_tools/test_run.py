"""`papertrail run`: all five services ready, one prefixed log stream, and Ctrl-C leaves no process behind."""

import os
import signal
import subprocess
import sys
import threading
import uuid

import httpx
import pytest

from papertrail_tools.cli import SERVICES, service_port
from tests.conftest import Servers, free_port, wait_until
from tests.integration.services import ROOT

pytestmark = pytest.mark.integration


def _free_offset() -> int:
    """An offset that puts all five default ports on free ports."""
    for _ in range(50):
        offset = free_port() - 8000
        if offset > 0 and all(_port_free(service_port(n) + offset) for n in SERVICES):
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
        wait_until(lambda: any("all services ready" in line for line in lines), timeout=180, what="all services ready")
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
