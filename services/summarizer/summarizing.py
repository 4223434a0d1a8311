"""Summarizing one normalized paper (cache → budget → model → store), and the sweep that retries pending papers."""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from papertrail.domain.text import paper_digest
from schemas.events import PaperEnriched, PaperNormalized
from schemas.paper import Paper
from schemas.summary import Summary
from services.summarizer.community import community_checks, stand_in, waits_for_ours
from services.summarizer.metrics import BACKLOG, CACHE_HITS, COMMUNITY_SUMMARIES, FAILURES, PENDING, SUMMARIES
from services.summarizer.model import SummaryModel
from services.summarizer.policy import (
    PRIORITIES,
    READERS,
    budget_day,
    budget_left,
    cache_key,
    decide,
    failed_summary,
    pending_summary,
    reused_summary,
    summary_from_answer,
    summary_priority,
    wants_summary,
)
from services.summarizer.prompt import PROMPT_VERSION
from services.summarizer.store import ReaderInterest, SummaryStore
from services.summarizer.title_model import Titles

# How far back readers' matches and saves count when the summarizer starts: older asks were seen by an earlier run.
INTEREST_LOOKBACK = timedelta(days=30)

log = logging.getLogger("papertrail.summarizer")

Emit = Callable[[PaperNormalized, Summary], Awaitable[None]]


