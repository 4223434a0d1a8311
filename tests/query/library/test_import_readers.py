"""Library files are read in worker processes shared fairly between readers (over the real MongoDB-protocol server):
one reader's file being read never holds up another reader's import, a reader has one file read at a time, and a
reading process that dies fails its own file only."""

import asyncio
import os
import signal
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from services.query.library.importing import ImportBusy, ImportJobs, LibraryReaders
from services.query.library.store import LibraryStore
from tests.support.held_read import HELD, held_read
from tests.support.paths import FIXTURES
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.integration
LIBRARY = FIXTURES / "library"
LARGE = b"\n".join((LIBRARY / name).read_bytes() for name in ("acl-style-files_custom.bib", "mera_anthology.bib"))
SMALL = (LIBRARY / "mera_anthology.bib").read_bytes()
# A wait that only a broken scheduler exceeds (a worker process spawns in seconds, even on a loaded machine).
WITHIN_S = 90


async def test_a_file_being_read_holds_up_no_other_readers_import(scratch_db: AsyncDatabase, tmp_path: Path) -> None:
    """ana's file is held in its worker process; bo's import is read and stored meanwhile, and ana's second file is
    refused at once (409) rather than queued behind her first, so no reader holds more than one worker."""
    readers = LibraryReaders(processes=2, max_entries=1000, read=partial(held_read, str(tmp_path)))
    jobs = ImportJobs(scratch_db, LibraryStore(scratch_db), 500, readers)
    await jobs.ensure_indexes()

    async def being_read() -> bool:
        return (tmp_path / "started-ana").exists()

    try:
        anas = asyncio.create_task(jobs.create("ana", LARGE, HELD, "bibtex"))
        await wait_until_async(being_read, WITHIN_S, "ana's file being read")
        bos = await asyncio.wait_for(jobs.create("bo", SMALL, "mera.bib", "bibtex"), WITHIN_S)
        assert bos["total"] == 1 and not anas.done()  # bo's import was read while ana's file still is
        with pytest.raises(ImportBusy, match="being read"):
            await asyncio.wait_for(jobs.create("ana", SMALL, "mera.bib", "bibtex"), WITHIN_S)
        assert not anas.done()
        (tmp_path / "go").touch()
        anas_job = await asyncio.wait_for(anas, WITHIN_S)
        assert anas_job["total"] == 9
        assert await scratch_db["library_import_entries"].count_documents({"user_id": "ana"}) == 9
    finally:
        (tmp_path / "go").touch()
        await jobs.stop()


async def test_a_reading_process_that_dies_fails_its_own_file_only(tmp_path: Path) -> None:
    """ana's and bo's files are both held in their processes; ana's is killed (as out of memory would): her read
    fails, bo's goes on and finishes, and her next file is read by a new process."""
    readers = LibraryReaders(processes=2, max_entries=1000, read=partial(held_read, str(tmp_path)))

    async def both_read() -> bool:
        return all((tmp_path / f"started-{name}").exists() for name in ("ana", "bo"))

    try:
        anas = asyncio.create_task(readers.read(LARGE, "bibtex", HELD, "a", "ana"))
        bos = asyncio.create_task(readers.read(SMALL, "bibtex", HELD, "b", "bo"))
        await wait_until_async(both_read, WITHIN_S, "both files being read")
        os.kill(int((tmp_path / "started-ana").read_text()), signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            await asyncio.wait_for(anas, WITHIN_S)
        assert not bos.done()
        (tmp_path / "go").touch()
        assert len(await asyncio.wait_for(bos, WITHIN_S)) == 1
        assert len(await asyncio.wait_for(readers.read(SMALL, "bibtex", "m.bib", "c", "ana"), WITHIN_S)) == 1
    finally:
        (tmp_path / "go").touch()
        readers.close()
