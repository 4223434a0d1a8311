"""Leases in MongoDB: one document per name, held by one process until it expires, so work that must run once across
replicas (a source's harvest run, a query worker's background job) runs in one process at a time.

A holder renews its lease every third of its time to live; a process that dies stops renewing, and its lease is
free to take when it expires.
"""

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo import ReturnDocument
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError

log = logging.getLogger("papertrail.leases")


class LeaseHeld(Exception):
    """Another process holds this lease right now."""


def new_holder() -> str:
    """A name for this process's hold of a lease: host and pid to read, a random part to be unique."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Leases:
    """The leases of one collection, by name."""

    def __init__(self, collection: AsyncCollection[dict[str, Any]]) -> None:
        self.collection = collection

    async def acquire(self, name: str, holder: str, ttl_s: float) -> bool:
        """Take (or renew) the lease unless another holder has one that has not expired.

        The filter matches only a free, expired or own lease, so a held lease makes the upsert collide on `_id`
        and the caller learns it lost.
        """
        now = datetime.now(UTC)
        try:
            doc = await self.collection.find_one_and_update(
                {"_id": name, "$or": [{"holder": holder}, {"expires_at": {"$lt": now}}, {"holder": None}]},
                {"$set": {"holder": holder, "expires_at": now + timedelta(seconds=ttl_s), "renewed_at": now}},
                upsert=True,
                return_document=ReturnDocument.AFTER,
            )
        except DuplicateKeyError:
            return False
        return doc is not None and doc.get("holder") == holder

    async def release(self, name: str, holder: str) -> None:
        await self.collection.update_one({"_id": name, "holder": holder}, {"$set": {"holder": None}})

    async def holder(self, name: str) -> str | None:
        doc = await self.collection.find_one({"_id": name})
        if not doc or doc.get("holder") is None or doc["expires_at"].replace(tzinfo=UTC) < datetime.now(UTC):
            return None
        return str(doc["holder"])


async def _renew(leases: Leases, name: str, holder: str, ttl_s: float) -> None:
    """Renew the lease every third of its time to live; return when it is lost (another holder took it)."""
    while True:
        await asyncio.sleep(ttl_s / 3)
        try:
            if not await leases.acquire(name, holder, ttl_s):
                log.error("lost the lease", extra={"lease": name, "holder": holder})
                return
        except Exception:  # MongoDB away for a moment: the lease lasts ttl_s, try again at the next third
            log.exception("could not renew the lease", extra={"lease": name})


async def _release(leases: Leases, name: str, holder: str) -> None:
    try:
        await leases.release(name, holder)
    except Exception:  # it expires on its own after ttl_s
        log.exception("could not release the lease", extra={"lease": name})


@asynccontextmanager
async def held_lease(
    leases: Leases, name: str, ttl_s: float, refusal: str = "{name!r} is held by {holder}"
) -> AsyncIterator[str]:
    """Hold the lease for the block, renewing it; LeaseHeld (`refusal`, naming the lease and its holder) when
    another process holds it."""
    holder = new_holder()
    if not await leases.acquire(name, holder, ttl_s):
        raise LeaseHeld(refusal.format(name=name, holder=await leases.holder(name)))
    renewal = asyncio.create_task(_renew(leases, name, holder, ttl_s), name=f"lease-{name}")
    try:
        yield holder
    finally:
        renewal.cancel()
        await asyncio.gather(renewal, return_exceptions=True)
        await _release(leases, name, holder)


async def run_under_lease(
    leases: Leases, name: str, job: Callable[[], Awaitable[None]], ttl_s: float, *, holder: str | None = None
) -> None:
    """Run `job` once this process holds the lease `name`, so one process across the replicas runs it at a time.

    Until the lease is free the call waits, trying again every third of its time to live. The job runs while the
    lease is renewed; if the lease is lost (this process could not renew it in time and another took it), the job
    is cancelled and the call waits for the lease again, so the job starts over in whichever process holds it. A job
    that returns releases the lease; cancelling the call cancels the job and releases it too.
    """
    holder = holder or new_holder()
    while True:
        if await leases.acquire(name, holder, ttl_s):
            work = asyncio.ensure_future(job())
            renewal = asyncio.create_task(_renew(leases, name, holder, ttl_s), name=f"lease-{name}")
            try:
                await asyncio.wait({work, renewal}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (work, renewal):
                    if not task.done():
                        task.cancel()
                await asyncio.gather(work, renewal, return_exceptions=True)
                await _release(leases, name, holder)
            if not work.cancelled():
                work.result()  # the job's own error, if it failed
                return
            log.warning("the lease was lost: the job stopped and waits for it again", extra={"lease": name})
        await asyncio.sleep(ttl_s / 3)
