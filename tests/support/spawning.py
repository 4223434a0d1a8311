"""Service processes forked from a process that has already imported every service (a zygote).

A service started as `python -m papertrail NAME` spends seconds of CPU importing its libraries before it reads a
setting, and the suite starts services about a hundred times on two cores. The zygote imports them once per pytest
worker, single-threaded, and forks a child for each start: the child sets the environment, working folder and log
the test asked for, then runs `papertrail NAME` as `python -m` would, in a process of its own. What the service does
is unchanged; only the interpreter's start is shared. Tests of the command itself (settings refused at start,
`papertrail run`'s supervision, the resilience drills) keep exec'ing a fresh interpreter.

Protocol: one JSON object a line on the zygote's stdin, one answer a line on the control pipe it was given.
"""

import json
import os
import runpy
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# What a service imports at start and when it first serves; imported before any fork, so no child pays for it.
PRELOAD = (
    "papertrail_tools.cli",
    "papertrail_ops.cli",
    *(f"services.{name}.app" for name in ("harvester", "normalizer", "summarizer", "matcher", "query")),
    *(f"services.{name}.settings" for name in ("harvester", "normalizer", "summarizer", "matcher", "query")),
    "uvicorn.config",
    "uvicorn.server",
    "uvicorn.main",
    "uvicorn.loops.auto",
    "uvicorn.loops.uvloop",
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.websockets.auto",
    "uvicorn.lifespan.on",
    "aiokafka.admin",
    "pymongo.asynchronous.mongo_client",
    "numpy",
)  # not onnxruntime nor scikit-learn: importing them starts native threads, and a fork keeps only one thread


def _run_child(request: dict[str, Any], control_fds: tuple[int, ...]) -> None:
    """In the forked child: become the service the request names; never returns."""
    code = 1
    try:
        for fd in control_fds:
            os.close(fd)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        stdin = os.open(request.get("stdin") or os.devnull, os.O_RDONLY)
        os.dup2(stdin, 0)
        os.close(stdin)
        for fd, path in ((1, request["log"]), (2, request.get("stderr") or request["log"])):
            out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.dup2(out, fd)
            os.close(out)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = ["papertrail", *request["args"]]
        runpy.run_module("papertrail", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exit_:
        if exit_.code is None:
            code = 0
        elif isinstance(exit_.code, int):
            code = exit_.code
        else:
            print(exit_.code, file=sys.stderr)
            code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def serve(control_fd: int) -> None:
    """The zygote: import everything, then fork a service per request until stdin closes."""
    import importlib

    for module in PRELOAD:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    from papertrail.domain.institutions.matching import shipped_matcher

    shipped_matcher()  # the ROR catalogue indexed once here, not again in every normalizer forked
    threads = len(os.listdir("/proc/self/task"))
    control = os.fdopen(control_fd, "w", buffering=1)
    if threads != 1 or threading.active_count() != 1:  # a fork would copy a thread's locks without the thread
        control.write(json.dumps({"error": f"the zygote has {threads} threads after its imports"}) + "\n")
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the test process stops the zygote by closing its stdin
    exited: dict[int, int] = {}
    control.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        while True:  # reap the children that have ended, keeping their codes until asked
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            exited[pid] = os.waitstatus_to_exitcode(status)
        if request["op"] == "spawn":
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _run_child(request, (control_fd,))
            answer: dict[str, Any] = {"pid": pid}
        else:  # poll
            answer = {"returncode": exited.pop(request["pid"], None)}
        control.write(json.dumps(answer) + "\n")


class Zygote:
    """The test side: one zygote per pytest worker, started at first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._answers: Any = None

    def _started(self) -> subprocess.Popen[str]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        read_fd, write_fd = os.pipe()
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.spawning", str(write_fd)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            pass_fds=(write_fd,),
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},  # else numpy's import starts OpenBLAS's threads
        )
        os.close(write_fd)
        self._answers = os.fdopen(read_fd, "r")
        ready = json.loads(self._answers.readline() or '{"error": "the zygote exited while importing"}')
        if "error" in ready:
            raise RuntimeError(ready["error"])
        return self._process

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            process = self._started()
            assert process.stdin is not None
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            answer: dict[str, Any] = json.loads(self._answers.readline())
            return answer

    def spawn(
        self,
        args: list[str],
        env: dict[str, str],
        log: Path,
        cwd: Path = ROOT,
        stderr: Path | None = None,
        stdin: Path | None = None,
    ) -> "ServiceProcess":
        """`papertrail ARGS` started in a child of the zygote, its output written to `log` (stderr too unless given
        its own file), each emptied first as a fresh start's log is."""
        for path in (log, stderr):
            if path is not None and path != Path(os.devnull):
                path.write_bytes(b"")
        request: dict[str, Any] = {"op": "spawn", "args": args, "env": env, "log": str(log), "cwd": str(cwd)}
        request |= {"stderr": str(stderr) if stderr else None, "stdin": str(stdin) if stdin else None}
        return ServiceProcess(self, self._ask(request)["pid"])

    def run(
        self, args: list[str], env: dict[str, str], input: str | None = None, timeout: float = 120, cwd: Path = ROOT
    ) -> subprocess.CompletedProcess[str]:
        """`papertrail ARGS` as an operator runs it, to its end, as subprocess.run(capture_output=True, text=True)
        answers."""
        with tempfile.TemporaryDirectory(prefix="papertrail-cli-") as folder:
            out, err, given = Path(folder, "stdout"), Path(folder, "stderr"), Path(folder, "stdin")
            given.write_text(input or "")
            process = self.spawn(args, env, out, cwd, stderr=err, stdin=given)
            try:
                code = process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise
            return subprocess.CompletedProcess(
                ["papertrail", *args], code, out.read_text(errors="replace"), err.read_text(errors="replace")
            )

    def returncode(self, pid: int) -> int | None:
        code: int | None = self._ask({"op": "poll", "pid": pid})["returncode"]
        return code


class ServiceProcess:
    """A forked service, with the part of subprocess.Popen's interface the tests use. Signals go through a pidfd,
    so a signal never reaches another process that reused the pid after this one was reaped."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._zygote = zygote
        self._pidfd = os.pidfd_open(pid)

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._zygote.returncode(self.pid)
            if self.returncode is not None:
                os.close(self._pidfd)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                signal.pidfd_send_signal(self._pidfd, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            ended, _, _ = select.select([self._pidfd], [], [], timeout)  # readable once the process has ended
            if not ended:
                raise subprocess.TimeoutExpired(["papertrail", str(self.pid)], timeout or 0)
        while self.poll() is None:  # ended; the zygote reaps it at its next request
            pass
        assert self.returncode is not None
        return self.returncode


ZYGOTE = Zygote()


def nested_pytest_env() -> dict[str, str]:
    """The environment for a pytest run a test starts: without the outer run's PYTEST_ADDOPTS, whose --basetemp (a
    measurement's, say) the inner run would empty as it starts, servers' data dirs and all."""
    return {name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"}


if __name__ == "__main__":
    serve(int(sys.argv[1]))
