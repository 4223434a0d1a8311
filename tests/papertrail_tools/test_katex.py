"""KaTeX and Swagger UI from npm for the pages: the pinned tarball unpacked once, a tarball of another checksum
refused, and the Docker image's stages pinned to the same versions and checksums."""

import re
from pathlib import Path

import pytest

from papertrail_tools import katex, swagger_ui

ROOT = Path(__file__).resolve().parents[2]


def test_the_image_fetches_the_same_pinned_katex() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(rf"^ARG KATEX_VERSION={re.escape(katex.KATEX_VERSION)}$", dockerfile, re.M)
    assert re.search(rf"^ARG KATEX_SHA256={katex.KATEX_SHA256}$", dockerfile, re.M)
    assert "sha256sum -c" in dockerfile and "services/query/web/static/katex/" in dockerfile


def test_the_image_fetches_the_same_pinned_swagger_ui() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(rf"^ARG SWAGGER_UI_VERSION={re.escape(swagger_ui.SWAGGER_UI_VERSION)}$", dockerfile, re.M)
    assert re.search(rf"^ARG SWAGGER_UI_SHA256={swagger_ui.SWAGGER_UI_SHA256}$", dockerfile, re.M)
    assert all(f"package/{name}" in dockerfile for name in swagger_ui.FILES)
    assert "services/query/web/static/swagger-ui/" in dockerfile


def test_swagger_ui_install_unpacks_what_docs_loads(tmp_path: Path) -> None:
    dest = tmp_path / "swagger-ui"
    swagger_ui.install_swagger_ui(dest, log=lambda line: None)
    assert all((dest / name).is_file() for name in swagger_ui.FILES) and swagger_ui.installed(dest)
    assert "SwaggerUIBundle" in (dest / "swagger-ui-bundle.js").read_text()


def test_install_unpacks_the_dist_once(tmp_path: Path) -> None:
    dest = tmp_path / "katex"
    katex.install_katex(dest, log=lambda line: None)
    for name in ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js", "fonts/KaTeX_Main-Regular.woff2"):
        assert (dest / name).is_file(), name
    assert "MIT License" in (dest / "LICENSE").read_text()
    assert katex.installed(dest)
    (dest / "katex.min.js").write_text("// left alone by a second install")
    katex.install_katex(dest, log=lambda line: None)
    assert (dest / "katex.min.js").read_text() == "// left alone by a second install"


def test_a_tarball_of_another_checksum_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(katex, "KATEX_SHA256", "0" * 64)  # read at each call
    with pytest.raises(katex.AssetError, match="refusing"):
        katex.install_katex(tmp_path / "katex", log=lambda line: None)
    assert not (tmp_path / "katex").exists()