class Summarizer:
    """Gives every normalized paper a summary or a status; never raises for the model's sake."""

    def __init__(
        self,
        store: SummaryStore,
        model: SummaryModel | None,
        *,
        daily_token_budget: int,
        parallel: int = 1,
        interest: ReaderInterest | None = None,
        titles: Titles | None = None,
    ) -> None:
        self.store = store
        self.parallel = parallel  # papers the sweep works on at once; the model's own limit still applies
        self.model = model  # None: no endpoint configured
        self.daily_token_budget = daily_token_budget
        self.interest = interest
        self.titles = titles  # the title path (no endpoint, TITLES_BASE_URL): Chinese titles of waiting papers
        self.interest_read_to = datetime.now(UTC) - INTEREST_LOOKBACK
        self.model_queue_opened = False

    async def summary_for(self, event: PaperNormalized, *, fresh: bool | None = None) -> Summary:
        """The paper's summary: cached, freshly written, failed, or pending (then the paper is held for the sweep).

        `fresh` defaults to the policy (new papers, title/abstract revisions); the sweep forces it.
        """
        paper = event.paper
        fresh = wants_summary(event) if fresh is None else fresh
        digest = paper_digest(paper)
        key = cache_key(digest, self.model.model, PROMPT_VERSION) if self.model else None
        cached = await self.store.find(key) if key else None
        previous = None if fresh or cached else await self.store.latest_for_paper(paper.id)
        used = await self.store.tokens_used(budget_day(datetime.now(UTC))) if self.model and not cached else 0
        decision = decide(
            fresh=fresh,
            cached=cached,
            previous=previous,
            model_configured=self.model is not None,
            budget_left=budget_left(used, self.daily_token_budget),
        )
        if decision.action == "reuse":
            CACHE_HITS.inc()
            if key and cached:
                await self.store.remember_paper(key, paper.id)
            stored = cached or previous
            assert stored is not None
            summary = reused_summary(stored, paper, same_text=cached is not None)
        elif decision.action == "pending":
            if decision.reason == "daily token budget spent":
                FAILURES.labels("budget").inc()
            summary = await self.titled(paper, self.meanwhile(paper, decision.reason or "pending"))
        else:
            assert self.model is not None and key is not None
            summary = await self._write(event, key, digest)
        SUMMARIES.labels(summary.status).inc()
        return summary

    async def _write(self, event: PaperNormalized, key: str, digest: str) -> Summary:
        assert self.model is not None
        attempt = await self.model.summarize(event.paper)
        now = datetime.now(UTC)
        now = now.replace(
            microsecond=now.microsecond // 1000 * 1000
        )  # MongoDB keeps milliseconds: emit what a hit will
        if attempt.tokens_in or attempt.tokens_out:
            await self.store.spend(budget_day(now), attempt.tokens_in, attempt.tokens_out)
        if attempt.unavailable:
            return self.meanwhile(event.paper, attempt.unavailable)
        version = event.paper.current_version
        if attempt.answer is not None:
            summary = summary_from_answer(
                attempt.answer, model=self.model.model, prompt_version=PROMPT_VERSION, now=now, paper_version=version
            )
        else:
            summary = failed_summary(
                attempt.failure or "unknown failure",
                model=self.model.model,
                prompt_version=PROMPT_VERSION,
                now=now,
                paper_version=version,
            )
            log.warning("summary failed", extra={"paper_id": event.paper.id, "error": summary.error})
        # Failed summaries are cached too: a replay must not pay again for an answer the model cannot give.
        await self.store.save(key, digest, event.paper.id, summary)
        return summary

    @staticmethod
    def meanwhile(paper: Paper, reason: str) -> Summary:
        """While ours cannot be written (`reason`): the paper's community summary when it passes our checks, else
        pending. Either way the paper waits for ours (`waits_for_ours`)."""
        failures = community_checks(paper)
        if failures is None:
            return pending_summary(reason)
        COMMUNITY_SUMMARIES.labels(failures[0].check if failures else "shown").inc()
        return pending_summary(reason) if failures else stand_in(paper, reason)

    async def current_summary(self, event: PaperEnriched) -> Summary:
        """The summary to emit again with an event that waited (for its vector): the one it carried, or, when that
        was pending or a community summary, ours written meanwhile; a metadata update keeps the paper's latest
        summary."""
        if not waits_for_ours(event.summary):
            return event.summary
        if self.model is not None:
            key = cache_key(paper_digest(event.paper), self.model.model, PROMPT_VERSION)
            if cached := await self.store.find(key):
                return reused_summary(cached, event.paper, same_text=True)
        if event.kind == "updated" and (ours := await self.store.latest_for_paper(event.paper.id)):
            return ours
        return await self.titled(event.paper, event.summary)

    async def titled(self, paper: Paper, summary: Summary) -> Summary:
        """A waiting paper's summary with the Chinese title the title path wrote for it, when there is one."""
        return await self.titles.attach(paper, summary) if self.titles else summary

    async def hold_pending(self, summarized: list[tuple[PaperNormalized, Summary]]) -> None:
        """Before the events are emitted: each paper whose latest summary is pending waits for the sweep, with that
        event (so a crash before the emit loses nothing). One write for the whole batch."""
        latest = {event.paper.id: (event, summary) for event, summary in summarized}
        await self.store.hold_many(
            [
                (e, paper_digest(e.paper), s.error or "pending", summary_priority(e.paper))
                for e, s in latest.values()
                if waits_for_ours(s)
            ],
            titled=frozenset(e.paper.id for e, s in latest.values() if s.title_zh),
        )

    async def settle(self, summarized: list[tuple[PaperNormalized, Summary]]) -> None:
        """After the events were emitted: a paper whose latest summary is final no longer waits, whatever it waited
        with (an earlier final summary of a paper held again in the same batch must not release it)."""
        latest = {event.paper.id: summary for event, summary in summarized}
        await self.store.release_many([paper_id for paper_id, s in latest.items() if not waits_for_ours(s)])

    async def forget(self, paper_id: str) -> None:
        """A withdrawn paper stops waiting: the sweep never emits it again, and one summarizing it right now finds
        it gone before emitting (`still_waiting`)."""
        await self.store.release_many([paper_id])

    async def sweep(self, emit: Emit, batch: int) -> int:
        """Summarize waiting papers, `parallel` at a time, and emit each again; returns how many got a final summary.

        A paper leaves the waiting list only after its new event was emitted, so a crash in between repeats
        the work (from the cache) instead of losing the paper.
        """
        if self.model is None:
            return 0
        if not self.model_queue_opened:  # papers held while no model was configured are in the queue now
            await self.store.queue_papers_held_for_no_model()
            self.model_queue_opened = True
        await self.raise_what_readers_asked_for()
        waiting = await self.store.waiting(batch)
        settled = 0
        for start in range(0, len(waiting), self.parallel):
            outcomes = await asyncio.gather(
                *(self._retry(emit, *item) for item in waiting[start : start + self.parallel])
            )
            settled += outcomes.count("settled")
            if "pending" in outcomes:
                break  # endpoint down or budget spent: the rest would wait the same way
        return settled

    async def raise_what_readers_asked_for(self) -> int:
        """Waiting papers matched, saved or picked since the last sweep go to the top; how many were raised."""
        if self.interest is None:
            return 0
        now = datetime.now(UTC)
        asked = await self.interest.asked_since(self.interest_read_to - timedelta(minutes=1))  # clocks drift a little
        self.interest_read_to = now
        return await self.store.prioritize(asked, READERS)

    async def count_backlog(self) -> None:
        PENDING.set(await self.store.backlog())
        by_priority = await self.store.backlog_by_priority()
        for rank, name in enumerate(PRIORITIES):
            BACKLOG.labels(name).set(by_priority.get(rank, 0))

    async def _retry(self, emit: Emit, event: PaperNormalized, digest: str) -> str:
        summary = await self.summary_for(event, fresh=True)
        if waits_for_ours(summary):  # a community summary was emitted already; the paper keeps waiting for ours
            await self.hold_pending([(event, summary)])
            await self.store.note_attempt(event.paper.id, summary.error or "pending")
            return "pending"
        if not await self.store.still_waiting(event.paper.id, digest):
            return "stale"  # a newer event of the paper came through meanwhile
        await emit(event, summary)
        await self.store.release(event.paper.id, digest)
        return "settled"

    async def run_sweeps(self, emit: Emit, *, interval_s: float, batch: int) -> None:
        """The background loop started after startup: sweep, refresh the backlog gauge, sleep."""
        while True:
            try:
                settled = await self.sweep(emit, batch)
                if settled:
                    log.info("pending papers summarized", extra={"count": settled})
                await self.count_backlog()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweep failed; retrying at the next interval")
            await asyncio.sleep(interval_s)
