"""`papertrail run`: all five services ready in one log stream; a service killed with -9 comes back by itself while
the others keep running and records harvested after the kill are handled; Ctrl-C stops all and leaves no process
behind. (One that keeps failing at start: test_run_gives_up.py, a module of its own so that another worker runs it
meanwhile.)"""

import json
import os
import signal
import subprocess
from pathlib import Path

import httpx
import pytest

from papertrail_tools.cli import SERVICES, service_port
from tests.support.paths import FIXTURES
from tests.support.servers import Servers
from tests.support.services import papertrail_cli
from tests.support.supervision import free_port_offset, log_events, papertrail_run, run_environment
from tests.support.waiting import GiveUp, wait_until

pytestmark = pytest.mark.integration

CORPUS_LINES = FIXTURES / "summarizer" / "corpus-2026-05-05.jsonl"  # six real listing lines, imported after the kill


def _services(pid: int) -> dict[str, int]:
    """The supervisor's children by service: `python -m papertrail <service>`."""
    result = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    found = {}
    for child in map(int, result.stdout.split()):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile
        found[command[-2].decode() if command[-1] == b"" else command[-1].decode()] = child
    return found


def test_run_restarts_a_killed_service_and_ctrl_c_stops_them_all(servers: Servers) -> None:
    offset = free_port_offset()
    env = run_environment(servers)
    ports = {name: service_port(name) + offset for name in SERVICES}
    with papertrail_run(env, offset) as (process, lines):
        # five Python processes importing and connecting at once on a 2-core machine: generous, not a speed test

        def all_ready() -> bool:
            if process.poll() is not None:
                raise GiveUp(f"papertrail run exited with {process.returncode}:\n{''.join(lines[-40:])}")
            return any(e["message"].startswith("all services ready") for e in log_events(lines))

        wait_until(all_ready, timeout=180, what="all services ready")
        before = _services(process.pid)
        assert set(before) == set(SERVICES)
        for name, port in ports.items():
            assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200, name
        assert {e["service"] for e in log_events(lines)} == {*SERVICES, "papertrail"}  # one stream, each line named

        os.kill(before["normalizer"], signal.SIGKILL)

        def normalizer_back() -> bool:
            pid = _services(process.pid).get("normalizer")
            port = ports["normalizer"]
            return pid not in (None, before["normalizer"]) and httpx.get(f"http://127.0.0.1:{port}/readyz").is_success

        wait_until(normalizer_back, timeout=120, what="the normalizer to come back")
        after = _services(process.pid)
        assert {n: p for n, p in after.items() if n != "normalizer"} == {
            n: p for n, p in before.items() if n != "normalizer"
        }
        said = [e["message"] for e in log_events(lines) if e["service"] == "papertrail"]
        assert any(
            m.startswith("normalizer exited (killed by SIGKILL)") and m.endswith("restart 1 in 1s") for m in said
        )

        papertrail_cli(env, "import", str(CORPUS_LINES))  # raw records published after the kill
        paper_ids = [f"arxiv:{json.loads(line)['id']}" for line in CORPUS_LINES.read_text().splitlines()]
        api = f"http://127.0.0.1:{ports['query']}/api/papers"
        wait_until(
            lambda: all(httpx.get(f"{api}/{paper_id}").status_code == 200 for paper_id in paper_ids),
            timeout=180,
            what="the papers imported after the kill to be searchable",
        )
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=120)
    assert code == 0
    survivors = [pid for pid in [*before.values(), *after.values()] if _alive(pid)]
    assert not survivors, "a service outlived `papertrail run`"
    assert log_events(lines)[-1]["message"] == "all services stopped; restarts: normalizer 1", _exits(log_events(lines))


def _exits(events: list[dict]) -> str:
    """What the supervisor said of each exit, after the exited service's last 30 lines: why a restart happened."""
    told = []
    for at, event in enumerate(events):
        if event["service"] == "papertrail" and " exited " in event["message"]:
            name = event["message"].split(" ", 1)[0]
            before = [json.dumps(e)[:400] for e in events[:at] if e["service"] == name][-30:]
            told.append("\n".join([*before, event["message"]]))
    return "\n\n".join(told)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"
