"""What the fairness tests' worker processes run: the import's own reading, held for one file name until the test lets
it go, so the test knows that file is being read (and not done) without timing it. Light: the worker imports this."""

import os
import time
from pathlib import Path

from services.query.library.imports import LibraryFormat
from services.query.library.reading import entry_documents

HELD = "held.bib"  # the file name whose reading is held
HOLD_AT_MOST_S = 120  # a test that never lets go still ends


def held_read(
    gate: str,
    data: bytes,
    library_format: LibraryFormat | None,
    filename: str,
    job_id: str,
    user_id: str,
    max_entries: int,
) -> list[bytes]:
    """`entry_documents`; for a file named HELD, only once `gate`/go exists, `gate`/started-<user_id> saying it
    began and in which process."""
    if filename == HELD:
        # written whole, then renamed: a test that sees the file reads the process id, never an empty file
        writing = Path(gate) / f".started-{user_id}"
        writing.write_text(str(os.getpid()))
        writing.replace(Path(gate) / f"started-{user_id}")
        deadline = time.monotonic() + HOLD_AT_MOST_S
        while not (Path(gate) / "go").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    return entry_documents(data, library_format, filename, job_id, user_id, max_entries)
