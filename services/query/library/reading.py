"""What the query service's import worker process runs: a library file read into the documents an import stores.
The worker imports this module only, so it stays light: the parsers and BSON, not the service."""

import bson

from services.query.library.imports import LibraryFormat, entry_record, read_library


def entry_documents(
    data: bytes, library_format: LibraryFormat | None, filename: str, job_id: str, user_id: str
) -> list[bytes]:
    """The file's entries as the job stores them, BSON-encoded (MalformedLibrary names the line of what is wrong).
    Runs in the worker process: reading is pure-Python work, and encoding there spares the service that too."""
    entries = read_library(data, library_format, filename)
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
