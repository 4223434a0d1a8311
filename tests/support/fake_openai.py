"""A local OpenAI-compatible server for tests: chat completions answering with the corpus's real Chinese summaries,
and embeddings.

It speaks the wire format of POST /v1/chat/completions (response_format json_schema and json_object included,
refusals, usage) and of POST /v1/embeddings (a list of inputs, `dimensions`, usage; a vector per text derived from
the text's sha256, so the same text always gets the same one), and can be told to misbehave: the next requests get
a 429 with Retry-After, a 500, a reply slower than the client's timeout, invalid JSON, JSON that breaks the schema,
a refusal, a valid answer that fails a summary check (a number the paper does not state, an English TL;DR in
the Chinese field), or vectors of the wrong length; or it can be down. Asked for a title alone (the summarizer's title
path, services/summarizer/titles.py), it answers with the hand translation of a corpus paper's title, or echoes the
English title when told to.
"""

import asyncio
import hashlib
import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import jsonschema
import numpy as np
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from schemas.events import PaperNormalized
from schemas.paper import Author, Paper, PaperIds, PaperVersion
from tests.support.paths import FIXTURES
from tests.support.servers import free_port
from tests.support.waiting import wait_until

CORPUS = FIXTURES / "summarizer" / "corpus-2026-05-05.jsonl"
ADDITIONS = FIXTURES / "summarizer" / "additions.json"
AI_CATEGORIES = {"cs.AI", "cs.CL", "cs.CV", "cs.LG", "cs.MA", "cs.NE", "cs.IR", "cs.RO", "stat.ML"}

Fault = Literal[
    "429",
    "500",
    "timeout",
    "invalid_json",
    "schema",
    "refusal",
    "short_vectors",
    "invented_number",
    "english_tldr",
    "english_title",
]
# The system prompt's start of the summarizer's title path (services/summarizer/titles.py)
TITLE_PROMPT = "Translate the title of a computer-science paper"


def corpus_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def corpus_summary_fields(line: dict[str, Any]) -> dict[str, str]:
    """The corpus's real Chinese summary of a paper as answer fields, and an English TL;DR from its title (not the
    abstract's first sentence: a TL;DR lifted from the abstract fails the summary checks)."""
    ai = line["AI"]
    return {
        "tldr_zh": ai["tldr"],
        "motivation_zh": ai["motivation"],
        "method_zh": ai["method"],
        "result_zh": ai["result"],
        "conclusion_zh": ai["conclusion"],
        "tldr_en": f"The paper presents {line['title']}.",
    }


def _author_key(name: str) -> str:
    parts = name.lower().replace(".", "").split()
    return f"{parts[-1]} {parts[0][0]}" if len(parts) > 1 else parts[0]


def corpus_event(line: dict[str, Any], kind: str = "new", **paper_changes: Any) -> PaperNormalized:
    """The normalized event the normalizer would emit for a corpus paper (affiliations from additions.json)."""
    additions = json.loads(ADDITIONS.read_text(encoding="utf-8"))
    affiliations = additions["affiliations"].get(line["id"], {})
    now = "2026-05-05T00:00:00Z"
    paper = Paper(
        id=f"arxiv:{line['id']}",
        ids=PaperIds(arxiv=line["id"]),
        title=line["title"],
        abstract=line["summary"],
        authors=[Author(name=a, key=_author_key(a), affiliations=affiliations.get(a, [])) for a in line["authors"]],
        categories=line["categories"],
        comments=line["comment"],
        links={"abs": line["abs"], "pdf": line["pdf"]},
        sources=["arxiv"],
        ai_related=bool(AI_CATEGORIES & set(line["categories"])),
        first_seen=now,
        updated_at=now,
    ).model_copy(update=paper_changes)
    version = PaperVersion(
        paper_id=paper.id,
        seq=1 if kind == "new" else 2,
        kind={"new": "first_observed", "revised": "new_version"}.get(kind, "metadata_correction"),  # type: ignore[arg-type]
        source="arxiv",
        source_record_id=line["id"],
        observed_at=now,
        changed_fields=list(paper_changes) if kind != "new" else ["title", "abstract", "authors"],
        content_hash="0" * 64,
    )
    return PaperNormalized(kind=kind, paper=paper, version=version)  # type: ignore[arg-type]


