"""The harvester's own collections: per-source checkpoints, run leases and the record of every run; the venues
ccf-deadlines gives (`VenueCatalogueStore`)."""

from datetime import UTC, datetime
from typing import Any

from pymongo import ReplaceOne
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.venues.catalogue import Venue, venue_document, venue_of_document
from papertrail.runtime.collections import HARVEST_CHECKPOINTS, HARVEST_LEASES, HARVEST_RUNS, VENUE_CATALOGUE
from papertrail.runtime.leases import Leases
from schemas.events import HarvestStatus


class HarvestStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.checkpoints = db[HARVEST_CHECKPOINTS.name]
        self.runs = db[HARVEST_RUNS.name]
        self.leases = db[HARVEST_LEASES.name]
        self.run_leases = Leases(self.leases)  # one per source: its runs never overlap

    async def ensure_indexes(self) -> None:
        await self.runs.create_index([("source", 1), ("started_at", -1)])
        await self.runs.create_index([("source", 1), ("state", 1), ("started_at", -1)])  # freshness, each run

    async def load_checkpoint(self, source: str) -> dict[str, Any]:
        doc = await self.checkpoints.find_one({"_id": source})
        return dict(doc["checkpoint"]) if doc else {}

    async def save_checkpoint(self, source: str, checkpoint: dict[str, Any]) -> None:
        await self.checkpoints.update_one(
            {"_id": source},
            {"$set": {"checkpoint": checkpoint, "updated_at": datetime.now(UTC)}},
            upsert=True,
        )

    async def record_run(self, status: HarvestStatus) -> None:
        """Upsert the run's latest state (keyed by run id, so re-recording is harmless)."""
        await self.runs.update_one({"_id": status.run_id}, {"$set": status.model_dump(mode="python")}, upsert=True)

    async def freshness(self, source: str) -> tuple[datetime | None, int]:
        """When the source's last good run finished, and how many runs have failed since (or ever, without one)."""
        last_good = await self.runs.find_one(
            {"source": source, "state": "finished"}, {"finished_at": 1, "started_at": 1}, sort=[("started_at", -1)]
        )
        finished_at: datetime | None = last_good["finished_at"] if last_good else None
        failed: dict[str, Any] = {"source": source, "state": "failed"}
        if last_good:
            failed["started_at"] = {"$gt": last_good["started_at"]}
        return finished_at, await self.runs.count_documents(failed)

    async def acquire_lease(self, source: str, holder: str, ttl_s: float) -> bool:
        """Take (or renew) the source's run lease unless another holder has one that has not expired."""
        return await self.run_leases.acquire(source, holder, ttl_s)

    async def release_lease(self, source: str, holder: str) -> None:
        await self.run_leases.release(source, holder)

    async def lease_holder(self, source: str) -> str | None:
        return await self.run_leases.holder(source)


class VenueCatalogueStore:
    """`venue_catalogue`: one document per venue, as the ccf_deadlines source last read it (merged over what was held
    before); the query service reads it over the shipped catalogue."""

    def __init__(self, db: AsyncDatabase) -> None:
        self.venues = db[VENUE_CATALOGUE.name]

    async def held(self) -> dict[str, Venue]:
        return {doc["_id"]: venue_of_document(doc) async for doc in self.venues.find({})}

    async def save(self, venues: list[tuple[Venue, str]], commit: str | None, read_at: datetime) -> None:
        """Replace each venue's document (keyed by the venue: saving the same reading twice changes nothing)."""
        if venues:
            documents = [venue_document(venue, file, commit, read_at) for venue, file in venues]
            await self.venues.bulk_write([ReplaceOne({"_id": d["_id"]}, d, upsert=True) for d in documents])
