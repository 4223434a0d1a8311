"""`papertrail run`'s supervisor: the services as child processes, one log stream, a service that dies restarted.

A child that exits is started again after a pause that doubles with each exit in a row (1 s, 2 s, 4 s … at most
30 s) while the others keep working; a run that lasted `stable_after_s` resets the count. A service that keeps
dying soon after its start (bad settings, a dependency it cannot use) is given up after `give_up_after` such exits:
the supervisor names it, shows its last lines, stops the others and exits 1. Ctrl-C, SIGTERM or a closed terminal
(SIGHUP) stops the children one by one in `stop_order` (each in its own process group, so a terminal's Ctrl-C
reaches the supervisor only) and exits 0.

The children always log JSON lines; the supervisor writes them out as they came (LOG_FORMAT=json, or auto off a
terminal) or as one readable line each (text, or auto on a terminal), so both outputs stay one format throughout.
Restarts are also visible in Prometheus: each restart is a new `process_start_time_seconds` of that job.
"""

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any, Literal

from papertrail.runtime.logs import text_line

NAME = "papertrail"  # the supervisor's own lines, in the service column
TAIL_LINES = 15


@dataclass(frozen=True)
class RestartPolicy:
    first_delay_s: float = 1.0
    max_delay_s: float = 30.0
    stable_after_s: float = 60.0  # a child that ran this long before it exited starts its count again
    give_up_after: int = 5  # exits in a row, each before stable_after_s

    def delay_s(self, failures_in_a_row: int) -> float:
        return min(self.max_delay_s, self.first_delay_s * 2 ** max(0, failures_in_a_row - 1))


@dataclass
class Child:
    """One supervised service: its command, where it answers /readyz, and how it has fared."""

    name: str
    command: list[str]
    env: dict[str, str]
    ready_url: str | None = None  # None: ready once started
    process: subprocess.Popen[bytes] | None = None
    pump: threading.Thread | None = None
    started_at: float = 0.0
    ready: bool = False
    failures_in_a_row: int = 0
    restarts: int = 0
    restart_at: float | None = None
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))


