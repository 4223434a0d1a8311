"""Webhook bodies and their signature: HMAC-SHA256 of the exact body, sent as `X-PaperTrail-Signature`. No I/O.

A receiver checks a delivery by computing `sha256=` + hex(HMAC-SHA256(secret, raw request body)) and
comparing it with the header in constant time (`verify_signature`).
"""

import hashlib
import hmac
import json

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
