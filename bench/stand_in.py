"""The local MongoDB stand-in (secantusdb, a development dependency) started for one benchmark run, on a free port
with its data in a temporary folder, stopped and removed after it."""

import asyncio
import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

from pymongo import MongoClient

from tests.support.servers import free_port
from tests.support.waiting import wait_until


@contextlib.contextmanager
def local_mongodb() -> Iterator[str]:
    """The stand-in's URL while it runs."""
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        command = [str(Path(sys.executable).parent / "secantusd-py"), "--host", "127.0.0.1", "--port", str(port),
                   "--storage-path", folder, "--log-level", "WARNING"]  # fmt: skip
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"mongodb://127.0.0.1:{port}"
            wait_until(lambda: MongoClient(url, serverSelectionTimeoutMS=500).admin.command("ping"), 60, what="mongodb")
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


def run_on_mongodb(url: str | None, run: Callable[[str], Coroutine[Any, Any, None]]) -> None:
    """`run` on the MongoDB at `url`, or on the stand-in started for it when there is none."""
    if url:
        asyncio.run(run(url))
        return
    with local_mongodb() as started:
        print("server: secantusdb (the local MongoDB stand-in)")
        asyncio.run(run(started))
