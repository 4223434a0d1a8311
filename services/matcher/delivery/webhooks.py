"""Webhook bodies and their signature (HMAC-SHA256 of the exact body, sent as `X-PaperTrail-Signature`), what an
attempt's answer means for the delivery (delivered, tried again later, or failed) and for its endpoint (a failure or
a slow answer counts toward disabling it), and the slots tries take (per user and per receiving address). No I/O.

A receiver checks a delivery by computing `sha256=` + hex(HMAC-SHA256(secret, raw request body)) and
comparing it with the header in constant time (`verify_signature`).
"""

import hashlib
import hmac
import json
from collections import Counter, OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta
from ipaddress import IPv6Address, IPv6Network
from typing import Literal

from papertrail.runtime.outbound import IPAddress, embedded_ipv4
from papertrail.runtime.wording import Translator
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
    payload = {"event": MATCHED_EVENT, "match": json.loads(match.model_dump_json())}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


MATCHED_EVENT = "follow.matched"
BACKFILLED_EVENT = "follow.backfilled"
# a webhook's receiver is a program, not a reader: the text a backfill's POST carries is English
_WEBHOOK_WORDS = Translator("en")


def backfill_summary_id(user_id: str, follow_id: str, at: datetime, url: str) -> str:
    """One backfill (of a follow, begun at `at`) to one URL is one summary delivery."""
    return hashlib.sha256(f"{user_id}\n{follow_id}\nbackfill {at.isoformat()}\n{url}".encode()).hexdigest()[:32]


def backfill_summary_body(
    user_id: str, follow_id: str, follow_name: str, papers: int, at: datetime, feed_url: str
) -> bytes:
    """The one POST a new follow's backfill makes, however many held papers it matched: how many, and where its
    reader sees them (the follow's feed), not one delivery per match."""
    payload = {
        "event": BACKFILLED_EVENT,
        "backfill": {
            "user_id": user_id,
            "follow_id": follow_id,
            "follow_name": follow_name,
            "papers": papers,
            "text": _WEBHOOK_WORDS.ngettext("%(num)s earlier paper matches", "%(num)s earlier papers match", papers),
            "feed_url": feed_url,
            "matched_at": at.isoformat(),
        },
    }
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
    """What becomes of a delivery after a try: `retry` at `due_at`, or its outcome with the line its log shows;
    `strike`: why a closed delivery counts against its endpoint (its failure, or a slow answer), None when it
    counts for it (delivered in time) or is not closed yet."""

    outcome: Literal["delivered", "retry", "failed"]
    error: str | None = None
    due_at: datetime | None = None
    strike: str | None = None


def slow_answer(status: int | None, took_s: float | None, slow_after_s: float) -> str | None:
    """Why an answer was slow, or None: a receiver that answers just inside the timeout holds a slot for as long
    as a failing one, so its answers count against it (WEBHOOK_SLOW_FRACTION of the timeout). No answer is never
    slow: it is a failure, and its time is not shown (a timeout and a closed port read the same)."""
    if status is None or took_s is None or took_s <= slow_after_s:
        return None
    return f"slow answer: HTTP {status} after {took_s:.1f} s (slow after {slow_after_s:g} s)"


def verdict(
    status: int | None,
    attempts: int,
    retries: Retries,
    now: datetime,
    took_s: float | None = None,
    slow_after_s: float = float("inf"),
    refused: str | None = None,
    retry_after_s: float | None = None,
) -> Verdict:
    """The delivery's fate after its `attempts`-th try answered `status` in `took_s` seconds (None: no answer,
    whatever the reason, so the log is no port scanner: a closed port, a timeout and a reset read the same).
    `refused`: the error a bot's answer names in its body (papertrail/runtime/push/): with a 2xx status a failure all
    the same, with another said with it. `retry_after_s`: the wait a bot's flood-limited answer asks for (Telegram's
    `retry_after`); the next try is no sooner."""
    if status is not None and 200 <= status < 300:
        if refused is not None:  # the bot read the request and said no (a bad signature, a deleted bot)
            failure = f"HTTP {status}, bot error {refused} (not retried)"
            return Verdict("failed", failure, strike=failure)
        return Verdict("delivered", strike=slow_answer(status, took_s, slow_after_s))
    said = "no answer" if status is None else f"HTTP {status}"
    if refused is not None:
        said += f", bot error {refused}"
    if status is None or retryable_status(status):
        if attempts < retries.max_attempts:
            wait = max(retries.delay(attempts), timedelta(seconds=retry_after_s or 0))
            return Verdict("retry", due_at=now + wait)
        failure = f"{said} after {attempts} attempts"
    else:
        failure = f"{said} (not retried)"
    return Verdict("failed", failure, strike=failure)


