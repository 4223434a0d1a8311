"""The query API's OpenAPI document without a server: every error one documented shape, the per-user routes'
401, anonymous corrections, and constraints that say exactly what the code takes (schemathesis holds the running
service to it in test_openapi_fuzz.py)."""

import re
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from services.query.app import create_app
from services.query.catalogue.reads.freshness import parse_window
from services.query.catalogue.reads.paper_lookup import PAPER_ID_PATTERN
from services.query.http.deps import ADDRESSABLE_PAPER_ID, addressable_paper_id
from services.query.http.problems import PROBLEM_JSON
from services.query.library.feed import FEED_CURSOR_PATTERN
from services.query.library.shelf import LIBRARY_CURSOR_PATTERN
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


def paper_id_schema(document: dict[str, Any]) -> dict[str, Any]:
    """The one schema every operation on a paper gives its `paper_id`."""
    schemas = [
        {k: v for k, v in parameter["schema"].items() if k in ("type", "pattern", "maxLength")}
        for _, _, operation in operations(document)
        for parameter in operation.get("parameters", [])
        if parameter["name"] == "paper_id"
    ]
    assert len(schemas) >= 8 and all(schema == schemas[0] for schema in schemas)
    return schemas[0]


def taken(written: str) -> bool:
    """Whether the routes on a paper take the text as its id (a 422 otherwise)."""
    try:
        addressable_paper_id(written)
    except ValueError:
        return False
    return len(written) <= 300


WRITTEN_IDS = [
    "2401.12345", "2401.12345v2", "arXiv:hep-th/9901001V3", "math.GT/0309136", "10.18653/v1/2024.acl-long.1",
    "DOI:10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0", "https://doi.org/10.48550/arXiv.2401.12345",
    "http:/export.arxiv.org/pdf/2401.12345v1.pdf", "https://aclanthology.org/P19-1001/", "acl:2024.ACL-long.1",
    "openreview:QY7Au9nZwp", "pmlr:v267/acharya25a", "dblp:conf/acl/ChangSRM23",
    # refused: space around, a path below a paper's or the library's, no id, too long, not ASCII
    " 2401.12345", "2401.12345\n", "10.1234/x/cite", "10.1234/x/similar", "imports/1234567", "export", "hello",
    "10.1234/" + "x" * 300, "10.1234/caf\u00e9", "\u0662\u0664\u0660\u0661.12345", "arxiv:2401.123", "acl:x",
]  # fmt: skip


# read as a client reads it: ECMAScript's regular expressions, by the validator schemathesis checks patterns with
AS_A_CLIENT_READS = jsonschema_rs.validator_for({"pattern": ADDRESSABLE_PAPER_ID.pattern})


def test_the_documented_paper_id_is_exactly_what_the_routes_on_a_paper_take(document: dict[str, Any]) -> None:
    assert paper_id_schema(document) == {"type": "string", "maxLength": 300, "pattern": ADDRESSABLE_PAPER_ID.pattern}
    assert sum(map(taken, WRITTEN_IDS)) == 13
    for written in WRITTEN_IDS:
        assert (AS_A_CLIENT_READS.is_valid(written) and len(written) <= 300) == taken(written), written


@given(written=st.from_regex(ADDRESSABLE_PAPER_ID.pattern).filter(AS_A_CLIENT_READS.is_valid))
def test_text_generated_by_the_documented_paper_id_is_taken(written: str) -> None:
    """What a client generates from the pattern (Python's reading, which lets `$` pass a final newline, checked by
    ECMAScript's, as schemathesis does) is an id the routes take."""
    assert taken(written) or len(written) > 300, written


def test_cursors_and_seeds_are_stated_as_they_are_read(document: dict[str, Any]) -> None:
    for path, pattern in (("/api/feed", FEED_CURSOR_PATTERN), ("/api/me/library", LIBRARY_CURSOR_PATTERN)):
        (cursor,) = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == "cursor"]
        assert {"type": "string", "pattern": pattern}.items() <= cursor["schema"]["anyOf"][0].items(), path
    seed = document["components"]["schemas"]["FollowCreate"]["properties"]["seeds"]["items"]
    assert seed == {"type": "string", "minLength": 1, "maxLength": 300, "pattern": PAPER_ID_PATTERN}


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/api/me/library/import", "POST"),
        ("GET", "/api/me/library/import", "POST"),
        ("DELETE", "/api/me/library/export", "GET"),
        ("PUT", "/api/me/library/imports/" + "a" * 32, "GET"),
    ],
)
def test_a_wrong_method_on_the_librarys_own_paths_is_405_not_a_paper_id(method: str, path: str, allowed: str) -> None:
    """`import` is no paper id either: PUT /api/me/library/import is the import's path with a method it lacks."""
    refused = TestClient(create_app(QuerySettings())).request(method, path)
    assert (refused.status_code, refused.headers.get("allow")) == (405, allowed), refused.text
