"""KaTeX for the pages' formulas: the npm package `katex`, pinned and checked, unpacked where the query service
serves its static files. Build tooling, run by `make install` (`papertrail assets`); the Dockerfile does the same
in a stage of its own, with the same version and checksum (tests/papertrail/test_katex.py keeps them equal).
"""

import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from papertrail_tools.stack import sha256_of

KATEX_VERSION = "0.19.1"
# sha256 of the registry's tarball katex-0.19.1.tgz; npm checks its own integrity field on download too
# (sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0/YeOy15lDgRhKvr5614uRrEfA==).
KATEX_SHA256 = "24da5a599eb2fcede2e270b99a6ff48bca816beecc95feeb84e8cccbd1bb34fd"
STAMP = ".installed"


class AssetError(Exception):
    """KaTeX could not be fetched, or its tarball is not the pinned one; the message says which."""


def installed(dest: Path) -> bool:
    """Whether dest holds the pinned KaTeX (as install_katex left it)."""
    stamp = dest / STAMP
    return stamp.is_file() and stamp.read_text().strip() == f"katex {KATEX_VERSION} sha256 {KATEX_SHA256}"


def install_katex(dest: Path, log: Callable[[str], None] = print) -> None:
    """Put the tarball's `dist/` (katex.min.js, katex.min.css, fonts/, contrib/auto-render.min.js …) and its
    LICENSE into dest, unless dest holds this version already. A tarball whose sha256 differs is refused."""
    if installed(dest):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise AssetError("katex: npm is needed to fetch KaTeX (apt-get install npm)")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        packed = subprocess.run(
            [npm, "pack", f"katex@{KATEX_VERSION}", "--pack-destination", str(folder), "--silent"],
            capture_output=True,
            text=True,
            check=False,
        )
        tarball = folder / f"katex-{KATEX_VERSION}.tgz"
        if packed.returncode != 0 or not tarball.is_file():
            raise AssetError(f"katex: npm pack failed: {packed.stderr.strip()[-2000:]}")
        actual = sha256_of(tarball)
        if actual != KATEX_SHA256:
            raise AssetError(f"katex: {tarball.name} has sha256 {actual}, expected {KATEX_SHA256}; refusing it")
        unpacked = folder / "unpacked"
        with tarfile.open(tarball) as archive:
            wanted = [m for m in archive.getmembers() if m.name.startswith(("package/dist/", "package/LICENSE"))]
            archive.extractall(unpacked, members=wanted, filter="data")
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(unpacked / "package" / "dist", dest)
        shutil.move(unpacked / "package" / "LICENSE", dest / "LICENSE")
    (dest / STAMP).write_text(f"katex {KATEX_VERSION} sha256 {KATEX_SHA256}\n")
    log(f"katex {KATEX_VERSION} installed in {dest}")