def disabled_reason(strikes: int, last: str) -> str:
    """What the webhook's state says of an endpoint disabled after `strikes` failed or slow deliveries in a row."""
    return f"disabled after {strikes} consecutive failed or slow deliveries; last: {last}"


UNRESOLVED = "host "  # a receiver known by its name only: it did not resolve, or resolved to a refused address


def receiver_of(address: IPAddress | None, host: str) -> str:
    """What a try's slot is counted against: the address it connects to (an IPv6 one by its /64, one site's
    network, where a host may answer at as many addresses as it likes; an IPv6 address carrying an IPv4 one by that
    IPv4 address), or its host's name when it has no address (the try then fails, and says why)."""
    if address is None:
        return UNRESOLVED + host
    if isinstance(address, IPv6Address):
        if (inner := embedded_ipv4(address)) is not None:
            return str(inner)
        return str(IPv6Network((address, 64), strict=False))
    return str(address)


class Slots:
    """The webhook tries running in one matcher, counted per user and per receiver (`receiver_of`): a try takes a
    slot of both, and may start only where both are under their bound (WEBHOOK_PER_USER, WEBHOOK_PER_ADDRESS), so
    many names of one address, or one user's many addresses, cannot take every slot (WEBHOOK_CONCURRENCY).

    A try is claimed before its host is resolved (resolving takes time, and a slow name server must not hold up
    the others): it is counted against the receiver its host had last (`take`), and moved to the one it resolves to
    now (`resolved`), or gives way if that one is full. The receiver of each host resolved lately is remembered
    (the newest `remembered`), so the queue passes by the hosts of a full receiver (`busy_hosts`)."""

    def __init__(self, per_user: int, per_receiver: int, remembered: int = 10_000) -> None:
        self.per_user = per_user
        self.per_receiver = per_receiver
        self.remembered = remembered
        self.users: Counter[str] = Counter()
        self.receivers: Counter[str] = Counter()
        self.routes: OrderedDict[str, str] = OrderedDict()  # host → its receiver when last resolved, oldest first
        self.hosts_at: dict[str, set[str]] = {}  # receiver → the hosts routed there

    def busy_users(self) -> list[str]:
        """Users whose tries are at their bound: none of theirs is claimed now."""
        return sorted(user for user, running in self.users.items() if running >= self.per_user)

    def busy_hosts(self) -> list[str]:
        """Hosts whose receiver (as last resolved; else their own name) is at its bound: none of theirs is claimed."""
        busy: set[str] = set()
        for receiver, running in self.receivers.items():
            if running >= self.per_receiver:
                busy |= self.hosts_at.get(receiver, set())
                if receiver.startswith(UNRESOLVED):
                    busy.add(receiver.removeprefix(UNRESOLVED))
        return sorted(busy)

    def take(self, user: str, host: str) -> str:
        """A try of `user`'s to `host` is claimed: its slots taken, the receiver's as last known; that receiver."""
        receiver = self.routes.get(host) or receiver_of(None, host)
        self.users[user] += 1
        self.receivers[receiver] += 1
        return receiver

    def resolved(self, user: str, host: str, counted: str, address: IPAddress | None) -> str | None:
        """The try counted against `counted` has its address now (None: none): the receiver it is counted against
        from here, or None when that receiver is full and the try gives way (its slots freed; tried again when the
        receiver has room)."""
        receiver = receiver_of(address, host)
        if address is not None:
            self._remember(host, receiver)
        # the count it had is let go first: the same receiver may have filled since the claim (another try moved
        # there while this one was being claimed), and the bound holds all the same
        self._free(self.receivers, counted)
        if self.receivers[receiver] >= self.per_receiver:
            self._free(self.users, user)
            return None
        self.receivers[receiver] += 1
        return receiver

    def finished(self, user: str, receiver: str) -> None:
        """A try ended: its slots are free."""
        self._free(self.users, user)
        self._free(self.receivers, receiver)

    def _remember(self, host: str, receiver: str) -> None:
        if (before := self.routes.pop(host, None)) is not None:
            self._forget(host, before)
        self.routes[host] = receiver
        self.hosts_at.setdefault(receiver, set()).add(host)
        while len(self.routes) > self.remembered:
            self._forget(*self.routes.popitem(last=False))

    def _forget(self, host: str, receiver: str) -> None:
        hosts = self.hosts_at[receiver]
        hosts.discard(host)
        if not hosts:
            del self.hosts_at[receiver]

    @staticmethod
    def _free(counter: Counter[str], key: str) -> None:
        counter[key] -= 1
        if counter[key] <= 0:
            del counter[key]
