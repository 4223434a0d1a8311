"""Webhook delivery: each match queued as a signed delivery to its follow's or its owner's webhook (MongoDB
`webhook_deliveries`, the log and the queue), then tried once per turn by the dispatcher: delivered, due again after
a backoff, or failed, and a user's webhooks on a host disabled after repeated failures or slow answers there."""

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from papertrail.runtime.guarded_http import CONNECT_TO
from papertrail.runtime.outbound import IPAddress, OutboundRefused, url_host
from papertrail.runtime.push.channel import ANSWER_LIMIT, Language, match_message
from papertrail.runtime.push.channels import CHANNELS, GENERIC
from schemas.events import Follow, FollowMatched
from services.matcher.delivery.webhooks import (
    BACKFILLED_EVENT,
    DELIVERY_HEADER,
    EVENT_HEADER,
    MATCHED_EVENT,
    SIGNATURE_HEADER,
    Retries,
    Verdict,
    backfill_summary_body,
    backfill_summary_id,
    delivery_id,
    signature,
    verdict,
    webhook_body,
)
from services.matcher.metrics import WEBHOOK_DELIVERIES
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

log = logging.getLogger("papertrail.matcher.delivery")
# what the log says of a delivery the outbound policy stopped: not which address the name had, nor why
REFUSED = "not sent: the webhook's host is one webhooks may not reach"


@dataclass(frozen=True, slots=True)
class WebhookTarget:
    """Where a match goes: the URL, the secret it is signed with (a group bot's: the one the bot gave, or none), the
    channel (`generic`, or a group bot of papertrail/runtime/push/) and the language a bot's message is written in."""

    url: str
    secret: str
    channel: str = GENERIC
    language: Language = "zh"


def webhook_target(follow: Follow | None, user: dict[str, Any] | None) -> WebhookTarget | None:
    """Where a follow's match goes: the follow's own webhook (a generic one, given with the follow); else the owner's
    push channel the follow names (`push_channel_id`), else the owner's default push channel (`push_default`);
    else the owner's webhook (`webhook_url` / `webhook_secret` / `webhook_channel` / `webhook_language`). A channel
    removed since reads as none: the next in that order is taken."""
    if follow is not None and follow.webhook_url:
        return WebhookTarget(follow.webhook_url, follow.webhook_secret or "")
    if not user:
        return None
    channels = {str(c.get("id")): c for c in user.get("push_channels") or [] if c.get("url")}
    wanted = follow.push_channel_id if follow is not None else None
    chosen = channels.get(wanted or "") or channels.get(str(user.get("push_default") or ""))
    if chosen is not None:
        return _target(chosen["url"], chosen.get("secret"), chosen.get("channel"), chosen.get("language"))
    if user.get("webhook_url"):
        return _target(
            user["webhook_url"], user.get("webhook_secret"), user.get("webhook_channel"), user.get("webhook_language")
        )
    return None


def _target(url: str, secret: str | None, channel: str | None, language: str | None) -> WebhookTarget:
    return WebhookTarget(str(url), str(secret or ""), str(channel or GENERIC), "en" if language == "en" else "zh")


def queued_delivery(match: FollowMatched, target: WebhookTarget, now: datetime, public_url: str) -> dict[str, Any]:
    """The delivery as queued: due now, its body signed once (the secret stays with the follow or the user). A group
    bot's request is built here too, signed with `now` (the bots take a signature for an hour: a delivery still
    failing an hour later is refused by the bot, and that refusal is its failure)."""
    ident = delivery_id(match, target.url)
    common = _queued(ident, match.user_id, match.follow_id, match.paper_id, MATCHED_EVENT, target, now)
    channel = CHANNELS.get(target.channel)
    if channel is None:
        body = webhook_body(match)
        return common | {"body": body.decode("utf-8"), "signature": signature(target.secret, body)}
    request = channel.request(match_message(match, target.language, public_url), target.url, target.secret or None, now)
    return common | {
        "channel": channel.name,
        "request_url": request.url,  # the webhook URL with the bot's signature in its query, when it wants it there
        "headers": request.headers,
        "body": request.body.decode("utf-8"),
    }


