"""What a try's answer means for a webhook delivery (pure): delivered, due again after a doubling wait, or failed,
with a log line that names a status code or "no answer" and nothing else."""

from datetime import UTC, datetime, timedelta

import pytest

from services.matcher.delivery.webhooks import Retries, Verdict, verdict

NOW = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
RETRIES = Retries(max_attempts=4, backoff_s=1.0, backoff_max_s=3.0)


def test_the_wait_doubles_up_to_the_longest() -> None:
    assert [RETRIES.delay(n).total_seconds() for n in range(1, 5)] == [1.0, 2.0, 3.0, 3.0]


@pytest.mark.parametrize(
    ("status", "attempts", "expected"),
    [
        (200, 1, Verdict("delivered")),
        (204, 4, Verdict("delivered")),
        (500, 1, Verdict("retry", due_at=NOW + timedelta(seconds=1))),
        (429, 2, Verdict("retry", due_at=NOW + timedelta(seconds=2))),
        (None, 3, Verdict("retry", due_at=NOW + timedelta(seconds=3))),
        (503, 4, Verdict("failed", "HTTP 503 after 4 attempts")),
        (None, 4, Verdict("failed", "no answer after 4 attempts")),
        (401, 1, Verdict("failed", "HTTP 401 (not retried)")),
        (302, 1, Verdict("failed", "HTTP 302 (not retried)")),  # redirects are not followed
    ],
)
def test_a_tries_answer_decides_the_delivery(status: int | None, attempts: int, expected: Verdict) -> None:
    assert verdict(status, attempts, RETRIES, NOW) == expected
