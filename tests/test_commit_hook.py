"""The commit-msg hook of the contributing notes: subjects of at most 72 characters, a blank line before the body."""

import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parents[1] / ".githooks" / "commit-msg"


@pytest.mark.parametrize(
    ("message", "accepted"),
    [
        ("Venue claims: journals read as journals\n\nWhy it changed.\n", True),
        ("x" * 72 + "\n", True),
        ("x" * 73 + "\n", False),
        ("论文" * 36 + "\n", True),  # characters, not bytes
        ("论文" * 36 + "多\n", False),
        ("Subject\nthe body with no blank line before it\n", False),
        ("# git's own comment lines are not the subject\nSubject\n\nBody\n", True),
    ],
)
def test_the_hook_takes_short_subjects_with_the_why_below(tmp_path: Path, message: str, accepted: bool) -> None:
    written = tmp_path / "COMMIT_EDITMSG"
    written.write_text(message, encoding="utf-8")
    ran = subprocess.run([str(HOOK), str(written)], capture_output=True, text=True, env={"LC_ALL": "C.UTF-8"})
    assert (ran.returncode == 0) is accepted, ran.stderr
