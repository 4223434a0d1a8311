"""Webhook bodies and their signature (HMAC-SHA256 of the exact body, sent as `X-PaperTrail-Signature`), and what an
attempt's answer means for the delivery: delivered, tried again later, or failed. No I/O.

A receiver checks a delivery by computing `sha256=` + hex(HMAC-SHA256(secret, raw request body)) and
comparing it with the header in constant time (`verify_signature`).
"""

import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from schemas.events import FollowMatched

SIGNATURE_HEADER = "X-PaperTrail-Signature"
EVENT_HEADER = "X-PaperTrail-Event"
DELIVERY_HEADER = "X-PaperTrail-Delivery"


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes, header: str) -> bool:
    return hmac.compare_digest(signature(secret, body), header)


def delivery_id(match: FollowMatched, url: str) -> str:
    """The same match to the same URL is one delivery, however often the event is consumed."""
    return hashlib.sha256(f"{match.user_id}\n{match.follow_id}\n{match.paper_id}\n{url}".encode()).hexdigest()[:32]


def webhook_body(match: FollowMatched) -> bytes:
    """The POSTed JSON: the follows.matched.v1 event under `match`, with the event name."""
    payload = {"event": "follow.matched", "match": json.loads(match.model_dump_json())}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def retryable_status(status: int) -> bool:
    """Server errors, timeouts and rate limits are worth another try; other 4xx answers will not change."""
    return status >= 500 or status in (408, 425, 429)


@dataclass(frozen=True, slots=True)
class Retries:
    """How often and how far apart a delivery is tried (WEBHOOK_MAX_ATTEMPTS, WEBHOOK_BACKOFF_S and _MAX_S)."""

    max_attempts: int
    backoff_s: float
    backoff_max_s: float

    def delay(self, attempts: int) -> timedelta:
        """The wait after the `attempts`-th try: doubling from the first wait, up to the longest."""
        return timedelta(seconds=min(self.backoff_s * 2 ** (attempts - 1), self.backoff_max_s))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What becomes of a delivery after a try: `retry` at `due_at`, or its outcome with the line its log shows."""

    outcome: Literal["delivered", "retry", "failed"]
    error: str | None = None
    due_at: datetime | None = None


def verdict(status: int | None, attempts: int, retries: Retries, now: datetime) -> Verdict:
    """The delivery's fate after its `attempts`-th try answered `status` (None: no answer, whatever the reason, so
    the log is no port scanner: a closed port, a timeout and a reset read the same)."""
    if status is not None and 200 <= status < 300:
        return Verdict("delivered")
    said = "no answer" if status is None else f"HTTP {status}"
    if status is not None and not retryable_status(status):
        return Verdict("failed", f"{said} (not retried)")
    if attempts < retries.max_attempts:
        return Verdict("retry", due_at=now + retries.delay(attempts))
    return Verdict("failed", f"{said} after {attempts} attempts")
