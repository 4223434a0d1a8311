"""Replay server: answers with recorded real upstream responses at the sources' own paths and parameters,
so the harvester's real HTTP code runs offline (tests, demos). Faults can be injected on request.

A folder holds the recorded files and `replay.json`:
    {"routes": [{"path": "/oai", "query": {"verb": "ListRecords", "metadataPrefix": "arXiv"},
                 "file": "arxiv_oai/arXiv/page.xml", "content_type": "text/xml"}]}
A request matches a route when the paths are equal and the route's query is a subset of the request's;
the most specific route wins. A route with `"files": [...]` instead of `"file"` answers a feed that changes:
the first file to its first request, the next to the next, the last one from then on (yesterday's batch, then
tonight's announcement); resetting the request log starts it over. A route with `"content_encoding": "gzip"`
serves a gzipped recording as it is, under that Content-Encoding, so the client reads the text it was recorded
from (the corpus' day files, as raw.githubusercontent.com serves them). Responses carry an ETag (the file's sha256)
and answer a matching If-None-Match with 304, as raw.githubusercontent.com does.

Faults (POST /_replay/faults, see `Fault`): a status such as 503 with Retry-After or 500, a slow
answer, a truncated body, a replacement body (not XML/JSON), or `bad_token` (the recorded
badResumptionToken answer to the next request that carries a resumptionToken).
"""

import asyncio
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, Response
from pydantic import BaseModel, Field


@dataclass
class Route:
    path: str
    query: dict[str, str]
    files: list[Path]
    content_type: str
    content_encoding: str | None = None
    served: int = 0

    def next_file(self) -> Path:
        file = self.files[min(self.served, len(self.files) - 1)]
        self.served += 1
        return file


class Fault(BaseModel):
    """A fault to inject on the next `times` requests to `path`."""

    path: str = Field(description="request path the fault applies to")
    query: dict[str, str] = Field(
        default_factory=dict, description="only requests whose query contains these parameters"
    )
    bad_token: bool = Field(
        False, description="answer the next request carrying a resumptionToken with OAI badResumptionToken"
    )
    content_type: str | None = Field(None, description="Content-Type of a replacement `body`")
    status: int | None = Field(None, description="answer with this status instead of the recording")
    retry_after: str | None = Field(None, description="Retry-After header to send with the status")
    delay_s: float = Field(0, ge=0, le=600, description="wait this long before answering")
    truncate: int | None = Field(None, ge=0, description="send only this many bytes of the body")
    body: str | None = Field(None, description="send this body instead of the recording")
    times: int = Field(1, ge=1, description="how many requests it applies to")


@dataclass
class ReplayState:
    routes: list[Route]
    bad_token_file: Path | None = None
    faults: list[Fault] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def route_for(self, path: str, query: dict[str, str]) -> Route | None:
        candidates = [r for r in self.routes if r.path == path and r.query.items() <= query.items()]
        return max(candidates, key=lambda r: len(r.query), default=None)

    def take_fault(self, path: str, query: dict[str, str]) -> Fault | None:
        for fault in self.faults:
            if fault.bad_token and "resumptionToken" not in query:
                continue
            if fault.path == path and fault.query.items() <= query.items():
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
                return fault
        return None


async def _pause(request: Request, seconds: float) -> None:
    """A slow answer that ends early when the client hangs up, so the server can always shut down."""
    deadline = asyncio.get_running_loop().time() + seconds
    while (left := deadline - asyncio.get_running_loop().time()) > 0:
        await asyncio.sleep(min(0.1, left))
        if await request.is_disconnected():
            return


def load_state(folder: Path) -> ReplayState:
    manifest = json.loads((folder / "replay.json").read_text(encoding="utf-8"))
    routes = [
        Route(
            r["path"],
            dict(r.get("query", {})),
            [folder / f for f in r.get("files", [r.get("file")])],
            r.get("content_type", "text/xml"),
            r.get("content_encoding"),
        )
        for r in manifest["routes"]
    ]
    bad_token = manifest.get("bad_token_file")
    return ReplayState(routes, folder / bad_token if bad_token else None)


def make_replay_app(folder: Path) -> FastAPI:
    state = load_state(folder)
    app = FastAPI(title="PaperTrail replay server", docs_url=None, redoc_url=None)
    app.state.replay = state

    @app.post("/_replay/faults", status_code=204)
    async def add_fault(fault: Fault) -> None:
        """Inject a fault on the next requests to a path."""
        if fault.bad_token and state.bad_token_file is None:
            raise HTTPException(422, "bad_token needs `bad_token_file` in replay.json")
        state.faults.append(fault)

    @app.delete("/_replay/faults", status_code=204)
    async def clear_faults() -> None:
        """Forget every pending fault."""
        state.faults.clear()

    @app.delete("/_replay/requests", status_code=204)
    async def reset() -> None:
        """Forget the request log and every pending fault (tests start from a clean server)."""
        state.requests.clear()
        state.faults.clear()
        for route in state.routes:
            route.served = 0

    @app.get("/_replay/requests")
    async def list_requests() -> list[dict[str, Any]]:
        """Every request served so far, in order (tests check politeness and paging with it)."""
        return state.requests

    @app.api_route("/{path:path}", methods=["GET", "POST"])
    async def replay(path: str, request: Request) -> Response:
        """The recorded response for this path and query (a POST's, such as a batch lookup's, whatever its body)."""
        loop = asyncio.get_running_loop()
        query = dict(request.query_params)
        # `at` is the server's monotonic clock: tests measure waits between requests with it
        logged: dict[str, Any] = {"path": "/" + path, "query": query, "at": loop.time()}
        if request.method == "POST":
            logged["body"] = (await request.body()).decode("utf-8", "replace")
        state.requests.append(logged)
        fault = state.take_fault("/" + path, query)
        if fault:
            logged["fault"] = fault.model_dump(exclude_defaults=True)
        if fault and fault.delay_s:
            await _pause(request, fault.delay_s)
            if await request.is_disconnected():
                logged["status"] = "client gone"
                return Response(status_code=499)
        if fault and fault.status:
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            logged["status"] = fault.status
            return Response(fault.body or f"injected {fault.status}", fault.status, headers=headers)
        if fault and fault.bad_token and state.bad_token_file is not None:
            logged["status"] = 200
            return Response(state.bad_token_file.read_bytes(), 200, media_type="text/xml")
        route = state.route_for("/" + path, query)
        if route is None:
            logged["status"] = 404
            return Response(f"no recording for /{path} {query}", 404, media_type="text/plain")
        body = route.next_file().read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest() + '"'
        if fault is None and request.headers.get("If-None-Match") == etag:
            logged["status"] = 304
            return Response(status_code=304, headers={"ETag": etag})
        media_type = route.content_type
        if fault and fault.body is not None:
            body, media_type = fault.body.encode(), fault.content_type or media_type
        if fault and fault.truncate is not None:
            body = body[: fault.truncate]
        logged["status"] = 200
        headers = {"ETag": etag} if fault is None else {}
        if route.content_encoding and (fault is None or fault.body is None):
            headers["Content-Encoding"] = route.content_encoding
        return Response(body, 200, media_type=media_type, headers=headers)

    return app