class Output:
    """Writes the children's lines and the supervisor's own events, one format for all, one line at a time."""

    def __init__(self, log_format: Literal["json", "text"], stream: IO[str]) -> None:
        self.format = log_format
        self.stream = stream
        self.colour = log_format == "text" and stream.isatty()
        self.lock = threading.Lock()

    def child_line(self, child: Child, raw: str) -> None:
        """A line of a child's output: a JSON log event, or anything else it printed (a traceback, a message)."""
        try:
            entry = json.loads(raw)
        except ValueError:
            entry = None
        if not isinstance(entry, dict) or "message" not in entry:
            entry = {"time": _now(), "service": child.name, "message": raw}
        entry.setdefault("service", child.name)
        child.tail.append(text_line(entry))
        self.write(entry)

    def event(self, level: str, message: str, details: Sequence[str] = (), **fields: Any) -> None:
        """The supervisor's own event; `details` are lines shown below it (JSON: the `lines` field)."""
        entry = {"time": _now(), "level": level, "service": NAME, "message": message, **fields}
        if details and self.format == "json":
            entry["lines"] = list(details)
        self.write(entry, [] if self.format == "json" else [f"    {line}" for line in details])

    def write(self, entry: Mapping[str, Any], below: Sequence[str] = ()) -> None:
        if self.format == "json":
            line = json.dumps(entry, ensure_ascii=False, default=str)
        else:
            line = text_line(entry, self.colour)
        with self.lock:
            try:
                self.stream.write("\n".join([line, *below]) + "\n")
                self.stream.flush()
            except OSError:
                pass  # the terminal closed (SIGHUP stops the supervisor): the children must still be stopped


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _exit_reason(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except Exception:
        return False


class Supervisor:
    def __init__(
        self,
        children: Sequence[Child],
        output: Output,
        policy: RestartPolicy = RestartPolicy(),
        stop_order: Sequence[str] = (),
        ready_note: str = "",
        ready_timeout_s: float = 60,
        stop_timeout_s: float = 20,
    ) -> None:
        self.children = {child.name: child for child in children}
        self.output = output
        self.policy = policy
        # those not named stop last, in reverse start order
        named = [n for n in stop_order if n in self.children]
        self.stop_order = [*named, *reversed([n for n in self.children if n not in named])]
        self.ready_note = ready_note
        self.ready_timeout_s = ready_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self.stopping = threading.Event()

    def run(self) -> int:
        """Start every child and watch them until stopped (0) or one is given up (1)."""
        started = time.monotonic()
        for child in self.children.values():
            self._start(child)
        announced = timed_out = False
        code = 0
        while not self.stopping.wait(0.25):
            now = time.monotonic()
            if any(self._step(child, now) for child in self.children.values()):
                code = 1
                break
            if not announced and all(c.ready for c in self.children.values()):
                announced = True
                note = f"; {self.ready_note}" if self.ready_note else ""
                self.output.event("INFO", f"all services ready in {now - started:.1f}s{note}")
            elif not announced and not timed_out and now - started > self.ready_timeout_s:
                timed_out = True
                waiting = ", ".join(sorted(n for n, c in self.children.items() if not c.ready))
                self.output.event("WARNING", f"not ready after {self.ready_timeout_s:g}s: {waiting}")
        self._stop_all()
        return code

    def _step(self, child: Child, now: float) -> bool:
        """Look after one child; True when it is given up."""
        if child.process is None:
            if child.restart_at is not None and now >= child.restart_at:
                child.restarts += 1
                self._start(child)
            return False
        exit_code = child.process.poll()
        if exit_code is None:
            if not child.ready and (child.ready_url is None or _answers(child.ready_url)):
                child.ready = True
                if child.restarts:
                    self.output.event("INFO", f"{child.name} ready again", restarts=child.restarts)
            return False
        return self._exited(child, exit_code, now)

    def _exited(self, child: Child, exit_code: int, now: float) -> bool:
        ran_s = now - child.started_at
        child.failures_in_a_row = 1 if ran_s >= self.policy.stable_after_s else child.failures_in_a_row + 1
        child.process, child.ready = None, False
        if child.pump is not None:
            child.pump.join(timeout=2)  # its last lines first
        if child.failures_in_a_row >= self.policy.give_up_after:
            self.output.event(
                "ERROR",
                f"{child.name} exited {child.failures_in_a_row} times in a row, each within "
                f"{self.policy.stable_after_s:g}s of its start (last: {_exit_reason(exit_code)}); giving up on it and "
                f"stopping the others. Its last lines:",
                details=list(child.tail),
                service_given_up=child.name,
            )
            return True
        delay = self.policy.delay_s(child.failures_in_a_row)
        child.restart_at = now + delay
        self.output.event(
            "WARNING",
            f"{child.name} exited ({_exit_reason(exit_code)}) after {ran_s:.1f}s; restart {child.restarts + 1} "
            f"in {delay:g}s",
            exit_code=exit_code,
        )
        return False

    def _start(self, child: Child) -> None:
        child.restart_at = None
        child.started_at = time.monotonic()
        child.process = subprocess.Popen(
            child.command,
            env=child.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            process_group=0,  # Ctrl-C in a terminal signals the foreground group: only the supervisor then
        )
        child.pump = threading.Thread(target=self._pump, args=(child, child.process.stdout), daemon=True)
        child.pump.start()

    def _pump(self, child: Child, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            self.output.child_line(child, raw.decode("utf-8", "replace").rstrip("\n"))

    def _stop_all(self) -> None:
        """SIGTERM each running child in stop order and wait for it (SIGKILL after stop_timeout_s)."""
        for name in self.stop_order:
            child = self.children[name]
            child.restart_at = None
            process = child.process
            if process is None:
                continue
            if process.poll() is None:
                process.terminate()
            try:
                process.wait(timeout=self.stop_timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                self.output.event("WARNING", f"{name} did not stop within {self.stop_timeout_s:g}s, killed")
            if child.pump is not None:
                child.pump.join(timeout=2)
        restarts = {n: c.restarts for n, c in self.children.items() if c.restarts}
        summary = ", ".join(f"{n} {k}" for n, k in restarts.items()) or "none"
        self.output.event("INFO", f"all services stopped; restarts: {summary}", restarts=restarts)

    def stop(self, *_: object) -> None:
        self.stopping.set()


def run_supervised(
    children: Sequence[Child], output: Output, stop_order: Sequence[str], ready_note: str, ready_timeout_s: float
) -> int:
    """Run the children under a supervisor that Ctrl-C and SIGTERM stop; the exit code for `papertrail run`."""
    supervisor = Supervisor(
        children, output, stop_order=stop_order, ready_note=ready_note, ready_timeout_s=ready_timeout_s
    )
    for stop_signal in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # SIGHUP: its terminal closed
        signal.signal(stop_signal, supervisor.stop)
    return supervisor.run()


def service_child(name: str, port: int, env: Mapping[str, str]) -> Child:
    """`python -m papertrail <name>` on `port`, logging JSON lines for the supervisor to write out."""
    return Child(
        name,
        [sys.executable, "-m", "papertrail", name],
        {**env, "HTTP_PORT": str(port), "LOG_FORMAT": "json"},
        ready_url=f"http://127.0.0.1:{port}/readyz",
    )
