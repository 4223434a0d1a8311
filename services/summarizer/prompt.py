"""The summary prompt (versioned) and the structured answer it asks for: builds messages, parses answers; no I/O."""

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from schemas.paper import Paper

# Bump on any change of the wording or of SummaryAnswer: the cache is keyed by it, so papers get re-summarized.
PROMPT_VERSION = "2026-11-30.1"
MAX_KEYWORDS = 8
ABSTRACT_CHARS = 6000  # a few abstracts are pasted papers; bound the tokens one call may spend
MAX_AUTHORS = 30

OutputMode = Literal["json_schema", "json_object"]


class AnswerInstitution(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="institution name as given in the affiliations")
    name_zh: str = Field(description="its usual Chinese name")


class SummaryAnswer(BaseModel):
    """What the model must return: every field required, nothing else (strict JSON schema)."""

    model_config = ConfigDict(extra="forbid")

    title_zh: str = Field(description="the title translated into Chinese")
    tldr_zh: str = Field(description="two or three Chinese sentences: problem, approach, main result")
    motivation_zh: str = Field(description="why the work was done, in Chinese")
    method_zh: str = Field(description="what was done and how, in Chinese")
    result_zh: str = Field(description="the main findings with numbers where given, in Chinese")
    conclusion_zh: str = Field(description="what it means, in Chinese")
    tldr_en: str = Field(description="one or two English sentences")
    keywords: list[str] = Field(description=f"at most {MAX_KEYWORDS} English keywords")
    institutions: list[AnswerInstitution] = Field(description="institutions from the affiliations, else empty")
    ai_related: bool = Field(description="whether the paper is about artificial intelligence or machine learning")
    ai_reason: str = Field(description="one line saying why")

    @field_validator("keywords")
    @classmethod
    def _at_most_eight(cls, value: list[str]) -> list[str]:
        # Models overshoot a count now and then; a ninth keyword is no reason to throw the summary away.
        return [k.strip() for k in value if k.strip()][:MAX_KEYWORDS]

    @field_validator("title_zh", "tldr_zh", "tldr_en")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


SYSTEM_PROMPT = f"""You summarize computer-science papers for Chinese-speaking researchers.
Read the paper's metadata and abstract and answer with one JSON object, no prose around it, with exactly these keys:
title_zh, tldr_zh, motivation_zh, method_zh, result_zh, conclusion_zh (Chinese, faithful to the abstract,
no invented numbers), tldr_en (English), keywords (at most {MAX_KEYWORDS} English keywords), institutions
(a list of {{"name", "name_zh"}}, one per distinct institution in the authors' affiliations, with its usual
Chinese name; an empty list when no affiliation is given), ai_related (true when the paper's subject is
artificial intelligence, machine learning, computer vision, NLP or robotics learning) and ai_reason (one line).
Keep technical terms and model names in English where Chinese papers usually do."""


def _author_lines(paper: Paper) -> list[str]:
    lines = []
    for author in paper.authors[:MAX_AUTHORS]:
        where = "; ".join(author.affiliations)
        lines.append(f"- {author.name} ({where})" if where else f"- {author.name}")
    if len(paper.authors) > MAX_AUTHORS:
        lines.append(f"- … and {len(paper.authors) - MAX_AUTHORS} more")
    return lines


def paper_text(paper: Paper) -> str:
    """The user message: what the model needs to know about the paper, and nothing it could leak back."""
    abstract = paper.abstract if len(paper.abstract) <= ABSTRACT_CHARS else paper.abstract[:ABSTRACT_CHARS] + " …"
    parts = [f"Title: {paper.title}", f"Categories: {', '.join(paper.categories) or 'unknown'}"]
    if paper.venue:
        parts.append(f"Venue: {paper.venue}")
    if paper.authors:
        parts.append("Authors (affiliations):\n" + "\n".join(_author_lines(paper)))
    parts.append(f"Abstract:\n{abstract or '(none)'}")
    return "\n".join(parts)


def build_messages(paper: Paper, mode: OutputMode) -> list[dict[str, str]]:
    """Chat messages for one paper. JSON mode has no schema on the wire, so the schema goes into the prompt."""
    system = SYSTEM_PROMPT
    if mode == "json_object":
        schema = json.dumps(SummaryAnswer.model_json_schema(), ensure_ascii=False)
        system += f"\nThe JSON object must validate against this JSON Schema:\n{schema}"
    return [{"role": "system", "content": system}, {"role": "user", "content": paper_text(paper)}]


def repair_messages(messages: list[dict[str, str]], answer: str, problem: str) -> list[dict[str, str]]:
    """The one repair attempt: show the model its answer and what was wrong with it."""
    return [
        *messages,
        {"role": "assistant", "content": answer},
        {
            "role": "user",
            "content": f"That answer is not valid: {problem}. Answer again with only the corrected JSON object.",
        },
    ]


def response_format(mode: OutputMode) -> dict[str, Any]:
    """The `response_format` of the request: a strict JSON schema, or plain JSON mode for endpoints without it."""
    if mode == "json_object":
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {"name": "paper_summary", "strict": True, "schema": SummaryAnswer.model_json_schema()},
    }


class InvalidAnswer(ValueError):
    """The model's answer is not the JSON object asked for (`kind` invalid_json or schema), or fails a summary check
    (`checks`)."""

    def __init__(self, kind: Literal["invalid_json", "schema", "checks"], problem: str) -> None:
        super().__init__(problem)
        self.kind = kind
        self.problem = problem


def _strip_fences(text: str) -> str:
    # Small local models wrap JSON in ```json fences even in JSON mode.
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text.strip()


def parse_answer(text: str | None) -> SummaryAnswer:
    """Validate the model's answer; raise InvalidAnswer naming the problem, which the repair prompt quotes."""
    if not text or not text.strip():
        raise InvalidAnswer("invalid_json", "the answer is empty")
    try:
        data = json.loads(_strip_fences(text))
    except json.JSONDecodeError as exc:
        raise InvalidAnswer("invalid_json", f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    try:
        return SummaryAnswer.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'object'}: {e['msg']}" for e in exc.errors()[:10])
        raise InvalidAnswer("schema", problems) from exc
