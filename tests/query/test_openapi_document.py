"""The query API's OpenAPI document without a server: every error one documented shape, the per-user routes'
401, anonymous corrections, and constraints that say exactly what the code takes (schemathesis holds the running
service to it in test_openapi_fuzz.py)."""

import re
from typing import Any

import pytest

from services.query.api.problems import PROBLEM_JSON
from services.query.app import create_app
from services.query.catalogue.reads.freshness import parse_window
from services.query.settings import QuerySettings


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app(QuerySettings()).openapi()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in document["paths"].items() for method, op in ops.items()]


def test_every_error_is_a_problem(document: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in document["components"]["schemas"]  # FastAPI's own 422 shape is gone
    for method, path, operation in operations(document):
        errors = {status: answer for status, answer in operation["responses"].items() if status >= "400"}
        for status, answer in errors.items():
            schema = answer["content"][PROBLEM_JSON]["schema"]
            assert schema == {"$ref": "#/components/schemas/Problem"}, (method, path, status)


def test_signed_in_operations_answer_401_and_corrections_take_a_token_or_none(document: dict[str, Any]) -> None:
    signed_in = [(method, path, op) for method, path, op in operations(document) if op.get("security")]
    assert len(signed_in) >= 11
    for method, path, operation in signed_in:
        assert "401" in operation["responses"], (method, path)
        if path == "/api/papers/{paper_id}/corrections":
            assert operation["security"] == [{}, {"bearer": []}]
        else:
            assert operation["security"] == [{"bearer": []}], (method, path)


def test_operation_ids_are_the_routes_names_and_links_name_them(document: dict[str, Any]) -> None:
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(ids) == len(set(ids)) and {"search_papers", "read_paper", "create_follow"} <= set(ids)
    for _, _, operation in operations(document):
        for answer in operation["responses"].values():
            assert all(link["operationId"] in ids for link in answer.get("links", {}).values())


def test_the_documented_window_is_exactly_what_the_overview_takes(document: dict[str, Any]) -> None:
    """1h to 90d: `window=2` or `91d` is refused by the document, not only by the code."""
    (window,) = [p for p in document["paths"]["/api/overview"]["get"]["parameters"] if p["name"] == "window"]
    pattern = re.compile(next(s["pattern"] for s in window["schema"]["anyOf"] if "pattern" in s))
    for written in [w for n in range(2300) for w in (f"{n}h", f"{n}d", f"0{n}h", f"{n}")] + ["", "24H", "1w"]:
        try:
            parse_window(written)
            taken = True
        except ValueError:
            taken = False
        assert bool(pattern.search(written)) == taken, written
