"""Recording matches once and announcing them, for live papers and for backfills of new follows."""

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta

from papertrail.domain.follows.rules import CompiledFollow, FollowIndex, follow_matched
from schemas.events import Follow, FollowMatched
from services.matcher.matching.backfill import Backfiller
from services.matcher.metrics import MATCHES
from services.matcher.store import MatchStore

log = logging.getLogger("papertrail.matcher")
PublishAll = Callable[[list[FollowMatched]], Awaitable[None]]
# A backfill's matches are announced one by one (the feed lists them), but their reader is told once: the follow,
# how many it found, when the backfill began.
SummarizeBackfill = Callable[[Follow, int, datetime], Awaitable[None]]


class MatchRecorder:
    """Store a user's matches idempotently, then publish them (confirmed) and mark them announced: a crash between
    the two leaves them stored but unannounced, and the redelivered paper announces them then. A batch costs three
    round trips to MongoDB and one wait for the broker, however many matches it holds.
    """

    def __init__(self, store: MatchStore, publish_all: PublishAll) -> None:
        self.store = store
        self.publish_all = publish_all

    async def record(self, matches: list[FollowMatched], path: str = "live") -> int:
        pending = await self.store.record_many(matches)  # the same paper twice for a follow is one match
        await self.publish_all(pending)
        await self.store.mark_announced_many(pending)
        for match in pending:
            MATCHES.labels(match.follow_kind, path).inc()
        return len(pending)


class BackfillRunner:
    """Backfills of new follows, one at a time in the background, each claimed so it runs once overall (a similar
    follow's once for each count of vectors it is scored by)."""

    def __init__(
        self,
        index: FollowIndex,
        backfiller: Backfiller,
        recorder: MatchRecorder,
        store: MatchStore,
        stale_s: float,
        retry_s: Sequence[float] = (),
        summarize: SummarizeBackfill | None = None,
    ) -> None:
        self.index = index
        self.summarize = summarize
        self.backfiller = backfiller
        self.recorder = recorder
        self.store = store
        self.stale_after = timedelta(seconds=stale_s)
        self.retry_s = list(retry_s)
        self.tasks: set[asyncio.Task] = set()
        self.one_at_a_time = asyncio.Semaphore(1)

    def start(self, compiled: CompiledFollow, attempt: int = 0) -> None:
        task = asyncio.create_task(self.run(compiled, attempt), name=f"backfill {compiled.follow.id}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def run(self, compiled: CompiledFollow, attempt: int = 0) -> int:
        if attempt:
            await asyncio.sleep(self.retry_s[attempt - 1])
        async with self.one_at_a_time:
            current = self.index.follows.get(compiled.follow.id)
            if current is None:
                return 0  # deleted meanwhile
            # changed meanwhile (an update, such as its push channel, starts no backfill of its own): the version it
            # has now is backfilled, once (its claim)
            compiled = current
            follow = compiled.follow
            now = datetime.now(UTC)
            vectors = await self.backfiller.vectors_of(compiled)
            if vectors == 0:
                return 0  # a similar follow with no vector yet: backfilled once it has one (gained_vectors)
            if not await self.store.claim_backfill(follow.id, now, self.stale_after, vectors):
                return 0
            try:
                checked, found = await self.backfiller.run(compiled, now)
                matches = [
                    follow_matched(follow, pid, title, reasons, now, backfill=True) for pid, title, reasons in found
                ]
                announced = await self.recorder.record(matches, path="backfill")
            except Exception as error:
                # A new follow must not silently miss the papers already held: retry with growing waits.
                await self.store.fail_backfill(follow.id, datetime.now(UTC), f"{type(error).__name__}: {error}")
                retrying = attempt < len(self.retry_s)
                log.exception(
                    "backfill failed; retrying" if retrying else "backfill failed; retried when the matcher restarts",
                    extra={"follow_id": follow.id, "attempt": attempt + 1},
                )
                if retrying:
                    self.start(compiled, attempt + 1)
                return 0
            await self.store.finish_backfill(follow.id, datetime.now(UTC), checked, len(matches))
            if announced and self.summarize is not None:
                await self.summarize(follow, announced, now)
            log.info("backfill done", extra={"follow_id": follow.id, "papers_checked": checked, "matches": announced})
            return announced

    async def stop(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
