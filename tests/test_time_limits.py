"""tests/support/time_limits.py: the end-of-run list of tests against their pytest-timeout limits and of the slowest
modules, run for real under pytest-xdist (each worker's limits reach the controller, which prints the list), and its
lines from reports alone."""

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from tests.support.spawning import nested_pytest_env
from tests.support.time_limits import TimeAgainstLimits

ROOT = Path(__file__).resolve().parents[1]
MODULE = """
import time

import pytest


@pytest.fixture(scope="module")
def slow_setup():
    time.sleep(1.1)  # a module fixture: it counts against the first test that needs it


@pytest.mark.timeout(2)
def test_a(slow_setup):
    pass


@pytest.mark.timeout(4)
def test_b(slow_setup):
    time.sleep(1.1)


def test_c():
    pass
"""
CONFTEST = """
from tests.support.time_limits import TimeAgainstLimits


def pytest_configure(config):
    config.pluginmanager.register(TimeAgainstLimits(lambda module: False), "time-against-limits")
"""


def test_a_run_on_workers_lists_each_test_over_a_quarter_of_its_limit(tmp_path: Path) -> None:
    (tmp_path / "test_timed.py").write_text(MODULE)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "--timeout", "600", "test_timed.py"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=300,
        env=nested_pytest_env() | {"PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]
    listed = {line.split()[-1]: line for line in run.stdout.splitlines() if " s of " in line}
    # a sleep lasts at least as long as asked: test_a needs over half of its 2 s, test_b over a quarter of its 4 s;
    # test_c, a no-op, nowhere near a quarter of the run's 600 s
    assert set(listed) == {"test_timed.py::test_a", "test_timed.py::test_b"}, run.stdout[-3000:]
    assert " of 2 s " in listed["test_timed.py::test_a"] and "OVER HALF" in listed["test_timed.py::test_a"]
    assert " of 4 s " in listed["test_timed.py::test_b"]
    assert "time against the timeout limit: 2 tests over 25% of it" in run.stdout


def report(nodeid: str, when: str, seconds: float, limit: float | None = 300) -> SimpleNamespace:
    return SimpleNamespace(nodeid=nodeid, when=when, duration=seconds, **({"timeout_s": limit} if limit else {}))


def test_the_lines_add_the_phases_and_mark_slow_modules_the_scheduler_misses() -> None:
    timed = TimeAgainstLimits(lambda module: module == "tests/first.py")
    for r in [
        report("tests/first.py::test_one", "setup", 160),
        report("tests/first.py::test_one", "call", 10),
        report("tests/first.py::test_two", "call", 5),
        report("tests/late.py::test_x", "setup", 50),
        report("tests/late.py::test_x", "call", 30),
        report("tests/quick.py::test_y", "call", 1),
        report("tests/unlimited.py::test_z", "call", 500, limit=None),
    ]:
        timed.pytest_runtest_logreport(r)  # type: ignore[arg-type]
    assert timed.lines() == [
        "  170 s of 300 s ( 57%) OVER HALF  setup 160 s, call 10 s, teardown 0 s  tests/first.py::test_one",
        "   80 s of 300 s ( 27%)  setup 50 s, call 30 s, teardown 0 s  tests/late.py::test_x",
    ]
    assert timed.slowest_modules() == [
        "  175 s  tests/first.py",
        "   80 s  tests/late.py  (not in SLOW_MODULES)",
        "    1 s  tests/quick.py",
    ]
