"""Webhook delivery: each match POSTed signed to its follow's or its owner's webhook, retried with backoff
(httpx + stamina), logged, and the webhook disabled after repeated failures."""

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import stamina

from schemas.events import Follow, FollowMatched
from services.matcher.delivery.webhooks import (
    DELIVERY_HEADER,
    EVENT_HEADER,
    SIGNATURE_HEADER,
    delivery_id,
    retryable_status,
    signature,
    webhook_body,
)
from services.matcher.metrics import WEBHOOK_DELIVERIES
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

log = logging.getLogger("papertrail.matcher.delivery")


@dataclass(frozen=True, slots=True)
class WebhookTarget:
    url: str
    secret: str


def webhook_target(follow: Follow | None, user: dict[str, Any] | None) -> WebhookTarget | None:
    """The follow's own webhook, else the user's (`webhook_url` / `webhook_secret` on the user document)."""
    if follow is not None and follow.webhook_url:
        return WebhookTarget(follow.webhook_url, follow.webhook_secret or "")
    if user and user.get("webhook_url"):
        return WebhookTarget(str(user["webhook_url"]), str(user.get("webhook_secret") or ""))
    return None


class _RetryableResponse(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


class WebhookSender:
    """POST a match to a user's webhook: signed, retried with backoff, logged, disabled after repeated failures."""

    def __init__(self, store: MatchStore, client: httpx.AsyncClient, settings: MatcherSettings) -> None:
        self.store = store
        self.client = client
        self.settings = settings

    async def deliver(self, match: FollowMatched, target: WebhookTarget) -> str:
        """Deliver once per match and URL; return the outcome, which is also counted and logged."""
        ident = delivery_id(match, target.url)
        if await self.store.delivered_before(ident):
            WEBHOOK_DELIVERIES.labels("duplicate").inc()
            return "duplicate"
        now = datetime.now(UTC)
        entry: dict[str, Any] = {
            "delivery_id": ident,
            "user_id": match.user_id,
            "follow_id": match.follow_id,
            "paper_id": match.paper_id,
            "url": target.url,
            "created_at": now,
            "attempts": [],
        }
        endpoint = await self.store.endpoint(match.user_id, target.url)
        if endpoint.get("disabled"):
            entry |= {"outcome": "skipped_disabled", "error": endpoint.get("disabled_reason")}
        else:
            entry |= await self._post(match, target, ident, entry["attempts"])
            if entry["outcome"] == "delivered":
                await self.store.endpoint_succeeded(match.user_id, target.url, now)
            else:
                disabled = await self.store.endpoint_failed(
                    match.user_id, target.url, now, entry["error"], self.settings.webhook_disable_after
                )
                entry["disabled_endpoint"] = disabled
        await self.store.log_delivery(entry)
        WEBHOOK_DELIVERIES.labels(entry["outcome"]).inc()
        return str(entry["outcome"])

    async def _post(self, match: FollowMatched, target: WebhookTarget, ident: str, attempts: list) -> dict[str, Any]:
        body = webhook_body(match)
        headers = {
            "content-type": "application/json",
            SIGNATURE_HEADER: signature(target.secret, body),
            EVENT_HEADER: "follow.matched",
            DELIVERY_HEADER: ident,
        }
        settings = self.settings
        try:
            async for attempt in stamina.retry_context(
                on=(_RetryableResponse, httpx.TransportError),
                attempts=settings.webhook_max_attempts,
                timeout=None,
                wait_initial=settings.webhook_backoff_s,
                wait_max=settings.webhook_backoff_max_s,
                wait_jitter=0,
            ):
                with attempt:
                    started = time.perf_counter()
                    record: dict[str, Any] = {"at": datetime.now(UTC)}
                    attempts.append(record)
                    try:
                        response = await self.client.post(
                            target.url, content=body, headers=headers, timeout=settings.webhook_timeout_s
                        )
                    except httpx.HTTPError as error:
                        record |= {"error": f"{type(error).__name__}: {error}", "ms": _ms(started)}
                        raise
                    record |= {"status": response.status_code, "ms": _ms(started)}
                    if retryable_status(response.status_code):
                        raise _RetryableResponse(response.status_code)
                    if response.status_code >= 300:
                        return {"outcome": "failed", "error": f"HTTP {response.status_code} (not retried)"}
        except (_RetryableResponse, httpx.HTTPError) as error:
            detail = str(error) or type(error).__name__
            return {"outcome": "failed", "error": f"{detail} after {len(attempts)} attempts"}
        return {"outcome": "delivered", "status": attempts[-1]["status"]}


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
