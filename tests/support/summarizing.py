"""The summarizer's own steps (summary, hold, settle) over a real MongoDB database, with what its sweep emitted:
what the summarizer's tests drive."""

from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import PaperNormalized
from schemas.summary import Summary
from services.summarizer.model import SummaryModel, make_openai_client
from services.summarizer.settings import SummarizerSettings
from services.summarizer.store import SummaryStore
from services.summarizer.summarizing import Summarizer


class Harness:
    """A Summarizer over the test database, plus what its sweep emitted."""

    def __init__(self, db: AsyncDatabase, settings: SummarizerSettings) -> None:
        self.store = SummaryStore(db)
        self.client = make_openai_client(settings) if settings.model_configured else None
        model = SummaryModel(self.client, settings) if self.client else None
        self.summarizer = Summarizer(
            self.store, model, daily_token_budget=settings.daily_token_budget, parallel=settings.summary_concurrency
        )
        self.emitted: list[tuple[PaperNormalized, Summary]] = []

    async def emit(self, event: PaperNormalized, summary: Summary) -> None:
        self.emitted.append((event, summary))

    async def handle(self, event: PaperNormalized) -> Summary:
        """What the handler does around emitting."""
        summary = await self.summarizer.summary_for(event)
        await self.summarizer.hold_pending([(event, summary)])
        await self.summarizer.settle([(event, summary)])
        return summary
