"""The harvester's own collections: per-source checkpoints, run leases and the record of every run."""

from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo import ReturnDocument
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import DuplicateKeyError

from papertrail.collections import HARVEST_CHECKPOINTS, HARVEST_LEASES, HARVEST_RUNS
from schemas.events import HarvestStatus


class HarvestStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.checkpoints = db[HARVEST_CHECKPOINTS.name]
        self.runs = db[HARVEST_RUNS.name]
        self.leases = db[HARVEST_LEASES.name]

    async def ensure_indexes(self) -> None:
        await self.runs.create_index([("source", 1), ("started_at", -1)])

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
        """Take (or renew) the source's run lease unless another holder has one that has not expired.

        One document per source; the filter matches only a free, expired or own lease, so a held lease
        makes the upsert collide on `_id` and the caller learns it lost.
        """
        now = datetime.now(UTC)
        try:
            doc = await self.leases.find_one_and_update(
                {"_id": source, "$or": [{"holder": holder}, {"expires_at": {"$lt": now}}, {"holder": None}]},
                {"$set": {"holder": holder, "expires_at": now + timedelta(seconds=ttl_s), "renewed_at": now}},
                upsert=True,
                return_document=ReturnDocument.AFTER,
            )
        except DuplicateKeyError:
            return False
        return doc is not None and doc.get("holder") == holder

    async def release_lease(self, source: str, holder: str) -> None:
        await self.leases.update_one({"_id": source, "holder": holder}, {"$set": {"holder": None}})

    async def lease_holder(self, source: str) -> str | None:
        doc = await self.leases.find_one({"_id": source})
        if not doc or doc.get("holder") is None or doc["expires_at"] < datetime.now(UTC):
            return None
        return str(doc["holder"])