@dataclass
class Seen:
    """One request as the server received it."""

    at: float
    body: dict[str, Any]
    status: int

    @property
    def title(self) -> str | None:
        found = re.search(r"^Title: (.+)$", self.body["messages"][1]["content"], re.M)
        return found.group(1) if found else None


@dataclass
class FakeOpenAI:
    """The server's state; tests queue faults and read `requests`."""

    timeout_sleep_s: float = 3.0
    delay_s: float = 0.0  # every answer takes this long, to see how many requests overlap
    retry_after: str = "1"
    down: bool = False
    faults: deque[Fault] = field(default_factory=deque)
    requests: list[Seen] = field(default_factory=list)
    embedding_requests: list[Seen] = field(default_factory=list)
    embedding_dimensions: int = 16  # when a request does not send `dimensions`
    max_input_chars: int = 20_000  # a longer input is refused with a 400, as a model's context limit refuses it
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    max_in_flight: int = 0

    def __post_init__(self) -> None:
        self.papers = {line["title"]: line for line in corpus_lines()}
        additions = json.loads(ADDITIONS.read_text(encoding="utf-8"))
        self.title_zh: dict[str, str] = additions["title_zh"]
        self.institutions_zh: dict[str, str] = additions["institutions_zh"]

    def fail_next(self, *faults: Fault) -> None:
        with self.lock:
            self.faults.extend(faults)

    def reset(self) -> None:
        with self.lock:
            self.faults.clear()
            self.requests.clear()
            self.embedding_requests.clear()
            self.max_input_chars = 20_000
            self.down = False
            self.delay_s = 0.0
            self.max_in_flight = 0

    def title_for(self, body: dict[str, Any]) -> str | None:
        """The hand translation of the corpus title asked about in a title request (its last message)."""
        line = self.papers.get(body["messages"][-1]["content"])
        return self.title_zh.get(line["id"]) if line else None

    def answer_for(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The structured answer a good model would give, from the corpus line of the paper asked about."""
        user = body["messages"][1]["content"]
        title = re.search(r"^Title: (.+)$", user, re.M)
        line = self.papers.get(title.group(1)) if title else None
        if line is None:
            return None
        return {
            "title_zh": self.title_zh[line["id"]],
            **corpus_summary_fields(line),
            "keywords": [*line["categories"], *line["title"].replace(":", "").split()][:10],  # > 8 on purpose
            "institutions": [{"name": n, "name_zh": zh} for n, zh in self.institutions_zh.items() if n in user],
            "ai_related": bool(AI_CATEGORIES & set(line["categories"])),
            "ai_reason": "类别为 " + ", ".join(line["categories"]),
        }


def fake_vector(text: str, dimensions: int) -> list[float]:
    """The fake's vector of a text: the same text, the same vector; not of length 1, as some servers answer."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    return [float(x) for x in np.random.default_rng(seed).normal(size=dimensions) * 3]


def _error(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return JSONResponse(body, status_code=status, headers=headers)


def _completion(body: dict[str, Any], content: str | None, refusal: str | None = None) -> dict[str, Any]:
    prompt_tokens = len(json.dumps(body["messages"], ensure_ascii=False)) // 3
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(content or refusal or "") // 2,
            "total_tokens": prompt_tokens + len(content or refusal or "") // 2,
        },
    }


def _check_strict_schema(schema: dict[str, Any]) -> str | None:
    """What OpenAI's strict mode rejects: objects must forbid extra keys and require every property."""
    for node in [schema, *schema.get("$defs", {}).values()]:
        if node.get("type") == "object":
            if node.get("additionalProperties") is not False:
                return "additionalProperties must be false"
            if set(node.get("required", [])) != set(node.get("properties", {})):
                return "every property must be required"
    return None


