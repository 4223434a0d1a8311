"""ccf-deadlines' repository as GitHub serves it, a tar.gz archive with one top folder (`ccf-deadlines-main/`): its
conference/ and accept_rates/ files by their path in the repository, and the commit `git archive` names in the
archive's pax header. Pure: bytes in, files out."""

import io
import tarfile
from dataclasses import dataclass, field

from papertrail.domain.venues.ccfddl import MAX_FILE_BYTES

DATA_FOLDERS = ("conference", "accept_rates")


class MalformedArchive(ValueError):
    """Not a tar.gz archive of the repository; the message says what it is instead."""


@dataclass
class ArchiveFiles:
    files: dict[str, bytes] = field(default_factory=dict)  # "conference/AI/icml.yml" → its bytes
    commit: str | None = None
    too_large: list[str] = field(default_factory=list)  # "path: what is wrong", not read


def data_files(archive: bytes) -> ArchiveFiles:
    """The data files of the archive; a member over MAX_FILE_BYTES is named and left unread (a file of the data is a
    few kB; reading no larger one keeps a hostile archive from filling the memory)."""
    found = ArchiveFiles()
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            comment = tar.pax_headers.get("comment", "").strip()
            found.commit = comment if len(comment) == 40 and comment.isalnum() else None
            for member in tar:
                _, _, path = member.name.partition("/")  # below the archive's one top folder
                if not member.isfile() or not path.startswith(tuple(f"{f}/" for f in DATA_FOLDERS)):
                    continue
                if member.size > MAX_FILE_BYTES:
                    found.too_large.append(f"{path}: {member.size} bytes, over the {MAX_FILE_BYTES} a file may have")
                    continue
                content = tar.extractfile(member)
                if content is not None:
                    found.files[path] = content.read()
    except (tarfile.TarError, OSError, EOFError) as error:  # gzip's BadGzipFile is an OSError
        raise MalformedArchive(f"not a tar.gz archive ({type(error).__name__}: {error}): {archive[:60]!r}") from error
    if not any(path.startswith("conference/") for path in found.files):
        raise MalformedArchive("the archive holds no conference/ files: not ccfddl/ccf-deadlines' repository")
    return found
