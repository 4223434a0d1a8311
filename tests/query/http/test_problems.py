"""Problem details (RFC 9457): the API's refusals and FastAPI's own 422 answer one shape, documented once in the
OpenAPI components; pages keep FastAPI's answers."""

from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query
from fastapi.testclient import TestClient

from services.query.http.problems import (
    PROBLEM_JSON,
    Problem,
    install_problem_details,
    one_value_each,
    problem_responses,
)


def _app() -> FastAPI:
    app = FastAPI(dependencies=[Depends(one_value_each)])
    api = APIRouter(prefix="/api", responses=problem_responses(422))

    @api.get("/things/{name}", responses=problem_responses((404, "no such thing"), 429))
    async def thing(name: str, size: Annotated[int, Query(ge=1, le=10)] = 1) -> dict[str, str]:
        if name == "busy":
            raise HTTPException(429, "slow down", headers={"Retry-After": "7"})
        raise HTTPException(404, f"no thing {name!r}")

    @api.get("/shelves")
    async def shelves(
        size: Annotated[int, Query(ge=1)] = 1, tag: Annotated[list[str] | None, Query()] = None
    ) -> dict[str, object]:
        return {"size": size, "tags": tag or []}

    @api.delete("/things/{name}", status_code=204)
    async def drop_thing(name: str) -> None:
        return None

    @app.get("/pages/{name}")
    async def page(name: str, size: Annotated[int, Query(ge=1)] = 1) -> dict[str, str]:
        raise HTTPException(404, "no page")

    app.include_router(api)
    install_problem_details(app)
    return app


def test_a_refusal_is_a_problem_with_its_headers() -> None:
    client = TestClient(_app())
    missing = client.get("/api/things/x")
    assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM_JSON
    assert missing.json() == {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "no thing 'x'",
        "instance": "/api/things/x",
    }
    busy = client.get("/api/things/busy")
    assert busy.status_code == 429 and busy.headers["retry-after"] == "7"
    Problem.model_validate(busy.json())
    unrouted = client.get("/api/nowhere")
    assert unrouted.status_code == 404 and unrouted.json()["title"] == "Not Found"
    refused = client.post("/api/things/x")  # routing's 405 as well, naming every method of the path
    assert refused.headers["content-type"] == PROBLEM_JSON and refused.headers["allow"] == "DELETE, GET"


def test_fastapis_422_names_each_field_and_what_is_wrong() -> None:
    response = TestClient(_app()).get("/api/things/x", params={"size": "99"})
    assert response.status_code == 422 and response.headers["content-type"] == PROBLEM_JSON
    problem = response.json()
    assert problem["status"] == 422 and problem["instance"] == "/api/things/x"
    assert [error["location"] for error in problem["errors"]] == [["query", "size"]]
    assert "less than or equal to 10" in problem["errors"][0]["message"] and "size" in problem["detail"]


def test_a_one_value_parameter_given_twice_is_refused_and_a_list_is_not() -> None:
    client = TestClient(_app())
    twice = client.get("/api/shelves", params=[("size", "2"), ("size", "3"), ("tag", "a"), ("tag", "b")])
    assert twice.status_code == 422 and twice.headers["content-type"] == PROBLEM_JSON  # not answered for size=3
    assert [error["location"] for error in twice.json()["errors"]] == [["query", "size"]]
    assert client.get("/api/shelves", params=[("size", "2"), ("tag", "a"), ("tag", "b")]).json() == {
        "size": 2,
        "tags": ["a", "b"],
    }
    assert client.get("/pages/x", params=[("size", "2"), ("size", "3")]).status_code == 404  # pages: FastAPI's way


def test_pages_keep_fastapis_own_answers() -> None:
    client = TestClient(_app())
    assert client.get("/pages/x").headers["content-type"] == "application/json"
    assert client.get("/pages/x", params={"size": "0"}).json()["detail"][0]["loc"] == ["query", "size"]


def test_the_document_has_one_problem_model_and_every_error_refers_to_it() -> None:
    document = _app().openapi()
    schemas = document["components"]["schemas"]
    assert schemas["Problem"]["required"] == ["title", "status"] and "FieldError" in schemas
    operation = document["paths"]["/api/things/{name}"]["get"]
    assert set(operation["responses"]) == {"200", "404", "422", "429"}
    for status in ("404", "422", "429"):
        content = operation["responses"][status]["content"]
        assert content == {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    assert operation["responses"]["404"]["description"] == "no such thing"
    assert "Retry-After" in operation["responses"]["429"]["headers"]
