"""The committed JSON Schema and AsyncAPI files are exactly what the models export; every field is described."""

import json
from typing import Any

import pytest

from schemas import export
from schemas.topics import CATALOGUE


@pytest.mark.parametrize("path", sorted(export.expected_files(), key=str), ids=lambda p: p.name)
def test_committed_file_matches_models(path: Any) -> None:
    expected = export.expected_files()[path]
    assert path.exists(), f"{path} missing: run `papertrail schemas export`"
    assert path.read_text(encoding="utf-8") == expected, f"{path} is stale: run `papertrail schemas export`"


def _undescribed(schema: dict[str, Any], where: str) -> list[str]:
    missing = []
    for name, definition in schema.get("$defs", {}).items():
        missing += _undescribed({"properties": definition.get("properties", {})}, f"{where}.{name}")
    for field, spec in schema.get("properties", {}).items():
        if "description" not in spec:
            missing.append(f"{where}.{field}")
    return missing


@pytest.mark.parametrize("topic", sorted(CATALOGUE))
def test_every_field_of_every_topic_is_described(topic: str) -> None:
    model, _ = CATALOGUE[topic]
    assert _undescribed(model.model_json_schema(), topic) == []


def test_asyncapi_lists_every_topic_with_its_payload() -> None:
    document = json.loads(export.ASYNCAPI_FILE.read_text(encoding="utf-8"))
    assert set(document["channels"]) == set(CATALOGUE)
    schemas = document["components"]["schemas"]
    for model, _ in CATALOGUE.values():
        assert model.__name__ in schemas
