"""`papertrail harvest` and `papertrail import` reject bad arguments before touching any server."""

import os

import pytest

from tests.support.spawning import ZYGOTE


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["harvest", "arxiv", "--from", "2024-13-01"], "'2024-13-01' is not a date YYYY-MM-DD"),
        (["harvest", "dblp"], "invalid choice: 'dblp'"),
        (["harvest", "arxiv", "--held"], "--held goes with the source arxiv_html"),
        (["import", "/nonexistent/snapshot.json"], "/nonexistent/snapshot.json is not a file"),
        (["import", "x.json", "--format", "csv"], "invalid choice: 'csv'"),
    ],
)
def test_bad_arguments_are_named(args: list[str], message: str) -> None:
    result = ZYGOTE.run(args, dict(os.environ))
    assert result.returncode != 0
    assert message in result.stderr
