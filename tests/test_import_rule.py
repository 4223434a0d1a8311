"""Imports point one way: the developer tooling (papertrail_tools/) → the operators' command (papertrail_ops/) →
services/* → the shared package (papertrail/) → schemas/. No service imports another service or either command,
the shared package imports neither, schemas/ imports none of them, and the operators' command (the production
image's) imports no tooling.
And no import circle, not even inside one package: modules that import each other (directly or round a ring) cannot
be read, tested or moved one at a time. Read from every module's own import statements (ast), function-level
imports and imports by name included."""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("services", "papertrail", "papertrail_ops", "papertrail_tools", "schemas")
COMMANDS = ("papertrail_ops", "papertrail_tools")
# `python -m papertrail` is the papertrail command: an entry point that nothing imports, so the shared package
# still depends on no tooling.
ENTRY_POINTS = {"papertrail/__main__.py"}
# The shared package's rooms: the paper domain is pure (no I/O), so it imports neither of the other rooms nor a
# library that reaches a server, a socket, a model runtime or the clock of a process; runtime plumbing and embedding
# may import the domain.
DOMAIN = "papertrail/domain/"
IMPURE = (
    "papertrail.runtime",
    "papertrail.embedding.embedder",
    "pymongo",
    "motor",
    "httpx",
    "aiokafka",
    "faststream",
    "meilisearch_python_sdk",
    "fastapi",
    "starlette",
    "uvicorn",
    "onnxruntime",
    "socket",
    "smtplib",
    "asyncio",
    "urllib.request",
    "subprocess",
    "prometheus_client",
)
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
    if layer == "services" and top in COMMANDS:
        return f"a service imports a command ({module})"
    if layer == "papertrail" and top in ("services", *COMMANDS) and path not in ENTRY_POINTS:
        return f"the shared package imports {top} ({module})"
    if path.startswith(DOMAIN) and any(module == name or module.startswith(name + ".") for name in IMPURE):
        return f"the paper domain (papertrail/domain/) is pure and imports {module}"
    if layer == "schemas" and top in ("services", "papertrail", *COMMANDS):
        return f"schemas imports {top} ({module})"
    if layer == "papertrail_ops" and top == "papertrail_tools":
        return f"the operators' command imports the developer tooling ({module})"
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


def module_name(root: Path, path: Path) -> str:
    """The dotted name `path` is imported by (a package by its own name, not `__init__`)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the project's packages → the project's modules it imports (`from a import b` is a.b when
    that is a module, else a), and the packages above each of those: importing a.b.c runs a/__init__.py and
    a/b/__init__.py first, so a package whose `__init__` imports its own modules, one of which imports a module of
    that package, is a circle too."""
    paths = {module_name(root, path): path for layer in LAYERS for path in (root / layer).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = ".".join(path.relative_to(root).parent.parts)
        targets = graph.setdefault(name, set())
        for _, module in imported_modules(ast.parse(path.read_text(encoding="utf-8")), package):
            parts = module.split(".")
            known = next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in paths), None)
            if known is None:
                continue
            above = [".".join(parts[:n]) for n in range(1, known.count(".") + 1)]
            targets.update(m for m in (known, *above) if m in paths and m != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: every group of two or more modules each reachable from each other (Tarjan's strongly
    connected components), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while (member := stack.pop()) != module:
                component.append(member)
            component.append(module)
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_imports_point_one_way() -> None:
    assert violations(ROOT) == []


def test_no_import_circle() -> None:
    assert circles(import_graph(ROOT)) == []


def test_a_circle_is_found_round_a_ring_and_not_in_a_chain() -> None:
    ring = {"a.cli": {"a.demo"}, "a.demo": {"a.stack"}, "a.stack": {"a.cli", "b.facts"}, "b.facts": set()}
    assert circles(ring) == [["a.cli", "a.demo", "a.stack"]]
    assert circles({"a.cli": {"a.demo"}, "a.demo": {"b.facts"}, "b.facts": set()}) == []
    assert circles({"x": {"y"}, "y": {"x"}, "p": {"q"}, "q": {"p", "x"}}) == [["p", "q"], ["x", "y"]]


def test_the_graph_reads_a_circle_from_files(tmp_path: Path) -> None:
    (tmp_path / "papertrail").mkdir()
    (tmp_path / "papertrail" / "__init__.py").write_text("")
    (tmp_path / "papertrail" / "one.py").write_text("from papertrail import two\n")
    (tmp_path / "papertrail" / "two.py").write_text("def late():\n    from papertrail.one import x\n")
    (tmp_path / "papertrail" / "three.py").write_text("from . import one\n")
    graph = import_graph(tmp_path)
    assert graph["papertrail.three"] == {"papertrail.one", "papertrail"}
    assert circles(graph) == [["papertrail.one", "papertrail.two"]]


def test_a_package_whose_init_imports_its_modules_that_import_the_package_is_a_circle(tmp_path: Path) -> None:
    """`from web.render import x` runs web/__init__.py first: an `__init__` that imports render, or a module that
    imports render, closes a circle through the package; a package whose `__init__` holds nothing does not."""
    web = tmp_path / "services" / "web"
    web.mkdir(parents=True)
    (tmp_path / "services" / "__init__.py").write_text("")
    (web / "__init__.py").write_text("from services.web.pages import router\n")
    (web / "pages.py").write_text("from services.web.render import page\nrouter = page\n")
    (web / "render.py").write_text("page = 1\n")
    assert circles(import_graph(tmp_path)) == [["services.web", "services.web.pages"]]
    (web / "__init__.py").write_text('"""The pages."""\n')
    (web / "site.py").write_text("from services.web.pages import router\n")
    assert circles(import_graph(tmp_path)) == []


@pytest.mark.parametrize(
    ("path", "module", "allowed"),
    [
        ("services/matcher/rules.py", "services.normalizer.text", False),
        ("services/matcher/app.py", "services.matcher.store", True),
        ("services/query/web/pages.py", "papertrail.domain.follows.catalogue", True),
        ("services/normalizer/__main__.py", "papertrail_tools.cli", False),
        ("papertrail/runtime/kafka.py", "services.query.readers.accounts.cli", False),
        ("papertrail/runtime/service.py", "papertrail_tools.stack", False),
        ("papertrail/__main__.py", "papertrail_tools.cli", True),
        ("papertrail_tools/cli.py", "services.harvester.cli", True),
        ("papertrail_tools/cli.py", "papertrail_ops.cli", True),
        ("papertrail_ops/cli.py", "services.query.readers.accounts.cli", True),
        ("papertrail_ops/cli.py", "papertrail_tools.stack", False),
        ("services/query/app.py", "papertrail_ops.roster", False),
        ("papertrail/runtime/migrations.py", "papertrail_ops.cli", False),
        ("schemas/events.py", "papertrail.domain.text", False),
        ("schemas/export.py", "schemas.topics", True),
        ("papertrail/domain/text.py", "papertrail.domain.names", True),
        ("papertrail/domain/follows/rules.py", "papertrail.runtime.mongo", False),
        ("papertrail/domain/venues/claims.py", "httpx", False),
        ("papertrail/domain/search_document.py", "papertrail.embedding.embedder", False),
        ("papertrail/runtime/kafka.py", "papertrail.domain.text", True),
        ("papertrail/embedding/similarity.py", "papertrail.runtime.endpoint", True),
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
