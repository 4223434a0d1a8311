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

from papertrail.guarded_http import CONNECT_TO
from papertrail.outbound import IPAddress, OutboundRefused, url_host
from papertrail.push.channel import ANSWER_LIMIT, LANGUAGES, Language, match_message
from papertrail.push.channels import CHANNELS, GENERIC
from schemas.events import Follow, FollowMatched
from services.matcher.delivery.webhooks import (
    DELIVERY_HEADER,
    EVENT_HEADER,
    SIGNATURE_HEADER,
    Retries,
    Verdict,
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
    channel (`generic`, or a group bot of papertrail/push/) and the language a bot's message is written in."""

    url: str
    secret: str
    channel: str = GENERIC
    language: Language = "zh"


def webhook_target(follow: Follow | None, user: dict[str, Any] | None) -> WebhookTarget | None:
    """The follow's own webhook, else the user's (`webhook_url` / `webhook_secret` / `webhook_channel` /
    `webhook_language` on the user document)."""
    if follow is not None and follow.webhook_url:
        return WebhookTarget(follow.webhook_url, follow.webhook_secret or "")
    if user and user.get("webhook_url"):
        channel = str(user.get("webhook_channel") or GENERIC)
        language = user.get("webhook_language")
        return WebhookTarget(
            str(user["webhook_url"]),
            str(user.get("webhook_secret") or ""),
            channel,
            language if language in LANGUAGES else "zh",
        )
    return None


def queued_delivery(match: FollowMatched, target: WebhookTarget, now: datetime, public_url: str) -> dict[str, Any]:
    """The delivery as queued: due now, its body signed once (the secret stays with the follow or the user). A group
    bot's request is built here too, signed with `now` (the bots take a signature for an hour: a delivery still
    failing an hour later is refused by the bot, and that refusal is its failure)."""
    ident = delivery_id(match, target.url)
    common = {
        "_id": ident,
        "delivery_id": ident,
        "user_id": match.user_id,
        "follow_id": match.follow_id,
        "paper_id": match.paper_id,
        "url": target.url,
        "host": url_host(target.url),
        "outcome": "pending",
        "created_at": now,
        "due_at": now,
        "attempts": [],
    }
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


async def read_head(response: httpx.Response, limit: int) -> bytes:
    """At most `limit` bytes of the answer's body: the rest is never read."""
    head = bytearray()
    async for chunk in response.aiter_bytes():
        head += chunk
        if len(head) >= limit:
            break
    return bytes(head[:limit])


class WebhookSender:
    """One try of a queued delivery: POSTed through the guarded client (papertrail/guarded_http.py), logged with the
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
        status, took_s, refused, bot_error = await self._post(delivery, address)
        attempt: dict[str, Any] = {"at": now} | ({"status": status} if status is not None else {"error": "no answer"})
        # refused: not tried again (the host's addresses are what they are), and counted as the host's failure
        fate = (
            Verdict("failed", REFUSED, strike=REFUSED)
            if refused
            else verdict(status, len(delivery["attempts"]) + 1, self.retries, now, took_s, self.slow_after_s, bot_error)
        )
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
        """Re-enable the user's webhooks on the host if they set their webhook (PUT /api/me/webhook) to a URL there
        since it was disabled: their word that the receiver works again. A new follow's URL is not (that was the
        way round the count)."""
        user = await self.store.user(user_id) or {}
        set_at, disabled_at = user.get("webhook_set_at"), endpoint.get("disabled_at")
        if set_at is None or disabled_at is None or set_at <= disabled_at:
            return False
        if url_host(str(user.get("webhook_url") or "")) != host:
            return False
        await self.store.endpoint_enabled(user_id, host)
        return True

    async def _post(
        self, delivery: dict[str, Any], address: IPAddress | None
    ) -> tuple[int | None, float | None, bool, str | None]:
        """The status the receiver answered (None: none), the seconds it took, whether the outbound policy stopped
        the request, and the error a group bot's answer names in its body."""
        channel = CHANNELS.get(delivery.get("channel") or GENERIC)
        if channel is None:
            url = delivery["url"]
            headers = {
                "content-type": "application/json",
                SIGNATURE_HEADER: delivery["signature"],
                EVENT_HEADER: "follow.matched",
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
                # the answer's body is never read: only its status matters, and a receiver cannot make us hold a
                # huge one
                async with self.client.stream(
                    "POST", url, content=content, headers=headers, timeout=timeout,
                    extensions={CONNECT_TO: address} if address is not None else None,
                ) as response:  # fmt: skip
                    took_s = self.monotonic() - started
                    if channel is None or not 200 <= response.status_code < 300:
                        return response.status_code, took_s, False, None
                    # a bot answers 200 and says in the body whether it took the message: its head is read
                    answer = await read_head(response, ANSWER_LIMIT)
                    return response.status_code, self.monotonic() - started, False, channel.refusal(answer)
        except OutboundRefused as error:
            log.warning("webhook refused", extra={"delivery_id": delivery["_id"], "reason": str(error)})
            return None, None, True, None
        except (httpx.HTTPError, TimeoutError):
            return None, None, False, None

    @staticmethod
    def _counted(outcome: str) -> str:
        WEBHOOK_DELIVERIES.labels(outcome).inc()
        return outcome
