"""Tests and benchmarks import what they share from tests/support/ only: never a conftest (pytest loads those; its
fixtures reach a test by name), never a test module (importing one runs its module-level setup and ties two tests
together), never a helper module left among the tests. Read from every import statement (ast), function-level ones
and `import_module`/`run_module` by a constant name included."""

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = "tests.support"
IMPORTS_BY_NAME = {"import_module", "run_module", "__import__"}
# Where what the old modules held went (issue 39), named in the failure so a test written against them is quick to fix.
MOVED = {
    "tests.conftest": "tests.support.servers (Servers, free_port, stack_on_free_ports, under_fresh_names), "
    "tests.support.waiting (wait_until, wait_until_async, GiveUp), tests.support.paths (FIXTURES, SOURCES, ROOT), "
    "tests.support.kafka (broker_of, publisher_of), tests.support.mail (Inbox, smtp_server), "
    "tests.support.spawning (nested_pytest_env)",
    "tests.integration.services": "tests.support.services (running_service(s), papertrail_cli, create_user), "
    "tests.support.replay (replay_server, Replay), tests.support.pipelines (Pipeline, running_pipeline, api_paper, "
    "indexed_records, ...), tests.support.paths (ROOT)",
    "tests.integration.spawner": "tests.support.spawning",
    "tests.integration.test_matcher": "tests.support.events (enriched, publish), tests.support.matching (PAPERS, "
    "USER, follow, MatchedReader, index_held_paper, hold); its matcher and mongo fixtures: "
    "tests/integration/conftest.py",
    "tests.normalizer.kafka_tools": "tests.support.kafka",
    "tests.normalizer.sources": "tests.support.sources",
    "tests.normalizer.corpus_run": "tests.support.corpus_run",
    "tests.normalizer.test_store": "tests.support.normalizing (apply)",
    "tests.matcher.corpus": "tests.support.corpus",
    "tests.matcher.test_delivery": "tests.support.receivers (Receiver, ManualClock, SECRET, TELEGRAM_*)",
    "tests.fake_openai": "tests.support.fake_openai",
    "tests.time_limits": "tests.support.time_limits",
    "tests.harvester.conftest": "tests.support.replay (Replay), tests.support.fakes (Published)",
    "tests.harvester.recording": "tests.support.recording",
    "tests.resilience.drills": "tests.support.drills",
    "tests.query.conftest": "tests.support.query (ArxivPageSite, query_settings)",
    "tests.query.catalogue.test_pages": "tests.support.browsing (doc, text, signed_in, csrf_of, launch_chromium, ...)",
    "tests.query.catalogue.test_api": "tests.support.query_api (RECORDS, bearer, api_get, expected_topic_hits)",
    "tests.query.catalogue.test_institutions": "tests.support.institutions (acl_paper, enriched)",
    "tests.query.test_page_details": "tests.support.page_details",
    "tests.query.test_web_format": "tests.support.rendering",
    "tests.query.accounts.test_accounts": "tests.support.accounts",
    "tests.query.library.papers": "tests.support.library_papers",
    "tests.query.library.site": "tests.support.reader_site",
    "tests.query.library.held_read": "tests.support.held_read",
    "tests.papertrail_tools.test_run": "tests.support.supervision",
    "tests.summarizer.test_summarizing": "tests.support.summarizing (Harness)",
}


def imported_modules(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, module) of every import; `from a import b` gives a.b, since b may be a module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield from ((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in IMPORTS_BY_NAME and isinstance(node.args[0].value, str):
                yield node.lineno, node.args[0].value


def forbidden(module: str) -> str | None:
    """Why a test or benchmark may not import `module` (with `from a import b`, a.b), or None when it may."""
    parts = module.split(".")
    if parts[0] != "tests" or module == "tests" or module.startswith(f"{SUPPORT}.") or module == SUPPORT:
        return None
    if len(parts) == 2 and parts[1] != "conftest" and not parts[1].startswith("test_"):
        return None  # `from tests import x` where x is not a module: nothing of the tests is imported
    imported = next((".".join(parts[:n]) for n in range(len(parts), 1, -1) if ".".join(parts[:n]) in MOVED), None)
    if imported is not None:
        return f"imports {imported}: moved to {MOVED[imported]}"
    kind = "a conftest" if "conftest" in parts else "a test module" if any(p.startswith("test_") for p in parts) else ""
    return f"imports {kind or 'a module among the tests'} ({module}): shared code lives in {SUPPORT}"


def violations(root: Path) -> list[str]:
    """Every forbidden import under tests/ and bench/, by file and line."""
    found: list[tuple[str, int, str]] = []
    for folder in ("tests", "bench"):
        for path in (root / folder).rglob("*.py"):
            relative = path.relative_to(root).as_posix()
            if relative.startswith("tests/fixtures/"):
                continue
            for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
                if (reason := forbidden(module)) is not None:
                    found.append((relative, line, reason))
    return [f"{path}:{line}: {reason}" for path, line, reason in sorted(set(found))]


def test_tests_and_benchmarks_import_only_the_support_package() -> None:
    assert violations(ROOT) == []


def test_the_rule_names_a_conftest_a_test_module_and_a_stray_helper(tmp_path: Path) -> None:
    (tmp_path / "tests" / "query").mkdir(parents=True)
    (tmp_path / "bench").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "from tests.conftest import wait_until\nfrom tests.support.waiting import wait_until_async\n"
    )
    (tmp_path / "tests" / "query" / "test_b.py").write_text(
        "def f():\n    from tests.query.catalogue.test_pages import doc\n\nimport tests.query.helpers\n"
    )
    (tmp_path / "bench" / "run.py").write_text(
        "from tests.normalizer import test_store\nfrom tests.support import sources\nfrom tests import support\n"
    )
    assert violations(tmp_path) == [
        "bench/run.py:1: imports tests.normalizer.test_store: moved to tests.support.normalizing (apply)",
        "tests/query/test_b.py:2: imports tests.query.catalogue.test_pages: moved to tests.support.browsing (doc, text,"
        " signed_in, csrf_of, launch_chromium, ...)",
        "tests/query/test_b.py:4: imports a module among the tests (tests.query.helpers): shared code lives in "
        "tests.support",
        "tests/test_a.py:1: imports tests.conftest: moved to tests.support.servers (Servers, free_port, "
        "stack_on_free_ports, under_fresh_names), tests.support.waiting (wait_until, wait_until_async, GiveUp), "
        "tests.support.paths (FIXTURES, SOURCES, ROOT), tests.support.kafka (broker_of, publisher_of), "
        "tests.support.mail (Inbox, smtp_server), tests.support.spawning (nested_pytest_env)",
    ]
