"""Replay server: answers with recorded real upstream responses at the sources' own paths and parameters,
so the harvester's real HTTP code runs offline (tests, demos). Faults can be injected on request.

A folder holds the recorded files and `replay.json`:
    {"routes": [{"path": "/oai", "query": {"verb": "ListRecords", "metadataPrefix": "arXiv"},
                 "file": "arxiv_oai/arXiv/page.xml", "content_type": "text/xml"}]}
A request matches a route when the paths are equal and the route's query is a subset of the request's;
the most specific route wins.
"""

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from pydantic import BaseModel, Field


@dataclass(frozen=True)
class Route:
    path: str
    query: dict[str, str]
    file: Path
    content_type: str


class Fault(BaseModel):
    """A fault to inject on the next `times` requests to `path`."""

    path: str = Field(description="request path the fault applies to")
    status: int | None = Field(None, description="answer with this status instead of the recording")
    retry_after: str | None = Field(None, description="Retry-After header to send with the status")
    delay_s: float = Field(0, ge=0, le=600, description="wait this long before answering")
    truncate: int | None = Field(None, ge=0, description="send only this many bytes of the body")
    body: str | None = Field(None, description="send this body instead of the recording")
    times: int = Field(1, ge=1, description="how many requests it applies to")


@dataclass
class ReplayState:
    routes: list[Route]
    faults: list[Fault] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def route_for(self, path: str, query: dict[str, str]) -> Route | None:
        candidates = [r for r in self.routes if r.path == path and r.query.items() <= query.items()]
        return max(candidates, key=lambda r: len(r.query), default=None)

    def take_fault(self, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.path == path:
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
                return fault
        return None


def load_routes(folder: Path) -> list[Route]:
    manifest = json.loads((folder / "replay.json").read_text(encoding="utf-8"))
    return [
        Route(r["path"], dict(r.get("query", {})), folder / r["file"], r.get("content_type", "text/xml"))
        for r in manifest["routes"]
    ]


def make_replay_app(folder: Path) -> FastAPI:
    state = ReplayState(load_routes(folder))
    app = FastAPI(title="PaperTrail replay server", docs_url=None, redoc_url=None)
    app.state.replay = state

    @app.post("/_replay/faults", status_code=204)
    async def add_fault(fault: Fault) -> None:
        """Inject a fault on the next requests to a path."""
        state.faults.append(fault)

    @app.get("/_replay/requests")
    async def list_requests() -> list[dict[str, Any]]:
        """Every request served so far, in order (tests check politeness and paging with it)."""
        return state.requests

    @app.get("/{path:path}")
    async def replay(path: str, request: Request) -> Response:
        """The recorded response for this path and query."""
        loop = asyncio.get_running_loop()
        query = dict(request.query_params)
        state.requests.append({"path": "/" + path, "query": query, "at": loop.time()})
        fault = state.take_fault("/" + path)
        if fault and fault.delay_s:
            await asyncio.sleep(fault.delay_s)
        if fault and fault.status:
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            return Response(fault.body or f"injected {fault.status}", fault.status, headers=headers)
        route = state.route_for("/" + path, query)
        if route is None:
            return Response(f"no recording for /{path} {query}", 404, media_type="text/plain")
        body = fault.body.encode() if fault and fault.body is not None else route.file.read_bytes()
        if fault and fault.truncate is not None:
            body = body[: fault.truncate]
        return Response(body, 200, media_type=route.content_type)

    return app
