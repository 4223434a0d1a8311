"""RFC 9457 problem details, the one shape of every error the API answers (`application/problem+json`): the `Problem`
model in the OpenAPI components, the responses a router or route declares with `problem_responses`, and the
handlers that answer HTTPException and FastAPI's own request validation with it on the API's paths (the pages keep
their HTML error pages).

A route refuses with `raise HTTPException(status, detail, headers=...)` as usual (a 429 with `Retry-After` too);
the handler turns it into a problem, so no route builds one by hand."""

import re
from collections import Counter
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

PROBLEM_JSON = "application/problem+json"
API_PATHS = ("/api/", "/feeds/")  # everything else is a page, whose errors are HTML
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
PATH_PARAMETER = re.compile(r"\{[^}]+\}")  # {paper_id} in an OpenAPI path template
HTTP_METHODS = {"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

# what each status means on this API, unless a route says more precisely
MEANINGS: dict[int, str] = {
    400: "the body is no JSON, or what it asks for is refused; `detail` says which",
    401: "no bearer token, or one that is unknown or revoked",
    404: "nothing is there",
    422: "a parameter or the body is not what the API takes; `errors` names each field and what is wrong with it",
    429: "too many requests; `Retry-After`, when given, says in how many seconds to try again",
    503: "a search by meaning (`semantic` > 0) while the index holds no paper vectors yet",
}


class FieldError(BaseModel):
    """One field of the request that is not what the API takes."""

    location: list[str | int] = Field(
        description="where: `query`, `path`, `header` or `body`, then the field's name (and index), "
        'e.g. ["query", "category", 0]',
        examples=[["query", "category", 0]],
    )
    message: str = Field(
        description="what is wrong with it", examples=["String should match pattern '^[A-Za-z\\-]+(\\.[A-Za-z\\-]+)?$'"]
    )


class Problem(BaseModel):
    """An error, as RFC 9457 problem details (`application/problem+json`)."""

    type: str = Field("about:blank", description="a URI naming the kind of problem; about:blank: the status says it")
    title: str = Field(description="the status's name", examples=["Not Found"])
    status: int = Field(ge=400, le=599, description="the HTTP status code", examples=[404])
    detail: str | None = Field(None, description="what went wrong with this request", examples=["no paper 'x'"])
    instance: str | None = Field(None, description="the path the request was made to", examples=["/api/papers/x"])
    errors: list[FieldError] | None = Field(None, description="each field that is wrong (validation errors only)")


def problem_responses(*statuses: int | tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI `responses` of these error statuses, each a `Problem`: a status alone takes its usual meaning
    (MEANINGS), a (status, description) pair says it for the route. Give it to a router or a route."""
    responses: dict[int | str, dict[str, Any]] = {}
    for entry in statuses:
        status, description = entry if isinstance(entry, tuple) else (entry, MEANINGS[entry])
        response: dict[str, Any] = {"description": description, "content": {PROBLEM_JSON: {"schema": PROBLEM_REF}}}
        if status == 429:
            response["headers"] = {
                "Retry-After": {"description": "seconds to wait before trying again", "schema": {"type": "integer"}}
            }
        responses[status] = response
    return responses


def problem_response(
    request: Request,
    status: int,
    detail: str | None = None,
    headers: Mapping[str, str] | None = None,
    errors: list[FieldError] | None = None,
) -> JSONResponse:
    """The problem answer to `request`: its status's title, the path as its instance, and what went wrong."""
    problem = Problem(
        title=HTTPStatus(status).phrase, status=status, detail=detail, instance=request.url.path, errors=errors
    )
    return JSONResponse(
        problem.model_dump(mode="json", exclude_none=True), status_code=status, headers=headers, media_type=PROBLEM_JSON
    )


def on_api(request: Request) -> bool:
    return request.url.path.startswith(API_PATHS)


async def http_problem(request: Request, error: Exception) -> Response:
    """An HTTPException (a route's refusal, or routing's own 404 and 405) as a problem, headers kept."""
    assert isinstance(error, StarletteHTTPException)
    if not on_api(request) or error.status_code < 400:
        return await http_exception_handler(request, error)
    detail = error.detail if error.detail != HTTPStatus(error.status_code).phrase else None
    headers = error.headers
    if error.status_code == 405 and (allowed := allowed_methods(request)):
        headers = dict(headers or {}) | {"Allow": ", ".join(allowed)}
    return problem_response(request, error.status_code, detail, headers=headers)


def allowed_methods(request: Request) -> list[str]:
    """The methods the OpenAPI document gives the path this request was refused on (its most specific template:
    /api/papers/{paper_id}/corrections, not /api/papers/{paper_id}). Starlette's 405 names those of only one route,
    and each method is a route of its own (GET and POST /api/follows)."""
    fitting: dict[str, int] = {}
    for template in request.app.openapi()["paths"]:
        literals = PATH_PARAMETER.split(template)
        if re.fullmatch(".+".join(map(re.escape, literals)), request.scope["path"]):
            fitting[template] = len("".join(literals))
    if not fitting:
        return []
    operations = request.app.openapi()["paths"][max(fitting, key=fitting.__getitem__)]
    return sorted(method.upper() for method in operations if method.upper() in HTTP_METHODS)


async def validation_problem(request: Request, error: Exception) -> Response:
    """FastAPI's 422 for a request that does not match the schema, as a problem naming each field."""
    assert isinstance(error, RequestValidationError)
    if not on_api(request):
        return await request_validation_exception_handler(request, error)
    fields = [FieldError(location=list(each["loc"]), message=each["msg"]) for each in error.errors()]
    detail = "; ".join(f"{' '.join(str(part) for part in field.location)}: {field.message}" for field in fields)
    return problem_response(request, 422, detail, errors=fields)


def takes_many(schema: Mapping[str, Any]) -> bool:
    """Whether a parameter's schema takes a list (an array, or an array or null)."""
    return schema.get("type") == "array" or any(takes_many(each) for each in schema.get("anyOf", ()))


async def one_value_each(request: Request) -> None:
    """Refuse a query parameter given twice where the document gives it one value: FastAPI would take the last
    silently, so `venue=a&venue=b` would answer for b while the request says both (schemathesis: schema-violating
    request accepted). An app-wide dependency; the document, not the code, says which parameters take lists."""
    route = request.scope.get("route")
    if not on_api(request) or not isinstance(route, APIRoute):
        return
    names = [name for name, _ in request.query_params.multi_items()]
    repeated = {name for name, count in Counter(names).items() if count > 1}
    if not repeated:
        return
    operation = request.app.openapi()["paths"].get(route.path_format, {}).get(request.method.lower(), {})
    lists = {each["name"] for each in operation.get("parameters", ()) if takes_many(each.get("schema", {}))}
    if wrong := sorted(repeated - lists):
        raise RequestValidationError(
            [{"loc": ("query", name), "msg": "given more than once; it takes one value", "type": "value_error"}
             for name in wrong]
        )  # fmt: skip


def install_problem_details(app: FastAPI) -> None:
    """Answer the API's errors as problems, and put `Problem` in the OpenAPI components the responses refer to."""
    app.add_exception_handler(StarletteHTTPException, http_problem)
    app.add_exception_handler(RequestValidationError, validation_problem)
    build = app.openapi

    def openapi() -> dict[str, Any]:
        fresh = app.openapi_schema is None
        document = build()  # FastAPI's, kept in app.openapi_schema: the components are added once
        if fresh:
            schemas = document.setdefault("components", {}).setdefault("schemas", {})
            problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}", mode="serialization")
            schemas.update(problem.pop("$defs", {}))
            schemas["Problem"] = problem
        return document

    app.openapi = openapi  # type: ignore[method-assign]
