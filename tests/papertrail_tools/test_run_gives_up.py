"""`papertrail run` with a service that keeps failing at start: it is given up with its last lines, the others are
stopped and nothing is left behind (apart from test_run.py so that the two whole runs go on two workers at once)."""

import pytest

from papertrail_tools.cli import SERVICES, service_port
from tests.support.servers import Servers
from tests.support.supervision import free_port_offset, log_events, papertrail_run, port_free, run_environment

pytestmark = pytest.mark.integration


def test_run_gives_up_on_a_service_that_fails_at_every_start(servers: Servers) -> None:
    """A bad setting of one service: it exits at start five times in a row (paused 1, 2, 4, 8 s between), then
    `papertrail run` names it with its last lines, stops the others and exits 1."""
    offset = free_port_offset()
    with papertrail_run(run_environment(servers, INDEX_BATCH_SIZE="0"), offset) as (process, lines):
        code = process.wait(timeout=240)
    assert code == 1
    (given_up,) = [e for e in log_events(lines) if e.get("service_given_up")]
    assert given_up["service_given_up"] == "query"
    assert given_up["message"].startswith("query exited 5 times in a row")
    assert any("INDEX_BATCH_SIZE" in line for line in given_up["lines"]), given_up["lines"]
    assert all(port_free(service_port(name) + offset) for name in SERVICES), "a service outlived `papertrail run`"
