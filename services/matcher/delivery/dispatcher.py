"""The webhook dispatcher: queued deliveries tried concurrently, in the order they fall due, at most
WEBHOOK_CONCURRENCY at once and WEBHOOK_PER_HOST to one receiving host, so a receiver that never answers holds up only
its own deliveries. A retry is a delivery due again later in the queue (MongoDB), not a sleep."""

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from services.matcher.delivery.webhook_sender import WebhookSender
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

log = logging.getLogger("papertrail.matcher.delivery")


def _now() -> datetime:
    return datetime.now(UTC)


class WebhookDispatcher:
    def __init__(
        self,
        store: MatchStore,
        sender: WebhookSender,
        settings: MatcherSettings,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self.store = store
        self.sender = sender
        self.concurrency = settings.webhook_concurrency
        self.per_host = settings.webhook_per_host
        self.poll = settings.webhook_poll_s
        # a claim outlasts one try (connect, send, answer), so no other replica takes it meanwhile
        self.lease = timedelta(seconds=settings.webhook_timeout_s * 3 + 5)
        self.clock = clock
        self.in_flight: Counter[str] = Counter()  # host → tries running
        self.tasks: set[asyncio.Task[Any]] = set()
        self.wake = asyncio.Event()

    def poke(self) -> None:
        """New deliveries are queued: look now, not at the next poll."""
        self.wake.set()

    async def run(self) -> None:
        """Dispatch until cancelled; then the tries running are cancelled too (their claims run out, and they are
        tried again)."""
        try:
            while True:
                self.wake.clear()
                try:
                    await self.dispatch_due()
                except Exception:  # MongoDB away for a moment: the next turn tries again
                    log.exception("webhook dispatch failed")
                await self._idle()
        finally:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def dispatch_due(self) -> int:
        """Start a try of every due delivery there is room for; how many were started."""
        started = 0
        while len(self.tasks) < self.concurrency:
            delivery = await self.store.claim_due_delivery(self.clock(), self.lease, self._busy_hosts())
            if delivery is None:
                break
            host = delivery["host"]
            self.in_flight[host] += 1
            task = asyncio.create_task(self._try(delivery))
            self.tasks.add(task)
            task.add_done_callback(partial(self._finished, host=host))
            started += 1
        return started

    def _busy_hosts(self) -> list[str]:
        return sorted(host for host, running in self.in_flight.items() if running >= self.per_host)

    async def _try(self, delivery: dict[str, Any]) -> None:
        try:
            await self.sender.attempt(delivery)
        except Exception:  # logged, and tried again once its claim runs out
            log.exception("webhook try failed", extra={"delivery_id": delivery["_id"]})

    def _finished(self, task: asyncio.Task[Any], *, host: str) -> None:
        self.tasks.discard(task)
        self.in_flight[host] -= 1
        if self.in_flight[host] <= 0:
            del self.in_flight[host]
        self.wake.set()  # room again, and perhaps a retry due soon

    async def _idle(self) -> None:
        """Wait for a poke, a finished try, the next delivery this instance could take falling due, or the poll
        (other replicas queue deliveries, and a crashed one's claims run out)."""
        wait = self.poll
        if len(self.tasks) < self.concurrency:  # else only a finished try makes room
            with contextlib.suppress(Exception):
                now = self.clock()
                due = await self.store.next_due(now, self._busy_hosts())
                if due is not None:
                    wait = min(wait, max((due - now).total_seconds(), 0.0))
        if wait > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self.wake.wait()
