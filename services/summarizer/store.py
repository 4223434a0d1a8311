"""The summarizer's collection `summaries`: one summary per paper content (title + abstract)."""

import hashlib

from pymongo.asynchronous.database import AsyncDatabase

from schemas.paper import Paper
from schemas.summary import Summary


def content_hash(paper: Paper) -> str:
    return hashlib.sha256(f"{paper.title}\n\n{paper.abstract}".encode()).hexdigest()


class SummaryStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.summaries = db["summaries"]

    async def ensure_indexes(self) -> None:
        await self.summaries.create_index([("paper_id", 1)])
        await self.summaries.create_index([("status", 1)])

    async def save(self, paper: Paper, summary: Summary) -> None:
        """Keyed by paper and content: re-summarizing unchanged content overwrites nothing new."""
        await self.summaries.update_one(
            {"_id": f"{paper.id}:{content_hash(paper)}"},
            {"$set": {"paper_id": paper.id, **summary.model_dump(mode="python")}},
            upsert=True,
        )
