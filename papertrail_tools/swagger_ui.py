"""Swagger UI for the API's /docs page: the npm package `swagger-ui-dist`, pinned and checked
(papertrail_tools/npm_assets.py), its bundle, stylesheet and licences unpacked where the query service serves its
static files, so /docs loads nothing from a CDN. The Dockerfile fetches the same version and checksum in a stage of
its own (tests/papertrail_tools/test_katex.py keeps them equal)."""

from collections.abc import Callable
from pathlib import Path

from papertrail_tools import npm_assets

SWAGGER_UI_VERSION = "5.35.0"
# sha256 of the registry's tarball swagger-ui-dist-5.35.0.tgz
SWAGGER_UI_SHA256 = "1b8e891893404ea4c3558b6a87e2a3e494e7eedba41168c2ece5800a391a6ea6"
FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE", "NOTICE")


def installed(dest: Path) -> bool:
    return npm_assets.installed(dest, "swagger-ui-dist", SWAGGER_UI_VERSION, SWAGGER_UI_SHA256)


def install_swagger_ui(dest: Path, log: Callable[[str], None] = print) -> None:
    """Put the files /docs needs into dest, unless dest holds this version already."""
    moves = {f"package/{name}": name for name in FILES}
    npm_assets.install_package("swagger-ui-dist", SWAGGER_UI_VERSION, SWAGGER_UI_SHA256, moves, dest, log)
