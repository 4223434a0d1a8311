"""A MongoDB lease per source, so the schedule and a manual `papertrail harvest` never run one source twice."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from papertrail.runtime.leases import LeaseHeld, held_lease
from services.harvester.store import HarvestStore

__all__ = ["LeaseHeld", "source_lease"]


@asynccontextmanager
async def source_lease(store: HarvestStore, source: str, ttl_s: float) -> AsyncIterator[str]:
    """Hold the source's lease for the block, renewing it every third of its time to live."""
    async with held_lease(
        store.run_leases, source, ttl_s, refusal="source {name!r} is being harvested by {holder}"
    ) as holder:
        yield holder
