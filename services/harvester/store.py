"""The harvester's own collections: per-source checkpoints and the record of every run."""

from datetime import UTC, datetime
from typing import Any

from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import HarvestStatus


class HarvestStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.checkpoints = db["harvest_checkpoints"]
        self.runs = db["harvest_runs"]

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
