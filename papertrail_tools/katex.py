"""KaTeX for the pages' formulas: the npm package `katex`, pinned and checked (papertrail_tools/npm_assets.py),
its `dist/` and LICENSE unpacked where the query service serves its static files. The Dockerfile fetches the same
version and checksum in a stage of its own (tests/papertrail_tools/test_katex.py keeps them equal).
"""

from collections.abc import Callable
from pathlib import Path

from papertrail_tools import npm_assets
from papertrail_tools.npm_assets import AssetError

__all__ = ["AssetError", "install_katex", "installed"]

KATEX_VERSION = "0.19.1"
# sha256 of the registry's tarball katex-0.19.1.tgz; npm checks its own integrity field on download too
# (sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0/YeOy15lDgRhKvr5614uRrEfA==).
KATEX_SHA256 = "24da5a599eb2fcede2e270b99a6ff48bca816beecc95feeb84e8cccbd1bb34fd"


def installed(dest: Path) -> bool:
    """Whether dest holds the pinned KaTeX (as install_katex left it)."""
    return npm_assets.installed(dest, "katex", KATEX_VERSION, KATEX_SHA256)


def install_katex(dest: Path, log: Callable[[str], None] = print) -> None:
    """Put the tarball's `dist/` (katex.min.js, katex.min.css, fonts/, contrib/auto-render.min.js …) and its
    LICENSE into dest, unless dest holds this version already. A tarball whose sha256 differs is refused."""
    moves = {"package/dist": ".", "package/LICENSE": "LICENSE"}
    npm_assets.install_package("katex", KATEX_VERSION, KATEX_SHA256, moves, dest, log)
