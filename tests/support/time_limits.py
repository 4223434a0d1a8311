"""A pytest plugin: at the end of a run, each test whose setup, call and teardown took a large share of its
pytest-timeout limit, as "NN s of 300 s", so that a module fixture or a test creeping towards its limit shows before
a loaded machine pushes it over (the budget: no test, fixture or setup needs more than half of its limit); and the
modules that took longest, each of a minute or more marked when the scheduler does not hand it out first
(tests/conftest.py's SLOW_MODULES, a list kept by hand from these lines).

pytest-timeout's limit covers the whole item (its `timeout_func_only` is off here): a module-scoped fixture's setup
counts against the first test that needs it. Under pytest-xdist each worker sends its reports to the controller; the
limit travels with each report (`timeout_s`), since the controller has no items."""

from collections import defaultdict
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

import pytest
from pytest_timeout import get_env_settings

SHOWN_FROM = 0.25  # share of its limit from which a test is listed
BUDGET = 0.5  # share of its limit a test may need
MODULES_SHOWN = 15
SLOW_MODULE_S = 60  # a module that takes this long in all is marked when the scheduler does not hand it out first


def limit_of(item: pytest.Item) -> float | None:
    """The item's pytest-timeout limit in seconds: its `timeout` marker's, else the run's (option, variable, ini)."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.kwargs.get("timeout", marker.args[0] if marker.args else None)
        return float(value) if value else None
    value = get_env_settings(item.config).timeout
    return float(value) if value else None


@dataclass
class Timed:
    limit: float
    phases: dict[str, float] = field(default_factory=dict)  # setup, call, teardown → seconds

    @property
    def total(self) -> float:
        return sum(self.phases.values())


class TimeAgainstLimits:
    def __init__(self, handed_out_first: Callable[[str], bool]) -> None:
        self.timed: dict[str, Timed] = {}
        self.handed_out_first = handed_out_first  # module path → whether the scheduler starts it early

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        limit = limit_of(item)
        if limit is not None:
            report.timeout_s = limit  # type: ignore[attr-defined]  # a report's extra attributes reach the controller
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        limit = getattr(report, "timeout_s", None)
        if limit:
            self.timed.setdefault(report.nodeid, Timed(limit)).phases[report.when] = report.duration

    def lines(self) -> list[str]:
        """One line per test over SHOWN_FROM of its limit, the largest share first."""
        shown = sorted(
            ((nodeid, t) for nodeid, t in self.timed.items() if t.total >= SHOWN_FROM * t.limit),
            key=lambda entry: -entry[1].total / entry[1].limit,
        )
        return [
            f"{t.total:5.0f} s of {t.limit:.0f} s ({t.total / t.limit:4.0%})"
            f"{' OVER HALF' if t.total > BUDGET * t.limit else ''}  setup {t.phases.get('setup', 0):.0f} s,"
            f" call {t.phases.get('call', 0):.0f} s, teardown {t.phases.get('teardown', 0):.0f} s  {nodeid}"
            for nodeid, t in shown
        ]

    def slowest_modules(self) -> list[str]:
        modules: defaultdict[str, float] = defaultdict(float)
        for nodeid, timed in self.timed.items():
            modules[nodeid.split("::", 1)[0]] += timed.total
        slowest = sorted(modules.items(), key=lambda entry: -entry[1])[:MODULES_SHOWN]
        return [
            f"{seconds:5.0f} s  {module}"
            + ("  (not in SLOW_MODULES)" if seconds >= SLOW_MODULE_S and not self.handed_out_first(module) else "")
            for module, seconds in slowest
        ]

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.timed:
            return
        lines = self.lines()
        over = sum(1 for line in lines if "OVER HALF" in line)
        terminalreporter.write_sep(
            "=",
            f"time against the timeout limit: {len(lines)} tests over {SHOWN_FROM:.0%} of it, {over} over half",
        )
        for line in lines:
            terminalreporter.write_line(line)
        terminalreporter.write_sep("=", f"the {MODULES_SHOWN} slowest modules (setup, calls and teardown)")
        for line in self.slowest_modules():
            terminalreporter.write_line(line)
