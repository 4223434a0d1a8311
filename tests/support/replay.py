"""The one way tests and benchmarks start the replay server (`papertrail replay`, recorded upstream responses served
over real HTTP): a process forked from the worker's zygote (tests/support/spawning.py), stopped after."""

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.support.paths import FIXTURES
from tests.support.servers import free_port
from tests.support.spawning import ZYGOTE
from tests.support.waiting import wait_until


@dataclass
class Replay:
    """A running replay server: its base URL, the requests it answered, and faults it is told to answer with."""

    url: str

    def fault(self, **fault: Any) -> None:
        httpx.post(f"{self.url}/_replay/faults", json=fault, timeout=5).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        return list(httpx.get(f"{self.url}/_replay/requests", timeout=5).json())

    def reset(self) -> None:
        httpx.delete(f"{self.url}/_replay/requests", timeout=5).raise_for_status()


@contextmanager
def replay_server(folder: Path = FIXTURES) -> Iterator[Replay]:
    """`papertrail replay --dir folder` on a free port, once it answers; stopped after."""
    port = free_port()
    process = ZYGOTE.spawn(["replay", "--dir", str(folder), "--port", str(port)], dict(os.environ), Path(os.devnull))
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: httpx.get(f"{url}/_replay/requests").status_code == 200, timeout=30, what="replay server")
        yield Replay(url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
