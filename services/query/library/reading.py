"""What the query service's import worker process runs: a library file read into the documents an import stores.
The worker imports this module only, so it stays light: the parsers and BSON, not the service."""

import ctypes
import os
import signal
import sys
import threading
import time

import bson

from services.query.library.imports import LibraryFormat, entry_record, read_library

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def entry_documents(
    data: bytes, library_format: LibraryFormat | None, filename: str, job_id: str, user_id: str, max_entries: int
) -> list[bytes]:
    """The file's entries as the job stores them, BSON-encoded (MalformedLibrary names the line of what is wrong;
    TooManyEntries the entry past `max_entries`, where reading stopped). Runs in a worker process: reading is
    pure-Python work, and encoding there spares the service that too."""
    entries = read_library(data, library_format, filename, max_entries=max_entries)
    return [
        bson.encode(
            {
                "_id": f"{job_id}:{n}",
                "job_id": job_id,
                "user_id": user_id,
                "n": n,  # the entry's place in the file, from 0: the job's cursor counts these
                "line": entry.line,
                "label": entry.label,
                "title": entry.title,
                "entry": entry_record(entry),
            }
        )
        for n, entry in enumerate(entries)
    ]


def end_with_parent(parent: int) -> None:
    """The worker's initializer: it ends when the service that started it is gone (killed, the service cannot stop
    it), instead of reading on for no one. On Linux the kernel kills it (PR_SET_PDEATHSIG: a watching thread may wait
    for the GIL for as long as the parser holds it); elsewhere a thread looks every second."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # gone already, before the kernel was asked
            os._exit(1)
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
