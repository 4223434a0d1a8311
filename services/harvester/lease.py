"""A MongoDB lease per source, so the schedule and a manual `papertrail harvest` never run one source twice."""

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from services.harvester.store import HarvestStore

log = logging.getLogger("papertrail.harvester")


class LeaseHeld(Exception):
    """Another process is running this source right now."""


def new_holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@asynccontextmanager
async def source_lease(store: HarvestStore, source: str, ttl_s: float) -> AsyncIterator[str]:
    """Hold the source's lease for the block, renewing it every third of its time to live."""
    holder = new_holder()
    if not await store.acquire_lease(source, holder, ttl_s):
        raise LeaseHeld(f"source {source!r} is being harvested by {await store.lease_holder(source)}")

    async def keep_renewing() -> None:
        while True:
            await asyncio.sleep(ttl_s / 3)
            try:
                if not await store.acquire_lease(source, holder, ttl_s):
                    log.error("lost the run lease", extra={"source": source, "holder": holder})
                    return
            except Exception:
                log.exception("could not renew the run lease", extra={"source": source})

    renewal = asyncio.create_task(keep_renewing(), name=f"lease-{source}")
    try:
        yield holder
    finally:
        renewal.cancel()
        await asyncio.gather(renewal, return_exceptions=True)
        try:
            await store.release_lease(source, holder)
        except Exception:  # it expires on its own after ttl_s
            log.exception("could not release the run lease", extra={"source": source})
