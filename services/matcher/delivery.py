"""Delivering matches: signed webhook POSTs with retries (httpx + stamina) and daily digests by SMTP."""

import asyncio
import logging
import smtplib
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import stamina

from schemas.events import Follow, FollowMatched
from services.matcher.digest import build_digest, day_bounds, digest_text, render_html
from services.matcher.metrics import DIGESTS, WEBHOOK_DELIVERIES
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore
from services.matcher.webhooks import (
    DELIVERY_HEADER,
    EVENT_HEADER,
    SIGNATURE_HEADER,
    delivery_id,
    retryable_status,
    signature,
    webhook_body,
)

log = logging.getLogger("papertrail.matcher.delivery")
# How long one replica holds the right to mail a digest; a replica that dies mid-send frees it this late.
MAIL_LEASE = timedelta(minutes=10)


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


class DigestMaker:
    """Build each user's digest of a finished day, store it in `digests`, and mail it when SMTP is set up."""

    def __init__(self, store: MatchStore, settings: MatcherSettings) -> None:
        self.store = store
        self.settings = settings
        self.zone = ZoneInfo(settings.digest_timezone)

    async def run_once(self, now: datetime | None = None, days_back: int = 2) -> list[str]:
        """Digest the last `days_back` finished days (idempotent); return the ids of digests stored or mailed."""
        now = now or datetime.now(UTC)
        today = now.astimezone(self.zone).date()
        done: list[str] = []
        for back in range(days_back, 0, -1):
            day = today - timedelta(days=back)
            start, end = day_bounds(day, self.zone)
            by_user: dict[str, list[dict[str, Any]]] = {}
            for match in await self.store.matches_between(start, end):
                by_user.setdefault(match["user_id"], []).append(match)
            for user_id, matches in by_user.items():
                if await self.store.digest(user_id, day.isoformat()) is None:
                    content = build_digest(user_id, day, matches, self.settings.public_url)
                    await self.store.save_digest(user_id, day.isoformat(), content, render_html(content), now)
                    DIGESTS.labels("stored").inc()
                    done.append(f"{user_id}:{day.isoformat()}")
        if self.settings.smtp_host:
            since = (today - timedelta(days=days_back)).isoformat()
            for digest in await self.store.unsent_digests(since):
                if await self._mail(digest, now):
                    done.append(digest["_id"])
        return done

    async def _mail(self, digest: dict[str, Any], now: datetime) -> bool:
        user = await self.store.user(digest["user_id"])
        address = (user or {}).get("email")
        if not address:
            return False
        if not await self.store.claim_digest_mail(digest["_id"], now, MAIL_LEASE):
            return False  # another replica is mailing it, or has
        sent = await self._send_digest(digest, address, now)
        if not sent:
            await self.store.release_digest_mail(digest["_id"])  # the next run tries again
        return sent

    async def _send_digest(self, digest: dict[str, Any], address: str, now: datetime) -> bool:
        message = EmailMessage()
        message["Subject"] = digest["digest"]["subject"]
        message["From"] = self.settings.smtp_from
        message["To"] = address
        message.set_content(digest_text(digest["digest"]))
        message.add_alternative(digest["html"], subtype="html")
        try:
            await asyncio.to_thread(self._send, message)
        except (OSError, smtplib.SMTPException) as error:
            DIGESTS.labels("mail_failed").inc()
            log.warning(
                "digest mail failed", extra={"digest": digest["_id"], "error": f"{type(error).__name__}: {error}"}
            )
            return False
        await self.store.digest_sent(digest["user_id"], digest["day"], address, now)
        DIGESTS.labels("mailed").inc()
        return True

    def _send(self, message: EmailMessage) -> None:
        settings = self.settings
        assert settings.smtp_host is not None
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=settings.smtp_timeout_s) as smtp:
            if settings.smtp_starttls:
                smtp.starttls()
            if settings.smtp_username and settings.smtp_password:
                smtp.login(settings.smtp_username, settings.smtp_password.get_secret_value())
            smtp.send_message(message)