def queued_backfill_summary(
    follow: Follow, papers: int, at: datetime, feed_url: str, target: WebhookTarget, now: datetime
) -> dict[str, Any]:
    """The one delivery of a follow's backfill (begun at `at`) that matched `papers` held papers (to a generic
    webhook; a group bot's reader sees them in the follow's feed)."""
    ident = backfill_summary_id(follow.user_id, follow.id, at, target.url)
    body = backfill_summary_body(follow.user_id, follow.id, follow.name, papers, at, feed_url)
    common = _queued(ident, follow.user_id, follow.id, None, BACKFILLED_EVENT, target, now)
    return common | {"body": body.decode("utf-8"), "signature": signature(target.secret, body), "papers": papers}


def _queued(
    ident: str, user_id: str, follow_id: str, paper_id: str | None, event: str, target: WebhookTarget, now: datetime
) -> dict[str, Any]:
    return {
        "_id": ident,
        "delivery_id": ident,
        "event": event,
        "user_id": user_id,
        "follow_id": follow_id,
        "paper_id": paper_id,
        "url": target.url,
        "host": url_host(target.url),
        "outcome": "pending",
        "created_at": now,
        "due_at": now,
        "attempts": [],
    }


async def read_head(response: httpx.Response, limit: int) -> bytes:
    """At most `limit` bytes of the answer's body: the rest is never read."""
    head = bytearray()
    async for chunk in response.aiter_bytes():
        head += chunk
        if len(head) >= limit:
            break
    return bytes(head[:limit])


@dataclass(frozen=True, slots=True)
class Answer:
    """A try's answer: its status (None: none) and the seconds it took; `refused`: the outbound policy stopped the
    request; `bot_error`: the error a bot's answer names in its body; `retry_after_s`: the wait it asks for."""

    status: int | None
    took_s: float | None
    refused: bool = False
    bot_error: str | None = None
    retry_after_s: float | None = None


