"""The committed JSON Schema and AsyncAPI files are exactly what the models export; every field is described."""

import json
from typing import Any

import orjson
import pytest
from pydantic import create_model

from schemas import export
from schemas.events import PaperEmbedding, PaperEnriched, PaperNew
from schemas.summary import Summary
from schemas.topics import CATALOGUE
from tests.support.fake_openai import corpus_event, corpus_lines


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


def test_papers_enriched_keeps_old_consumers_and_old_producers_working() -> None:
    event = corpus_event(corpus_lines()[0])
    embedding = PaperEmbedding(model="local/all-MiniLM-L6-v2-int8/384/256", state="embedded")
    new = PaperEnriched(
        kind=event.kind,
        paper=event.paper,
        version=event.version,
        summary=Summary(status="pending"),
        embedding=embedding,
    )
    wire = orjson.loads(new.model_dump_json())
    # a consumer built before the field: the model without it, reading the new event
    known = {name: (f.annotation, f) for name, f in PaperEnriched.model_fields.items() if name != "embedding"}
    old_consumer = create_model("OldConsumer", __config__=PaperEnriched.model_config, **known)  # type: ignore[call-overload]
    assert old_consumer.model_validate(wire).model_dump() == new.model_dump(exclude={"embedding"})
    # this release's consumers read a later producer's event the same way
    assert PaperEnriched.model_validate(wire | {"a_later_field": 1}) == new
    # an old producer's event parses, the embedding unknown
    assert PaperEnriched.model_validate({k: v for k, v in wire.items() if k != "embedding"}).embedding is None
    assert "embedding" not in PaperNew.model_fields  # papers.new.v1 is unchanged