def make_app(state: FakeOpenAI) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Any:
        with state.lock:
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            if state.delay_s:
                await asyncio.sleep(state.delay_s)
            return await _answer(await request.json())
        finally:
            with state.lock:
                state.in_flight -= 1

    async def _misbehave(body: dict[str, Any], seen: list[Seen]) -> tuple[Fault | None, JSONResponse | None]:
        """Record the request and take the next queued fault: an error to answer with, or a fault the answer carries."""
        with state.lock:
            fault = state.faults.popleft() if state.faults and not state.down else None
        status = 503 if state.down else {"429": 429, "500": 500}.get(fault or "", 200)
        seen.append(Seen(time.monotonic(), body, status))
        if state.down:
            return fault, _error(503, "The server is overloaded or not ready yet.", "server_error")
        if fault == "429":
            return fault, _error(429, "Rate limit reached", "requests", {"retry-after": state.retry_after})
        if fault == "500":
            return fault, _error(500, "The server had an error while processing your request.", "server_error")
        if fault == "timeout":
            await asyncio.sleep(state.timeout_sleep_s)
        return fault, None

    @app.post("/v1/embeddings")
    async def embeddings(request: Request) -> Any:
        body = await request.json()
        fault, failure = await _misbehave(body, state.embedding_requests)
        if failure is not None:
            return failure
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        for text in inputs:
            if not isinstance(text, str) or not text:
                return _error(400, "'$.input' is invalid: expected non-empty strings", "invalid_request_error")
            if len(text) > state.max_input_chars:
                return _error(400, "This model's maximum context length is exceeded.", "invalid_request_error")
        dimensions = int(body.get("dimensions") or state.embedding_dimensions) - (fault == "short_vectors")
        tokens = sum(len(text) // 4 + 1 for text in inputs)
        return {
            "object": "list",
            "model": body["model"],
            "data": [
                {"object": "embedding", "index": i, "embedding": fake_vector(text, dimensions)}
                for i, text in reversed(list(enumerate(inputs)))  # order by `index`, not by position
            ],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    async def _answer(body: dict[str, Any]) -> Any:
        fault, failure = await _misbehave(body, state.requests)
        if failure is not None:
            return failure
        if body["messages"][0]["content"].startswith(TITLE_PROMPT):
            title = state.title_for(body)
            if title is None:
                return _error(400, "fake server: title not in the test corpus", "invalid_request_error")
            return _completion(body, body["messages"][-1]["content"] if fault == "english_title" else title)
        answer = state.answer_for(body)
        if answer is None:
            return _error(400, "fake server: paper not in the test corpus", "invalid_request_error")
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema":
            schema = response_format["json_schema"]["schema"]
            problem = _check_strict_schema(schema)
            if problem:
                return _error(400, f"Invalid schema for response_format: {problem}", "invalid_request_error")
            if fault is None:
                answer["keywords"] = answer["keywords"][:8]
                jsonschema.validate(answer, schema)  # the real API guarantees schema-valid output
        if fault == "invented_number":
            answer["result_zh"] += "准确率提升至 97.3%。"
        if fault == "english_tldr":
            answer["tldr_zh"] = "The paper proposes a new method and shows that it works well."
        if fault == "refusal":
            return _completion(body, None, "I'm sorry, I can't help with that request.")
        if fault == "invalid_json":
            return _completion(body, json.dumps(answer, ensure_ascii=False)[:120])
        if fault == "schema":
            return _completion(body, json.dumps({"title_zh": answer["title_zh"]}, ensure_ascii=False))
        return _completion(body, json.dumps(answer, ensure_ascii=False))

    return app


@contextmanager
def running_fake_openai(state: FakeOpenAI | None = None) -> Iterator[tuple[FakeOpenAI, str]]:
    """Serve the fake on a free port in a thread; yield its state and base URL (`http://127.0.0.1:P/v1`)."""
    state = state or FakeOpenAI()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(state), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, timeout=30, interval=0.05, what="fake OpenAI server")
        yield state, f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