class WebhookSender:
    """One try of a queued delivery: POSTed through the guarded client (papertrail/runtime/guarded_http.py), logged
    with the
    status code only, and what follows decided by `webhooks.verdict`; `monotonic` times the answer (tests move it)."""

    def __init__(
        self,
        store: MatchStore,
        client: httpx.AsyncClient,
        settings: MatcherSettings,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.client = client
        self.settings = settings
        self.monotonic = monotonic
        self.retries = Retries(
            settings.webhook_max_attempts, settings.webhook_backoff_s, settings.webhook_backoff_max_s
        )
        self.slow_after_s = settings.webhook_timeout_s * settings.webhook_slow_fraction

    async def skipped_disabled(self, delivery: dict[str, Any]) -> bool:
        """Close the delivery untried if its user's webhooks on its host are disabled (and not set again since)."""
        user_id, host = delivery["user_id"], delivery["host"]
        endpoint = await self.store.endpoint(user_id, host)
        if not endpoint.get("disabled") or await self._set_again(user_id, host, endpoint):
            return False
        closed = {"outcome": "skipped_disabled", "error": endpoint.get("disabled_reason")}
        await self.store.delivery_closed(delivery["_id"], closed | {"closed_at": datetime.now(UTC)})
        self._counted("skipped_disabled")
        return True

    async def attempt(self, delivery: dict[str, Any], address: IPAddress | None = None) -> str:
        """Try the delivery once, connecting to `address` (the dispatcher's, checked; None: resolved when
        connecting); return what became of it (delivered, retry, failed)."""
        ident, user_id, host = delivery["_id"], delivery["user_id"], delivery["host"]
        now = datetime.now(UTC)
        answer = await self._post(delivery, address)
        status = answer.status
        attempt: dict[str, Any] = {"at": now} | ({"status": status} if status is not None else {"error": "no answer"})
        # refused: not tried again (the host's addresses are what they are), and counted as the host's failure
        fate = (
            Verdict("failed", REFUSED, strike=REFUSED)
            if answer.refused
            else verdict(
                status, len(delivery["attempts"]) + 1, self.retries, now, answer.took_s, self.slow_after_s,
                answer.bot_error, answer.retry_after_s,
            )
        )  # fmt: skip
        if fate.outcome == "retry":
            await self.store.delivery_tried(ident, attempt, {"due_at": fate.due_at})
            return self._counted("retry")
        changes: dict[str, Any] = {"outcome": fate.outcome, "closed_at": now}
        if fate.outcome == "delivered":
            changes["status"] = status
        else:
            changes["error"] = fate.error
        if fate.strike is None:
            await self.store.endpoint_succeeded(user_id, host, now)
        else:  # a failure, or an answer just inside the timeout: either holds a slot as long, and counts against it
            if fate.outcome == "delivered":
                changes["slow"] = fate.strike
            disable_after = self.settings.webhook_disable_after
            changes["disabled_endpoint"] = await self.store.endpoint_failed(
                user_id, host, now, fate.strike, disable_after
            )
        await self.store.delivery_tried(ident, attempt, changes)
        return self._counted(fate.outcome)

    async def _set_again(self, user_id: str, host: str, endpoint: dict[str, Any]) -> bool:
        """Re-enable the user's webhooks on the host if they set their webhook (PUT /api/me/webhook) to a URL there,
        or added a push channel there, since it was disabled: their word that the receiver works again. A new
        follow's URL is not (that was the way round the count)."""
        user = await self.store.user(user_id) or {}
        disabled_at = endpoint.get("disabled_at")
        if disabled_at is None:
            return False
        set_at = [(user.get("webhook_set_at"), user.get("webhook_url"))]
        set_at += [(channel.get("set_at"), channel.get("url")) for channel in user.get("push_channels") or []]
        if not any(at is not None and at > disabled_at and url_host(str(url or "")) == host for at, url in set_at):
            return False
        await self.store.endpoint_enabled(user_id, host)
        return True

    async def _post(self, delivery: dict[str, Any], address: IPAddress | None) -> "Answer":
        """What the receiver answered (the outbound policy may have stopped the request)."""
        channel = CHANNELS.get(delivery.get("channel") or GENERIC)
        if channel is None:
            url = delivery["url"]
            headers = {
                "content-type": "application/json",
                SIGNATURE_HEADER: delivery["signature"],
                EVENT_HEADER: delivery.get("event", MATCHED_EVENT),  # one queued before summaries had one
                DELIVERY_HEADER: delivery["_id"],
            }
        else:
            url, headers = delivery["request_url"], delivery["headers"]
        content = delivery["body"].encode("utf-8")
        timeout = self.settings.webhook_timeout_s
        started = self.monotonic()
        try:
            # httpx's timeout bounds each read: the whole try is bounded too, or a receiver sending its answer a byte
            # at a time would hold the slot for days
            async with asyncio.timeout(timeout):
                # a generic receiver's answer body is never read: only its status matters, and a receiver cannot
                # make us hold a huge one
                async with self.client.stream(
                    "POST", url, content=content, headers=headers, timeout=timeout,
                    extensions={CONNECT_TO: address} if address is not None else None,
                ) as response:  # fmt: skip
                    took_s = self.monotonic() - started
                    if channel is None:
                        return Answer(response.status_code, took_s)
                    # a bot says in the head of its body whether it took the message (a 200's), or why not and how
                    # long to wait (another status's)
                    head = await read_head(response, ANSWER_LIMIT)
                    wait = channel.retry_after(head) if channel.retry_after is not None else None
                    took_s = self.monotonic() - started
                    return Answer(response.status_code, took_s, bot_error=channel.refusal(head), retry_after_s=wait)
        except OutboundRefused as error:
            log.warning("webhook refused", extra={"delivery_id": delivery["_id"], "reason": str(error)})
            return Answer(None, None, refused=True)
        except (httpx.HTTPError, TimeoutError):
            return Answer(None, None)

    @staticmethod
    def _counted(outcome: str) -> str:
        WEBHOOK_DELIVERIES.labels(outcome).inc()
        return outcome
