"""Every MongoDB collection has one writing service (papertrail/runtime/collections.py); a store only reads the
others'."""

import ast
from pathlib import Path

import pytest

from papertrail.runtime import collections

ROOT = Path(__file__).resolve().parents[3]
SERVICES = ("harvester", "normalizer", "summarizer", "matcher", "query")
READS = {"find", "find_one", "count_documents", "distinct", "aggregate", "estimated_document_count"}


def test_each_collection_is_named_once_and_owned_by_a_service() -> None:
    names = [c.name for c in collections.ALL]
    assert len(names) == len(set(names))
    assert {c.owner for c in collections.ALL} <= set(SERVICES)


def _collection_of(node: ast.expr) -> collections.Collection | None:
    """`db[PAPERS.name]` or `self.db[PAPERS.name]` → PAPERS."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Attribute):
        constant = node.slice.value
        if isinstance(constant, ast.Name) and node.slice.attr == "name":
            found = getattr(collections, constant.id, None)
            return found if isinstance(found, collections.Collection) else None
    return None


def _uses(tree: ast.AST) -> list[tuple[collections.Collection, str, int]]:
    """(collection, method, line) of every method called on a collection, directly or through a `self.` attribute."""
    attributes: dict[str, collections.Collection] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and (found := _collection_of(node.value)) is not None:
            for target in node.targets:
                if isinstance(target, ast.Attribute):
                    attributes[target.attr] = found
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            holder = node.func.value
            collection = _collection_of(holder)
            if collection is None and isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name):
                collection = attributes.get(holder.attr) if holder.value.id == "self" else None
            if collection is not None:
                uses.append((collection, node.func.attr, node.lineno))
    return uses


@pytest.mark.parametrize("service", SERVICES)
def test_a_service_writes_only_its_own_collections(service: str) -> None:
    writes = []
    for path in sorted((ROOT / "services" / service).rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert 'db["' not in source, f"{path}: open collections by their papertrail.runtime.collections name"
        for collection, method, line in _uses(ast.parse(source)):
            if collection.owner != service and method not in READS:
                writes.append(f"{path.relative_to(ROOT)}:{line} {method} on {collection.name} ({collection.owner}'s)")
    assert writes == []
