"""make test's pytest-xdist scheduling (tests/conftest.py, SlowestModulesFirst), run for real on three of the pure
modules, the last of them named slow so it is handed out first: each module's tests all run on one worker (its module
fixtures start once), every test once. Sorting the
workers' collections instead of the controller's queue once sent tests by index to the wrong workers: modules ran
split over several workers, starting their pipelines twice, and a test ran without the tests before it."""

import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from tests.support.spawning import nested_pytest_env

ROOT = Path(__file__).resolve().parents[1]
MODULES = [
    "tests/papertrail/domain/follows/test_expressions.py",
    "tests/papertrail/domain/test_text.py",
    "tests/test_schemas.py",
]


def test_each_module_runs_whole_on_one_worker_and_every_test_once() -> None:
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *MODULES],
        cwd=ROOT, capture_output=True, text=True, check=True, env=nested_pytest_env(),
    ).stdout  # fmt: skip
    expected = {line for line in collected.splitlines() if "::" in line}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "3", "--dist", "loadfile", "-v", "-p", "no:cacheprovider", *MODULES],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
        env=nested_pytest_env() | {"PYTEST_SLOW_MODULES": MODULES[-1]},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]
    assert "scheduling tests via SlowestModulesFirst" in run.stdout
    workers: dict[str, set[str]] = defaultdict(set)
    ran: list[str] = []
    for worker, nodeid in re.findall(r"^\[(gw\d+)\] \[\s*\d+%\] PASSED (.+?) *$", run.stdout, re.MULTILINE):
        workers[nodeid.split("::")[0]].add(worker)
        ran.append(nodeid)
    assert sorted(ran) == sorted(expected)
    assert {module: len(on) for module, on in workers.items()} == dict.fromkeys(MODULES, 1)
