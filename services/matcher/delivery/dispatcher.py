"""The webhook dispatcher: queued deliveries tried concurrently, in the order they fall due, at most
WEBHOOK_CONCURRENCY at once, WEBHOOK_PER_ADDRESS to one receiving address and WEBHOOK_PER_USER for one user
(`webhooks.Slots`), so a receiver that never answers holds up only its own deliveries, however many names it has,
and one user's receivers, however many addresses they have, take only their share. A retry is a delivery due again
later in the queue (MongoDB), not a sleep."""

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from papertrail.runtime.guarded_http import GuardedTransport, Resolver, system_resolver
from papertrail.runtime.outbound import IPAddress, OutboundRefused
from papertrail.runtime.push.channel import masked_url
from services.matcher.delivery.webhook_sender import WebhookSender
from services.matcher.delivery.webhooks import Slots
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

log = logging.getLogger("papertrail.matcher.delivery")
# a URL and a timeout → the address a request to it connects to, checked (GuardedTransport.checked_address)
AddressOf = Callable[[str, float], Awaitable[IPAddress]]


def _now() -> datetime:
    return datetime.now(UTC)


class WebhookDispatcher:
    def __init__(
        self,
        store: MatchStore,
        sender: WebhookSender,
        settings: MatcherSettings,
        address_of: AddressOf,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self.store = store
        self.sender = sender
        self.address_of = address_of
        self.concurrency = settings.webhook_concurrency
        self.slots = Slots(settings.webhook_per_user, settings.webhook_per_address)
        self.poll = settings.webhook_poll_s
        self.timeout = settings.webhook_timeout_s
        self.public_url = settings.public_url  # a group bot's message links to the paper's page there
        # a claim outlasts one try (resolve, connect, send, answer), so no other replica takes it meanwhile
        self.lease = timedelta(seconds=settings.webhook_timeout_s * 3 + 5)
        self.clock = clock
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
            delivery = await self.store.claim_due_delivery(
                self.clock(), self.lease, self.slots.busy_hosts(), self.slots.busy_users()
            )
            if delivery is None:
                break
            counted = self.slots.take(delivery["user_id"], delivery["host"])
            task = asyncio.create_task(self._try(delivery, counted))
            self.tasks.add(task)
            task.add_done_callback(self._finished)
            started += 1
        return started

    async def _try(self, delivery: dict[str, Any], counted: str) -> None:
        """Resolve the delivery's host here, in its own task (a slow name server holds up only this try), then try
        it at that address if its receiver has room, else give it back to the queue untried."""
        user: str = delivery["user_id"]
        receiver: str | None = counted
        try:
            if await self.sender.skipped_disabled(delivery):
                return
            address = await self._address(delivery["url"])
            receiver = self.slots.resolved(user, delivery["host"], counted, address)
            if receiver is None:  # its address is at its bound: due as before, passed by while that lasts
                await self.store.delivery_released(delivery["_id"], delivery["due_at"])
                return
            await self.sender.attempt(delivery, address)
        except Exception:  # logged, and tried again once its claim runs out
            log.exception("webhook try failed", extra={"delivery_id": delivery["_id"]})
        finally:
            if receiver is not None:
                self.slots.finished(user, receiver)

    async def _address(self, url: str) -> IPAddress | None:
        """Where the try will connect, resolved and checked once; None when the host does not resolve or is refused
        (the try itself then fails and says so)."""
        try:
            return await self.address_of(url, self.timeout)
        except (OutboundRefused, OSError, TimeoutError):
            return None

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        self.wake.set()  # room again, and perhaps a retry due soon

    async def _idle(self) -> None:
        """Wait for a poke, a finished try, the next delivery this instance could take falling due, or the poll
        (other replicas queue deliveries, and a crashed one's claims run out)."""
        wait = self.poll
        if len(self.tasks) < self.concurrency:  # else only a finished try makes room
            with contextlib.suppress(Exception):
                now = self.clock()
                due = await self.store.next_due(now, self.slots.busy_hosts(), self.slots.busy_users())
                if due is not None:
                    wait = min(wait, max((due - now).total_seconds(), 0.0))
        if wait > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self.wake.wait()


class MaskedRequestUrls(logging.Filter):
    """httpx logs each request's URL (at INFO, where an operator's LOG_LEVELS asks for it); a bot's URL carries its
    credential (a Telegram bot's token, a Feishu hook's), so the URLs it logs are masked as the API shows them."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(masked_url(str(a)) if isinstance(a, httpx.URL) else a for a in record.args)
        return True


HTTPX_LOG = logging.getLogger("httpx")


def open_webhooks(
    store: MatchStore,
    settings: MatcherSettings,
    resolver: Resolver = system_resolver,
    monotonic: Callable[[], float] = time.monotonic,
) -> tuple[WebhookDispatcher, httpx.AsyncClient]:
    """The webhooks' dispatcher and HTTP client (closed by the caller): one guarded transport, whose resolver answers
    both the dispatcher's count per address and the connection, which goes to the address counted. Every webhook
    goes through the outbound policy, checked again when connecting (papertrail/runtime/guarded_http.py)."""
    if not any(isinstance(f, MaskedRequestUrls) for f in HTTPX_LOG.filters):
        HTTPX_LOG.addFilter(MaskedRequestUrls())
    transport = GuardedTransport(settings.webhook_policy, resolver)
    client = httpx.AsyncClient(transport=transport, follow_redirects=False)
    sender = WebhookSender(store, client, settings, monotonic)
    return WebhookDispatcher(store, sender, settings, transport.checked_address), client
