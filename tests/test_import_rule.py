"""Imports point one way: services/* → the shared package (papertrail/) → schemas/. No service imports another
service or the tooling (papertrail_tools/), the shared package imports neither, and schemas/ imports none of them.
Read from every module's own import statements (ast), function-level imports and imports by name included."""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("services", "papertrail", "papertrail_tools", "schemas")
# `python -m papertrail` is the papertrail command: an entry point that nothing imports, so the shared package
# still depends on no tooling.
ENTRY_POINTS = {"papertrail/__main__.py"}
IMPORTS_BY_NAME = {"import_module", "run_module", "__import__"}


def imported_modules(tree: ast.AST, package: str = "") -> Iterator[tuple[int, str]]:
    """(line, module) of every import statement (relative ones resolved in `package`, the module's own package), and
    of every import by a constant name (importlib, runpy)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            # `from services import matcher` imports services.matcher: each name may be a module
            yield from ((node.lineno, f"{module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in IMPORTS_BY_NAME and isinstance(node.args[0].value, str):
                yield node.lineno, node.args[0].value


def forbidden(path: str, module: str) -> str | None:
    """Why `path` (relative to the project) may not import `module`, or None when it may."""
    parts, target = path.split("/"), module.split(".")
    layer, top = parts[0], target[0]
    if layer == "services" and top == "services" and len(target) > 1 and len(parts) > 2 and target[1] != parts[1]:
        return f"services/{parts[1]} imports another service (services.{target[1]})"
    if layer == "services" and top == "papertrail_tools":
        return f"a service imports the tooling ({module})"
    if layer == "papertrail" and top in ("services", "papertrail_tools") and path not in ENTRY_POINTS:
        return f"the shared package imports {top} ({module})"
    if layer == "schemas" and top in ("services", "papertrail", "papertrail_tools"):
        return f"schemas imports {top} ({module})"
    return None


def violations(root: Path) -> list[str]:
    found = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            package = ".".join(path.relative_to(root).parent.parts)
            for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8")), package):
                if (reason := forbidden(relative, module)) is not None:
                    found.append(f"{relative}:{line}: {reason}")
    return list(dict.fromkeys(found))


def test_imports_point_one_way() -> None:
    assert violations(ROOT) == []


@pytest.mark.parametrize(
    ("path", "module", "allowed"),
    [
        ("services/matcher/rules.py", "services.normalizer.text", False),
        ("services/matcher/app.py", "services.matcher.store", True),
        ("services/query/web/pages.py", "papertrail.follows.catalogue", True),
        ("services/normalizer/__main__.py", "papertrail_tools.cli", False),
        ("papertrail/kafka.py", "services.query.readers.accounts.cli", False),
        ("papertrail/service.py", "papertrail_tools.stack", False),
        ("papertrail/__main__.py", "papertrail_tools.cli", True),
        ("papertrail_tools/cli.py", "services.harvester.cli", True),
        ("schemas/events.py", "papertrail.text", False),
        ("schemas/export.py", "schemas.topics", True),
    ],
)
def test_the_rule(path: str, module: str, allowed: bool) -> None:
    assert (forbidden(path, module) is None) == allowed


def test_imports_by_name_count_too() -> None:
    tree = ast.parse("import importlib\nimportlib.import_module('services.query.app')\n")
    assert list(imported_modules(tree)) == [(1, "importlib"), (2, "services.query.app")]


def test_relative_imports_are_resolved() -> None:
    tree = ast.parse("from ..normalizer import text\nfrom . import rules\n")
    assert list(imported_modules(tree, "services.matcher")) == [
        (1, "services.normalizer.text"),
        (2, "services.matcher.rules"),
    ]
