"""What a try's answer means for a webhook delivery (pure): delivered, due again after a doubling wait, or failed,
with a log line that names a status code or "no answer" and nothing else; what it means for the endpoint (a failure,
or an answer just inside the timeout, counts against it); and the slots tries take, per user and per receiving
address."""

from datetime import UTC, datetime, timedelta
from ipaddress import ip_address

import pytest

from papertrail.runtime.outbound import IPAddress
from services.matcher.delivery.webhooks import Retries, Slots, Verdict, disabled_reason, receiver_of, verdict

NOW = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
RETRIES = Retries(max_attempts=4, backoff_s=1.0, backoff_max_s=3.0)
SLOW = "slow answer: HTTP 200 after 8.0 s (slow after 5 s)"


def test_the_wait_doubles_up_to_the_longest() -> None:
    assert [RETRIES.delay(n).total_seconds() for n in range(1, 5)] == [1.0, 2.0, 3.0, 3.0]


@pytest.mark.parametrize(
    ("status", "attempts", "took_s", "expected"),
    [
        (200, 1, 0.2, Verdict("delivered")),
        (204, 4, None, Verdict("delivered")),
        (200, 1, 5.0, Verdict("delivered")),  # at the bound: not slow
        (200, 1, 8.0, Verdict("delivered", strike=SLOW)),  # delivered, and counted against the endpoint
        (500, 1, 0.2, Verdict("retry", due_at=NOW + timedelta(seconds=1))),
        (503, 1, 8.0, Verdict("retry", due_at=NOW + timedelta(seconds=1))),  # not closed: nothing counted yet
        (429, 2, None, Verdict("retry", due_at=NOW + timedelta(seconds=2))),
        (None, 3, None, Verdict("retry", due_at=NOW + timedelta(seconds=3))),
        (503, 4, 0.2, Verdict("failed", "HTTP 503 after 4 attempts", strike="HTTP 503 after 4 attempts")),
        (None, 4, None, Verdict("failed", "no answer after 4 attempts", strike="no answer after 4 attempts")),
        (401, 1, 0.2, Verdict("failed", "HTTP 401 (not retried)", strike="HTTP 401 (not retried)")),
        (302, 1, 0.2, Verdict("failed", "HTTP 302 (not retried)", strike="HTTP 302 (not retried)")),  # no redirects
    ],
)
def test_a_tries_answer_decides_the_delivery_and_what_it_counts_for_the_endpoint(
    status: int | None, attempts: int, took_s: float | None, expected: Verdict
) -> None:
    assert verdict(status, attempts, RETRIES, NOW, took_s, slow_after_s=5.0) == expected


def test_without_a_bound_no_answer_is_slow() -> None:
    assert verdict(200, 1, RETRIES, NOW, took_s=3600.0) == Verdict("delivered")


def test_the_disabled_reason_names_the_last_strike() -> None:
    assert disabled_reason(5, SLOW) == f"disabled after 5 consecutive failed or slow deliveries; last: {SLOW}"


@pytest.mark.parametrize(
    ("address", "host", "receiver"),
    [
        ("93.184.215.14", "hooks.example", "93.184.215.14"),
        ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", "a.example", "2606:2800:21f:cb07::/64"),
        ("2606:2800:21f:cb07::1", "b.example", "2606:2800:21f:cb07::/64"),  # one site's network: one receiver
        ("::ffff:93.184.215.14", "c.example", "93.184.215.14"),  # an IPv4 address written as IPv6
        ("2002:5db8:d70e::1", "d.example", "93.184.215.14"),  # 6to4: reaches the IPv4 address it carries
        (None, "gone.example", "host gone.example"),  # it did not resolve: counted by its name
    ],
)
def test_a_try_is_counted_against_its_address_or_its_network(address: str | None, host: str, receiver: str) -> None:
    assert receiver_of(ip_address(address) if address else None, host) == receiver


A = ip_address("93.184.215.14")
B = ip_address("151.101.1.140")


def claim(slots: Slots, user: str, host: str, address: IPAddress | None) -> str | None:
    """A delivery claimed and its host resolved: the receiver its try is counted against, None if it gave way."""
    return slots.resolved(user, host, slots.take(user, host), address)


def test_names_of_one_address_share_its_bound_and_the_queue_then_passes_them_by() -> None:
    slots = Slots(per_user=4, per_receiver=2)
    assert [claim(slots, f"u{n}", f"r{n}.wild.example", A) for n in range(3)] == [str(A), str(A), None]
    assert slots.receivers == {str(A): 2} and slots.users == {"u0": 1, "u1": 1}  # the third gave its slots back
    assert slots.busy_hosts() == ["r0.wild.example", "r1.wild.example", "r2.wild.example"]
    assert claim(slots, "u3", "other.example", B) == str(B)  # another address has room
    slots.finished("u0", str(A))
    assert slots.busy_hosts() == []  # room at A: its names may be claimed again
    assert slots.take("u2", "r2.wild.example") == str(A)  # counted where it resolved last, before resolving again
    assert slots.busy_hosts() == ["r0.wild.example", "r1.wild.example", "r2.wild.example"]


def test_one_users_tries_at_many_addresses_stop_at_the_users_bound() -> None:
    slots = Slots(per_user=2, per_receiver=2)
    addresses = [ip_address(f"93.184.215.{n}") for n in (1, 2)]
    assert [claim(slots, "u1", f"h{n}.example", a) for n, a in enumerate(addresses)] == [str(a) for a in addresses]
    assert slots.busy_users() == ["u1"] and slots.busy_hosts() == []
    slots.finished("u1", str(addresses[0]))
    assert slots.busy_users() == []


def test_a_host_that_moved_is_counted_where_it_resolves_now() -> None:
    slots = Slots(per_user=4, per_receiver=1)
    assert claim(slots, "u1", "hooks.example", A) == str(A)
    slots.finished("u1", str(A))
    counted = slots.take("u1", "hooks.example")
    assert counted == str(A)
    assert slots.resolved("u1", "hooks.example", counted, B) == str(B)  # A's slot freed, B's taken
    assert slots.receivers == {str(B): 1} and slots.busy_hosts() == ["hooks.example"]


def test_the_bound_holds_when_a_receiver_filled_between_the_claim_and_the_lookup() -> None:
    slots = Slots(per_user=4, per_receiver=1)
    assert claim(slots, "u1", "hooks.example", A) == str(A)
    slots.finished("u1", str(A))
    first, second = slots.take("u1", "hooks.example"), slots.take("u2", "hooks.example")  # claimed together
    assert slots.resolved("u1", "hooks.example", first, A) is None  # A is held by the other already
    assert slots.resolved("u2", "hooks.example", second, A) == str(A)
    assert slots.receivers == {str(A): 1} and slots.users == {"u2": 1}


def test_a_host_without_an_address_is_bounded_by_its_name() -> None:
    slots = Slots(per_user=4, per_receiver=1)
    assert claim(slots, "u1", "gone.example", None) == "host gone.example"
    assert slots.busy_hosts() == ["gone.example"]
    slots.finished("u1", "host gone.example")
    assert slots.busy_hosts() == [] and not slots.receivers and not slots.users


def test_only_the_newest_routes_are_remembered() -> None:
    slots = Slots(per_user=10, per_receiver=10, remembered=2)
    for n in range(3):
        claim(slots, "u1", f"h{n}.example", A)
    assert list(slots.routes) == ["h1.example", "h2.example"] and slots.hosts_at == {
        str(A): {"h1.example", "h2.example"}
    }
