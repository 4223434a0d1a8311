"""Write-limit rates and their windows, and the account input rules, without servers."""

from datetime import UTC, datetime, timedelta

import pytest

from services.query.accounts.rates import Rate, over, window
from services.query.accounts.users import BadAccountInput, checked_password, normalised_email
from services.query.settings import QuerySettings


@pytest.mark.parametrize(
    ("text", "count", "period_s"), [("20/1h", 20, 3600), ("10/15min", 10, 900), ("5/d", 5, 86400), ("1/30s", 1, 30)]
)
def test_rates_read_as_count_per_period(text: str, count: int, period_s: int) -> None:
    assert Rate.parse(text) == Rate(count, period_s)


@pytest.mark.parametrize("text", ["20", "20/h/", "0/1h", "20/0h", "20/1w", "x/1h", "-1/1h"])
def test_a_bad_rate_is_refused_with_the_form_it_takes(text: str) -> None:
    with pytest.raises(ValueError, match=r"not a rate|at least 1"):
        Rate.parse(text)


def test_a_bad_limit_setting_stops_the_service_at_start() -> None:
    with pytest.raises(ValueError, match=r"limit_corrections"):
        QuerySettings(limit_corrections="twenty")  # type: ignore[call-arg]


def test_every_replica_counts_in_the_same_window_until_it_ends() -> None:
    rate = Rate.parse("20/1h")
    start = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
    client = "address:203.0.113.7"
    first = window("corrections", rate, client, start + timedelta(minutes=1))
    last = window("corrections", rate, client, start + timedelta(minutes=59, seconds=59))
    assert first == last and first.ends_at == start + timedelta(hours=1)
    assert window("corrections", rate, client, start + timedelta(hours=1)).key != first.key
    assert window("corrections", rate, "address:203.0.113.8", start).key != first.key  # another client
    assert window("follow_writes", rate, client, start).key != first.key  # another limit
    assert first.retry_after(start + timedelta(minutes=59, seconds=59, milliseconds=500)) == 1
    assert first.retry_after(start + timedelta(minutes=1)) == 3540


def test_the_write_past_the_count_is_over() -> None:
    rate = Rate.parse("20/1h")
    assert not over(20, rate) and over(21, rate)


def test_addresses_are_trimmed_checked_and_case_folded() -> None:
    assert normalised_email("  Ana.Li@Example.ORG ") == "ana.li@example.org"
    for bad in ("ana", "ana@", "@example.org", "ana li@example.org", ""):
        with pytest.raises(BadAccountInput, match="email_invalid"):
            normalised_email(bad)


def test_passwords_have_a_length_range() -> None:
    assert checked_password("ten chars!", 10) == "ten chars!"
    with pytest.raises(BadAccountInput, match="too_short"):
        checked_password("nine char", 10)
    with pytest.raises(BadAccountInput, match="too_long"):
        checked_password("x" * 257, 10)
