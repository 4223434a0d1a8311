"""The supervisor of `papertrail run`, over small real child processes: restarts with backoff, gives up on a child
that keeps dying at start, stops the children in order, writes one format."""

import io
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from papertrail_tools.supervisor import Child, Output, RestartPolicy, Supervisor
from tests.support.paths import ROOT
from tests.support.waiting import wait_until

FAST = RestartPolicy(first_delay_s=0.2, max_delay_s=0.8, stable_after_s=5, give_up_after=4)


def python_child(name: str, code: str) -> Child:
    """A child running `code`, printing a JSON log line as a service does, unbuffered."""
    return Child(name, [sys.executable, "-u", "-c", code], dict(os.environ))


SERVING = """
import json, signal, sys, time
def stop(*_):
    print(json.dumps({"level": "INFO", "logger": "papertrail.%(name)s", "message": "stopping"}), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print(json.dumps({"level": "INFO", "logger": "papertrail.%(name)s", "message": "serving", "port": 8002}), flush=True)
while True:
    time.sleep(0.1)
"""


def serving(name: str) -> Child:
    return python_child(name, SERVING % {"name": name})


@contextmanager
def supervising(supervisor: Supervisor) -> Iterator[dict[str, int]]:
    """Run the supervisor in a thread; yield a box that gets its exit code; stop it at the end."""
    result: dict[str, int] = {}
    thread = threading.Thread(target=lambda: result.update(code=supervisor.run()), daemon=True)
    thread.start()
    try:
        yield result
    finally:
        supervisor.stop()
        thread.join(timeout=60)
        assert not thread.is_alive()


def entries(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_killed_child_comes_back_after_a_pause_and_the_others_keep_running() -> None:
    out = io.StringIO()
    children = [serving("normalizer"), serving("query")]
    supervisor = Supervisor(children, Output("json", out), FAST)
    with supervising(supervisor):
        wait_until(lambda: all(c.ready for c in children), timeout=30, what="both children")
        normalizer, query = (c.process.pid for c in children)  # type: ignore[union-attr]
        os.kill(normalizer, signal.SIGKILL)
        wait_until(lambda: children[0].ready and children[0].restarts == 1, timeout=30, what="the restart")
        assert children[0].process.pid != normalizer  # type: ignore[union-attr]
        assert children[1].process.pid == query and children[1].restarts == 0  # type: ignore[union-attr]
    said = [e for e in entries(out) if e["service"] == "papertrail"]
    restart = next(e for e in said if "restart 1 in" in e["message"])
    assert (
        restart["message"].startswith("normalizer exited (killed by SIGKILL) after") and restart["level"] == "WARNING"
    )
    assert restart["message"].endswith("restart 1 in 0.2s") and restart["exit_code"] == -9
    assert said[-1]["message"] == "all services stopped; restarts: normalizer 1"
    # the children's own lines pass through, each naming its service
    assert [e["service"] for e in entries(out) if e.get("message") == "serving"].count("normalizer") == 2


def test_a_child_that_keeps_dying_at_start_is_given_up_with_its_last_lines_and_the_others_stopped() -> None:
    out = io.StringIO()
    settings_error = "papertrail query: invalid settings:\n  INDEX_BATCH_SIZE: Input should be greater than 0"
    broken = python_child("query", f"import sys; sys.exit({settings_error!r})")
    healthy = serving("normalizer")
    supervisor = Supervisor([healthy, broken], Output("json", out), FAST)
    with supervising(supervisor) as result:
        wait_until(lambda: "code" in result, timeout=60, what="the supervisor to give up")
    assert result["code"] == 1
    assert healthy.process is not None and healthy.process.poll() == 0  # stopped with SIGTERM, gracefully
    # four exits in a row: paused 0.2, 0.4, 0.8 s (doubling, capped), then given up
    pauses = [
        e["message"].rsplit(" in ", 1)[1] for e in entries(out) if "restart" in e["message"] and " in " in e["message"]
    ]
    assert pauses == ["0.2s", "0.4s", "0.8s"]
    (given_up,) = [e for e in entries(out) if e.get("service_given_up") == "query"]
    assert given_up["level"] == "ERROR"
    assert given_up["message"].startswith(
        "query exited 4 times in a row, each within 5s of its start (last: exit code 1)"
    )
    assert any("INDEX_BATCH_SIZE: Input should be greater than 0" in line for line in given_up["lines"])


def test_stop_goes_in_order_each_child_stopped_before_the_next() -> None:
    out = io.StringIO()
    names = ["query", "matcher", "summarizer", "normalizer", "harvester"]  # started consumers first
    children = [serving(name) for name in names]
    supervisor = Supervisor(children, Output("json", out), FAST, stop_order=list(reversed(names)))

    def serving_all() -> bool:  # a child says so once its SIGTERM handler is set (running is not enough: a child
        # terminated before it set the handler dies without a word)
        return {e.get("service") for e in entries(out) if e["message"] == "serving"} == set(names)

    with supervising(supervisor) as result:
        wait_until(serving_all, timeout=60, what="every child serving")
    assert result["code"] == 0
    stopped = [e["service"] for e in entries(out) if e["message"] == "stopping"]
    assert stopped == list(reversed(names))


def test_text_output_is_one_readable_line_per_event_and_other_output_is_kept() -> None:
    out = io.StringIO()
    child = python_child(
        "summarizer",
        "import json; print(json.dumps({'time': '2026-05-08T10:00:00.000+00:00', 'level': 'WARNING', "
        "'service': 'summarizer', 'logger': 'papertrail.summarizer', 'message': 'budget spent', 'tokens': 5}));"
        "print('Traceback (most recent call last):')",
    )
    supervisor = Supervisor([child], Output("text", out), RestartPolicy(first_delay_s=60))
    with supervising(supervisor):
        wait_until(lambda: child.restart_at is not None, timeout=30, what="the child to exit")
    # the child has no readiness URL, so "all services ready" may come before its first line: left out here
    lines = [line for line in out.getvalue().splitlines() if "all services ready" not in line]
    assert lines[0].split(maxsplit=1)[1] == "summarizer WARNING  budget spent  tokens=5"
    assert lines[1].split(maxsplit=1)[1].split() == ["summarizer", "Traceback", "(most", "recent", "call", "last):"]
    assert lines[2].split(maxsplit=3)[1:3] == ["papertrail", "WARNING"]


SUPERVISING = """
import json, os, sys
from papertrail_tools.supervisor import Child, Output, run_supervised
children = [Child(name, [sys.executable, "-u", "-c", sys.argv[1] %% {"name": name}], dict(os.environ))
            for name in ("normalizer", "query")]
sys.exit(run_supervised(children, Output("json", sys.stdout), ["normalizer", "query"], "", 60))
"""


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_ctrl_c_sigterm_and_a_closed_terminal_stop_the_children_in_order_and_exit_0(stop_signal: int) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SUPERVISING % {}, SERVING], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True).start()  # type: ignore[union-attr]
    try:
        wait_until(lambda: any("all services ready" in line for line in lines), timeout=60, what="ready")
        process.send_signal(stop_signal)
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
    events = [json.loads(line) for line in lines]
    assert [e["service"] for e in events if e["message"] == "stopping"] == ["normalizer", "query"]
    assert events[-1]["message"] == "all services stopped; restarts: none"
