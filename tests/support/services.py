"""PaperTrail's services as real processes for tests (forked from the worker's zygote, tests/support/spawning.py),
ready once they answer /readyz, stopped after; and the `papertrail` command as an operator runs it."""

import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.servers import free_port
from tests.support.spawning import ZYGOTE, ServiceProcess
from tests.support.waiting import GiveUp, wait_until


@contextmanager
def running_services(
    names: Sequence[str], env: dict[str, str], log_dir: Path, ready_timeout: float = 90
) -> Iterator[dict[str, int]]:
    """Start `papertrail <name>` for every name at once, each a process of its own (forked from the worker's zygote,
    tests/support/spawning.py), wait until each answers /readyz, yield their ports; stop them all after. A service
    that exits while starting fails at once with its log, unless Kafka's group coordinator failed its first join:
    then it is started once more, as its supervisor would (`papertrail run`, Kubernetes)."""
    processes: dict[str, tuple[ServiceProcess, int, Path]] = {}

    def spawn(name: str, port: int, log_path: Path) -> ServiceProcess:
        return ZYGOTE.spawn([name], {**os.environ, **env, "HTTP_PORT": str(port)}, log_path)

    try:
        for name in names:
            port = free_port()
            log_path = log_dir / f"{name}.log"
            processes[name] = (spawn(name, port, log_path), port, log_path)
        for name in list(processes):
            restarted: list[str] = []

            def ready(name: str = name, restarted: list[str] = restarted) -> bool:
                process, port, log_path = processes[name]
                if process.poll() is not None:
                    log = log_path.read_text()
                    # the local broker once answered a consumer's join with an unknown error (KafkaError: UnknownError)
                    if "aiokafka.errors.KafkaError" in log and not restarted:
                        restarted.append(log)
                        log_path.write_text("")
                        processes[name] = (spawn(name, port, log_path), port, log_path)
                        return False
                    raise GiveUp(f"{name} exited: {''.join(restarted)[-1500:]}{log[-3000:]}")
                return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200

            wait_until(ready, timeout=ready_timeout, what=f"{name} /readyz")
        yield {name: port for name, (_, port, _) in processes.items()}
    finally:
        for process, _, _ in processes.values():
            if process.poll() is None:
                process.terminate()
        for process, _, _ in processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def running_service(name: str, env: dict[str, str], log_dir: Path, ready_timeout: float = 90) -> Iterator[int]:
    """One service as a real process (see running_services); yields its HTTP port."""
    with running_services([name], env, log_dir, ready_timeout) as ports:
        yield ports[name]


def papertrail_cli(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`python -m papertrail ARGS` as an operator runs it, against the given environment."""
    done = ZYGOTE.run(list(args), {**os.environ, **env})
    if check:
        done.check_returncode()
    return done


def create_user(env: dict[str, str], name: str) -> str:
    """A user made as an operator makes one (`papertrail users create`); returns the token it prints."""
    return papertrail_cli(env, "users", "create", name).stdout.strip().splitlines()[-1]
