"""Running PaperTrail's services as real processes for integration tests, and stopping them."""

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.conftest import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def running_service(name: str, env: dict[str, str], log_dir: Path, ready_timeout: float = 60) -> Iterator[int]:
    """Start `python -m papertrail <name>` with `env`, wait for /readyz, yield its port, stop it after."""
    port = free_port()
    log_path = log_dir / f"{name}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "papertrail", name],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env, "HTTP_PORT": str(port)},
        )
        try:

            def ready() -> bool:
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited: {log_path.read_text()[-3000:]}")
                return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200

            wait_until(ready, timeout=ready_timeout, what=f"{name} /readyz")
            yield port
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
